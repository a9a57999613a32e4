import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { v1 } from './client.js';

// Issue 31 item 7: a wrapping TTL longer than the mount allows is capped at the mount's maximum
// lease TTL (the system's 768 hours when the mount sets none), as the real service caps it.

const SYSTEM_MAX_SECONDS = 768 * 60 * 60;

describe('X-Vault-Wrap-TTL beyond the maximum', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it("is capped at the system's 768h on a mount that sets no maximum", async () => {
    const reply = await v1(server, 'POST', 'sys/wrapping/wrap', { body: { secret: 'x' }, headers: { 'x-vault-wrap-ttl': '1000000h' } });
    expect(reply.status).toBe(200);
    expect(reply.body.wrap_info.ttl).toBe(SYSTEM_MAX_SECONDS);
    const lookup = await v1(server, 'POST', 'sys/wrapping/lookup', { body: { token: reply.body.wrap_info.token } });
    expect(lookup.body.data.creation_ttl).toBe(SYSTEM_MAX_SECONDS);
  });

  it("is capped at the mount's own max_lease_ttl, and a shorter TTL is kept", async () => {
    expect((await v1(server, 'POST', 'sys/mounts/capped', { body: { type: 'kv', config: { max_lease_ttl: '1h' } } })).status).toBe(204);
    expect((await v1(server, 'POST', 'capped/item', { body: { value: 'v' } })).status).toBe(204);
    const long = await v1(server, 'GET', 'capped/item', { headers: { 'x-vault-wrap-ttl': '5h' } });
    expect(long.status).toBe(200);
    expect(long.body.wrap_info.ttl).toBe(3600);
    const short = await v1(server, 'GET', 'capped/item', { headers: { 'x-vault-wrap-ttl': '90s' } });
    expect(short.body.wrap_info.ttl).toBe(90);
  });
});
