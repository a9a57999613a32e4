import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { advance, list, putPolicy, TOKEN_DENIED, POLICY_DENIED, v1 } from '../core/client.js';

describe('userpass', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
    await putPolicy(server, 'app', 'path "cubbyhole/*" { capabilities = ["create", "read", "update", "list"] }');
    expect((await v1(server, 'POST', 'sys/auth/userpass', { body: { type: 'userpass', description: 'people' } })).status).toBe(204);
  });
  afterAll(() => server.close());

  const login = (username: string, password: string) =>
    v1(server, 'POST', `auth/userpass/login/${username}`, { token: null, body: { password } });

  it('creates, reads, lists, updates and deletes users; the password never comes back', async () => {
    const created = await v1(server, 'POST', 'auth/userpass/users/Alice', {
      body: { password: 'pw1', token_policies: 'app', token_ttl: '1h', token_max_ttl: '2h', token_num_uses: 0 },
    });
    expect(created.status).toBe(204);
    const read = await v1(server, 'GET', 'auth/userpass/users/alice');
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual({
      token_bound_cidrs: [],
      token_explicit_max_ttl: 0,
      token_max_ttl: 7200,
      token_no_default_policy: false,
      token_num_uses: 0,
      token_period: 0,
      token_policies: ['app'],
      token_ttl: 3600,
      token_type: 'default',
    });
    expect(read.text).not.toContain('pw1');
    expect((await list(server, 'auth/userpass/users')).body.data.keys).toEqual(['alice']);

    // An update without a password keeps it; the legacy `policies` field is reported back.
    expect((await v1(server, 'POST', 'auth/userpass/users/alice', { body: { policies: ['app', 'extra'] } })).status).toBe(204);
    const updated = await v1(server, 'GET', 'auth/userpass/users/alice');
    expect(updated.body.data.policies).toEqual(['app', 'extra']);
    expect(updated.body.data.token_ttl).toBe(3600);
    expect((await login('alice', 'pw1')).status).toBe(200);

    expect((await v1(server, 'DELETE', 'auth/userpass/users/alice')).status).toBe(204);
    expect((await v1(server, 'GET', 'auth/userpass/users/alice')).status).toBe(404);
    expect((await list(server, 'auth/userpass/users')).status).toBe(404);
  });

  it("changes a user's policies on the policies path", async () => {
    await v1(server, 'POST', 'auth/userpass/users/pol', { body: { password: 'pw', token_policies: 'app' } });
    expect((await v1(server, 'POST', 'auth/userpass/users/pol/policies', { body: { token_policies: 'app,ops' } })).status).toBe(204);
    expect((await v1(server, 'GET', 'auth/userpass/users/pol')).body.data.token_policies).toEqual(['app', 'ops']);
    expect((await login('pol', 'pw')).body.auth.policies).toEqual(['app', 'default', 'ops']);
    const both = await v1(server, 'POST', 'auth/userpass/users/pol/policies', { body: { token_policies: 'a', policies: 'b' } });
    expect(both.body.errors).toEqual(['"token_policies" and "policies" cannot both be given']);
    const missing = await v1(server, 'POST', 'auth/userpass/users/ghost/policies', { body: { token_policies: 'a' } });
    expect(missing.body.errors).toEqual(['username does not exist: ghost']);
  });

  it('takes the legacy ttl, max_ttl and bound_cidrs fields', async () => {
    await v1(server, 'POST', 'auth/userpass/users/old', {
      body: { password: 'pw', ttl: '7m', max_ttl: '9m', bound_cidrs: '127.0.0.1/32' },
    });
    const read = await v1(server, 'GET', 'auth/userpass/users/old');
    expect(read.body.data).toMatchObject({ token_ttl: 420, token_max_ttl: 540, token_bound_cidrs: ['127.0.0.1/32'] });
  });

  it('refuses bad user writes with 400s that change nothing', async () => {
    const noPassword = await v1(server, 'POST', 'auth/userpass/users/bob', { body: { token_policies: 'app' } });
    expect(noPassword.status).toBe(400);
    expect(noPassword.body.errors).toEqual(['missing password']);
    const badTtl = await v1(server, 'POST', 'auth/userpass/users/bob', { body: { password: 'x', token_ttl: '2h', token_max_ttl: '1h' } });
    expect(badTtl.body.errors).toEqual(["'token_ttl' cannot be greater than 'token_max_ttl'"]);
    const badDuration = await v1(server, 'POST', 'auth/userpass/users/bob', { body: { password: 'x', token_ttl: 'soon' } });
    expect(badDuration.status).toBe(400);
    const badCidr = await v1(server, 'POST', 'auth/userpass/users/bob', { body: { password: 'x', token_bound_cidrs: '10.0.0.0/99' } });
    expect(badCidr.body.errors).toEqual(['invalid CIDR block "10.0.0.0/99" in token_bound_cidrs']);
    const batch = await v1(server, 'POST', 'auth/userpass/users/bob', { body: { password: 'x', token_type: 'batch' } });
    expect(batch.status).toBe(400);
    expect((await v1(server, 'GET', 'auth/userpass/users/bob')).status).toBe(404);
    const nobody = await v1(server, 'POST', 'auth/userpass/users/nobody/password', { body: { password: 'x' } });
    expect(nobody.body.errors).toEqual(['username does not exist: nobody']);
  });

  it('logs in with the real auth block; the token carries the path, policies and metadata', async () => {
    await v1(server, 'POST', 'auth/userpass/users/carol', {
      body: { password: 'secret', token_policies: 'app', token_ttl: '30m', token_max_ttl: '1h' },
    });
    const reply = await login('Carol', 'secret');
    expect(reply.status).toBe(200);
    expect(reply.body.auth).toMatchObject({
      policies: ['app', 'default'],
      token_policies: ['app', 'default'],
      metadata: { username: 'carol' },
      lease_duration: 1800,
      renewable: true,
      token_type: 'service',
      orphan: true,
    });
    const token = reply.body.auth.client_token as string;
    expect(token).toMatch(/^hvs\./);

    const self = await v1(server, 'GET', 'auth/token/lookup-self', { token });
    expect(self.body.data).toMatchObject({
      path: 'auth/userpass/login/Carol',
      display_name: 'userpass-carol',
      meta: { username: 'carol' },
      policies: ['app', 'default'],
    });
    const byRoot = await v1(server, 'POST', 'auth/token/lookup', { body: { token } });
    expect(byRoot.body.data.accessor).toBe(reply.body.auth.accessor);

    // Allowed by its policy, denied elsewhere.
    expect((await v1(server, 'POST', 'cubbyhole/note', { token, body: { a: '1' } })).status).toBe(204);
    const denied = await v1(server, 'GET', 'sys/policies/acl', { token });
    expect(denied.status).toBe(403);
    expect(denied.body.errors).toEqual(POLICY_DENIED);
  });

  it('refuses a wrong password, an unknown user and a missing password alike', async () => {
    await v1(server, 'POST', 'auth/userpass/users/dave', { body: { password: 'right' } });
    for (const reply of [await login('dave', 'wrong'), await login('nobody', 'right')]) {
      expect(reply.status).toBe(400);
      expect(reply.body.errors).toEqual(['invalid username or password']);
    }
    expect((await login('dave', '')).body.errors).toEqual(['missing password']);
    // The password path changes it.
    expect((await v1(server, 'POST', 'auth/userpass/users/dave/password', { body: { password: 'new' } })).status).toBe(204);
    expect((await login('dave', 'right')).status).toBe(400);
    expect((await login('dave', 'new')).status).toBe(200);
  });

  it('renews within token_max_ttl and expires on the clock', async () => {
    await v1(server, 'POST', 'auth/userpass/users/erin', { body: { password: 'pw', token_ttl: '10m', token_max_ttl: '15m' } });
    const { client_token: token } = (await login('erin', 'pw')).body.auth;
    await advance(server, '8m');
    const renewed = await v1(server, 'POST', 'auth/token/renew-self', { token, body: { increment: '1h' } });
    expect(renewed.status).toBe(200);
    expect(renewed.body.auth.lease_duration).toBeGreaterThanOrEqual(419);
    expect(renewed.body.auth.lease_duration).toBeLessThanOrEqual(420);
    expect(renewed.body.warnings?.[0]).toContain('exceeded the effective max_ttl');
    await advance(server, '8m');
    const gone = await v1(server, 'GET', 'auth/token/lookup-self', { token });
    expect(gone.status).toBe(403);
    expect(gone.body.errors).toEqual(TOKEN_DENIED);
  });

  it("renews within the user's current limits, and not once the user or its policies change", async () => {
    await v1(server, 'POST', 'auth/userpass/users/hal', {
      body: { password: 'pw', token_policies: 'app', token_ttl: '10m', token_max_ttl: '1h' },
    });
    const { client_token: token } = (await login('hal', 'pw')).body.auth;
    // A lower token_max_ttl applies to tokens already out, at their next renewal.
    await v1(server, 'POST', 'auth/userpass/users/hal', { body: { token_max_ttl: '20m', token_ttl: '5m' } });
    await advance(server, '1m');
    const renewed = await v1(server, 'POST', 'auth/token/renew-self', { token });
    expect(renewed.body.auth.lease_duration).toBe(300);
    const capped = await v1(server, 'POST', 'auth/token/renew-self', { token, body: { increment: '1h' } });
    expect(capped.body.auth.lease_duration).toBeGreaterThanOrEqual(1138);
    expect(capped.body.auth.lease_duration).toBeLessThanOrEqual(1140);

    await v1(server, 'POST', 'auth/userpass/users/hal', { body: { token_policies: 'app,more' } });
    const changed = await v1(server, 'POST', 'auth/token/renew-self', { token });
    expect(changed.status).toBe(400);
    expect(changed.body.errors).toEqual(['policies have changed, not renewing']);
    await v1(server, 'DELETE', 'auth/userpass/users/hal');
    const gone = await v1(server, 'POST', 'auth/token/renew', { body: { token } });
    expect(gone.body.errors).toEqual(['user no longer exists, not renewing']);
  });

  it('caps token TTLs at the mount max_lease_ttl after a tune', async () => {
    await v1(server, 'POST', 'sys/auth/capped', { body: { type: 'userpass', config: { default_lease_ttl: '5m', max_lease_ttl: '20m' } } });
    await v1(server, 'POST', 'auth/capped/users/fay', { body: { password: 'pw', token_max_ttl: '10h' } });
    const first = await v1(server, 'POST', 'auth/capped/login/fay', { token: null, body: { password: 'pw' } });
    expect(first.body.auth.lease_duration).toBe(300);
    await v1(server, 'POST', 'auth/capped/users/fay', { body: { token_ttl: '2h' } });
    const capped = await v1(server, 'POST', 'auth/capped/login/fay', { token: null, body: { password: 'pw' } });
    expect(capped.body.auth.lease_duration).toBe(1200);
    const self = await v1(server, 'GET', 'auth/token/lookup-self', { token: capped.body.auth.client_token });
    expect(self.body.data.path).toBe('auth/capped/login/fay');
  });

  it('binds logins and tokens to token_bound_cidrs', async () => {
    await v1(server, 'POST', 'auth/userpass/users/gus', { body: { password: 'pw', token_bound_cidrs: '10.1.0.0/16' } });
    const refused = await login('gus', 'pw');
    expect(refused.status).toBe(403);
    await v1(server, 'POST', 'auth/userpass/users/gus', { body: { token_bound_cidrs: '127.0.0.0/8,::1' } });
    const allowed = await login('gus', 'pw');
    expect(allowed.status).toBe(200);
    const self = await v1(server, 'GET', 'auth/token/lookup-self', { token: allowed.body.auth.client_token });
    expect(self.body.data.bound_cidrs).toEqual(['127.0.0.0/8', '::1']);
  });
});
