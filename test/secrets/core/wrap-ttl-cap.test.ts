import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { v1 } from './client.js';

// Issue 31 item 7: the real service makes the wrapping token with the TTL asked for (the shorter
// of the header's and a rewrap's), without the mount's or the system's maximum lease TTL; those
// bound leases and tokens. Only the header's parse (a duration Go can hold) and the policies'
// wrapping TTLs limit it.

const HOUR = 60 * 60;

describe('X-Vault-Wrap-TTL beyond the maximum lease TTL', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it("is kept past the system's 768h on a mount that sets no maximum", async () => {
    const reply = await v1(server, 'POST', 'sys/wrapping/wrap', { body: { secret: 'x' }, headers: { 'x-vault-wrap-ttl': '1000000h' } });
    expect(reply.status).toBe(200);
    expect(reply.body.wrap_info.ttl).toBe(1_000_000 * HOUR);
    const lookup = await v1(server, 'POST', 'sys/wrapping/lookup', { body: { token: reply.body.wrap_info.token } });
    expect(lookup.status).toBe(200);
    expect(lookup.body.data.creation_ttl).toBe(1_000_000 * HOUR);
    const unwrapped = await v1(server, 'POST', 'sys/wrapping/unwrap', { body: { token: reply.body.wrap_info.token } });
    expect(unwrapped.status).toBe(200);
    expect(unwrapped.body.data).toEqual({ secret: 'x' });
  });

  it("is kept past the mount's own max_lease_ttl, as a shorter TTL is", async () => {
    expect((await v1(server, 'POST', 'sys/mounts/capped', { body: { type: 'kv', config: { max_lease_ttl: '1h' } } })).status).toBe(204);
    expect((await v1(server, 'POST', 'capped/item', { body: { value: 'v' } })).status).toBe(204);
    const long = await v1(server, 'GET', 'capped/item', { headers: { 'x-vault-wrap-ttl': '5h' } });
    expect(long.status).toBe(200);
    expect(long.body.wrap_info.ttl).toBe(5 * HOUR);
    const short = await v1(server, 'GET', 'capped/item', { headers: { 'x-vault-wrap-ttl': '90s' } });
    expect(short.body.wrap_info.ttl).toBe(90);
  });

  it('is refused, wrapping nothing, past what a Go duration holds (about 2562047h)', async () => {
    const reply = await v1(server, 'POST', 'sys/wrapping/wrap', { body: { secret: 'x' }, headers: { 'x-vault-wrap-ttl': '3000000h' } });
    expect(reply.status).toBe(400);
    expect(reply.body.errors[0]).toMatch(/^error parsing X-Vault-Wrap-TTL header: /);
    expect(reply.body.wrap_info).toBeUndefined();
  });

  it("is still bounded by a policy's max_wrapping_ttl", async () => {
    const policy = 'path "sys/wrapping/wrap" {\n  capabilities = ["update"]\n  max_wrapping_ttl = "1h"\n}\n';
    expect((await v1(server, 'PUT', 'sys/policies/acl/short-wraps', { body: { policy } })).status).toBe(204);
    const created = await v1(server, 'POST', 'auth/token/create', { body: { policies: ['short-wraps'] } });
    const token = created.body.auth.client_token as string;
    const within = await v1(server, 'POST', 'sys/wrapping/wrap', { token, body: { secret: 'x' }, headers: { 'x-vault-wrap-ttl': '30m' } });
    expect(within.status).toBe(200);
    expect(within.body.wrap_info.ttl).toBe(30 * 60);
    const beyond = await v1(server, 'POST', 'sys/wrapping/wrap', {
      token,
      body: { secret: 'x' },
      headers: { 'x-vault-wrap-ttl': '1000000h' },
    });
    expect(beyond.status).toBe(403);
    expect(beyond.body.wrap_info).toBeUndefined();
  });
});
