import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { listMethod, v1 } from './client.js';

/**
 * NEEDS SOCKET-LEVEL `LIST` SUPPORT (src/secrets/http, another piece of work): Node's HTTP parser
 * refuses the `LIST` method, so this passes once the server accepts it. Every other test here
 * lists with `GET ?list=true`, which the real service treats the same way.
 */
describe('the real LIST method [needs socket-level LIST support]', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('lists a cubbyhole folder and the ACL policies', async () => {
    await v1(server, 'POST', 'cubbyhole/listed/a', { body: { v: 1 } });
    await v1(server, 'POST', 'cubbyhole/listed/b/c', { body: { v: 1 } });
    const cubbyhole = await listMethod(server, 'cubbyhole/listed');
    expect(cubbyhole.status).toBe(200);
    expect(cubbyhole.body).toMatchObject({ data: { keys: ['a', 'b/'] } });
    const policies = await listMethod(server, 'sys/policies/acl');
    expect(policies.body).toMatchObject({ data: { keys: ['default', 'root'] } });
  });
});
