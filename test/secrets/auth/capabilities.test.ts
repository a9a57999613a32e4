import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { createToken, putPolicy, v1 } from '../core/client.js';

describe('sys/capabilities, sys/leader and sys/seal-status', () => {
  let server: TestServer;
  let token: string;
  let accessor: string;
  beforeAll(async () => {
    server = await startServer();
    await putPolicy(
      server,
      'mixed',
      'path "secret/app/*" { capabilities = ["read", "list", "create"] }\npath "sys/mounts" { capabilities = ["deny"] }',
    );
    ({ client_token: token, accessor } = await createToken(server, { policies: ['mixed'] }));
  });
  afterAll(() => server.close());

  it('answers capabilities-self the way the CLI asks (path and paths)', async () => {
    // The CLI sends the path under both names.
    const reply = await v1(server, 'POST', 'sys/capabilities-self', { token, body: { path: 'secret/app/x', paths: ['secret/app/x'] } });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({ 'secret/app/x': ['create', 'list', 'read'], capabilities: ['create', 'list', 'read'] });
    const one = await v1(server, 'POST', 'sys/capabilities-self', { token, body: { paths: ['sys/mounts'] } });
    expect(one.body.data).toEqual({ 'sys/mounts': ['deny'], capabilities: ['deny'] });
    expect(one.body.capabilities).toEqual(['deny']);
    const many = await v1(server, 'POST', 'sys/capabilities-self', { token, body: { paths: ['cubbyhole/a', 'secret/b'] } });
    expect(many.body.data).toEqual({ 'cubbyhole/a': ['create', 'delete', 'list', 'read', 'update'], 'secret/b': ['deny'] });
    const root = await v1(server, 'POST', 'sys/capabilities-self', { body: { paths: ['anything'] } });
    expect(root.body.data.capabilities).toEqual(['root']);
    expect((await v1(server, 'POST', 'sys/capabilities-self', { token, body: {} })).body.errors).toEqual(['missing paths']);
  });

  it("answers another token's capabilities, by value or accessor", async () => {
    const byToken = await v1(server, 'POST', 'sys/capabilities', { body: { token, paths: 'secret/app/x' } });
    expect(byToken.body.data.capabilities).toEqual(['create', 'list', 'read']);
    const byAccessor = await v1(server, 'POST', 'sys/capabilities-accessor', { body: { accessor, paths: ['sys/mounts'] } });
    expect(byAccessor.body.data.capabilities).toEqual(['deny']);
    expect((await v1(server, 'POST', 'sys/capabilities', { body: { token: 'nope', paths: 'x' } })).body.errors).toEqual(['invalid token']);
    expect((await v1(server, 'POST', 'sys/capabilities-accessor', { body: { accessor: 'nope', paths: 'x' } })).body.errors).toEqual([
      'invalid accessor',
    ]);
    // Asking about other tokens is itself policy-controlled.
    expect((await v1(server, 'POST', 'sys/capabilities', { token, body: { token, paths: 'x' } })).status).toBe(403);
  });

  it('answers sys/leader and sys/seal-status without a token', async () => {
    const leader = await v1(server, 'GET', 'sys/leader', { token: null });
    expect(leader.status).toBe(200);
    expect(leader.body).toMatchObject({ ha_enabled: false, is_self: false, leader_address: '', performance_standby: false });
    const seal = await v1(server, 'GET', 'sys/seal-status', { token: null });
    expect(seal.body).toMatchObject({ sealed: false, initialized: true, type: 'shamir' });
  });
});
