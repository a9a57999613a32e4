import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { advance, list, putPolicy, v1 } from '../core/client.js';

describe('approle', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
    await putPolicy(server, 'worker', 'path "cubbyhole/*" { capabilities = ["create", "read"] }');
    expect((await v1(server, 'POST', 'sys/auth/approle', { body: { type: 'approle' } })).status).toBe(204);
  });
  afterAll(() => server.close());

  const role = (name: string, body: Record<string, unknown>) => v1(server, 'POST', `auth/approle/role/${name}`, { body });
  const roleId = async (name: string) => (await v1(server, 'GET', `auth/approle/role/${name}/role-id`)).body.data.role_id as string;
  const secretId = async (name: string, body: Record<string, unknown> = {}) => {
    const reply = await v1(server, 'POST', `auth/approle/role/${name}/secret-id`, { body });
    if (reply.status !== 200) throw new Error(`secret-id: ${reply.status} ${reply.text}`);
    return reply.body.data as { secret_id: string; secret_id_accessor: string; secret_id_ttl: number; secret_id_num_uses: number };
  };
  const login = (body: Record<string, unknown>) => v1(server, 'POST', 'auth/approle/login', { token: null, body });

  it('creates, reads, lists and deletes roles with the real fields', async () => {
    expect((await role('Web', { token_policies: 'worker', token_ttl: '20m', token_max_ttl: '30m', secret_id_ttl: '10m' })).status).toBe(
      204,
    );
    const read = await v1(server, 'GET', 'auth/approle/role/web');
    expect(read.body.data).toEqual({
      bind_secret_id: true,
      local_secret_ids: false,
      secret_id_bound_cidrs: [],
      secret_id_num_uses: 0,
      secret_id_ttl: 600,
      token_bound_cidrs: [],
      token_explicit_max_ttl: 0,
      token_max_ttl: 1800,
      token_no_default_policy: false,
      token_num_uses: 0,
      token_period: 0,
      token_policies: ['worker'],
      token_ttl: 1200,
      token_type: 'default',
    });
    expect((await list(server, 'auth/approle/role')).body.data.keys).toEqual(['web']);
    expect(await roleId('web')).toMatch(/^[0-9a-f-]{36}$/);

    await role('gone', { token_policies: 'worker' });
    const { secret_id: secret } = await secretId('gone');
    const id = await roleId('gone');
    expect((await v1(server, 'DELETE', 'auth/approle/role/gone')).status).toBe(204);
    expect((await v1(server, 'GET', 'auth/approle/role/gone')).status).toBe(404);
    expect((await login({ role_id: id, secret_id: secret })).body.errors).toEqual(['invalid role or secret ID']);
  });

  it('refuses bad role writes', async () => {
    expect((await role('loose', { bind_secret_id: false })).body.errors).toEqual(['at least one constraint should be enabled on the role']);
    expect((await role('neg', { secret_id_num_uses: -1 })).body.errors).toEqual(['secret_id_num_uses cannot be negative']);
    expect((await role('cidr', { secret_id_bound_cidrs: 'nonsense' })).body.errors).toEqual([
      'invalid CIDR block "nonsense" in secret_id_bound_cidrs',
    ]);
    expect((await role('num', { token_num_uses: 'many' })).status).toBe(400);
    for (const name of ['loose', 'neg', 'cidr', 'num']) expect((await v1(server, 'GET', `auth/approle/role/${name}`)).status).toBe(404);
    const missing = await v1(server, 'POST', 'auth/approle/role/ghost/secret-id', { body: {} });
    expect(missing.status).toBe(404);
    expect(missing.body.errors).toEqual(['role "ghost" does not exist']);
    expect((await v1(server, 'GET', 'auth/approle/role/ghost/role-id')).status).toBe(404);
  });

  it('sets a custom role ID, refusing one another role has', async () => {
    await role('one', { token_policies: 'worker', role_id: 'fixed-one' });
    await role('two', { token_policies: 'worker' });
    expect(await roleId('one')).toBe('fixed-one');
    const clash = await v1(server, 'POST', 'auth/approle/role/two/role-id', { body: { role_id: 'fixed-one' } });
    expect(clash.body.errors).toEqual(['role_id already in use']);
    expect((await v1(server, 'POST', 'auth/approle/role/two/role-id', { body: { role_id: 'fixed-two' } })).status).toBe(204);
    expect(await roleId('two')).toBe('fixed-two');
    expect((await v1(server, 'POST', 'auth/approle/role/two/role-id', { body: {} })).body.errors).toEqual(['missing role_id']);
  });

  it('logs in with role ID and secret ID; the token carries the role and secret ID metadata', async () => {
    await role('app', { token_policies: 'worker', token_ttl: '20m', token_max_ttl: '30m' });
    const secret = await secretId('app', { metadata: JSON.stringify({ host: 'ci-1' }) });
    expect(secret).toMatchObject({ secret_id_ttl: 0, secret_id_num_uses: 0 });
    const reply = await login({ role_id: await roleId('app'), secret_id: secret.secret_id });
    expect(reply.status).toBe(200);
    expect(reply.body.auth).toMatchObject({
      policies: ['default', 'worker'],
      metadata: { host: 'ci-1', role_name: 'app' },
      lease_duration: 1200,
      renewable: true,
    });
    const token = reply.body.auth.client_token as string;
    const self = await v1(server, 'GET', 'auth/token/lookup-self', { token });
    expect(self.body.data).toMatchObject({ path: 'auth/approle/login', display_name: 'approle', meta: { host: 'ci-1', role_name: 'app' } });
    expect((await v1(server, 'POST', 'cubbyhole/x', { token, body: { a: 1 } })).status).toBe(204);
    expect((await v1(server, 'GET', 'sys/mounts', { token })).status).toBe(403);

    expect((await login({ role_id: await roleId('app'), secret_id: 'wrong' })).body.errors).toEqual(['invalid role or secret ID']);
    expect((await login({ role_id: 'wrong', secret_id: secret.secret_id })).body.errors).toEqual(['invalid role or secret ID']);
    expect((await login({ secret_id: secret.secret_id })).body.errors).toEqual(['missing role_id']);
    expect((await login({ role_id: await roleId('app') })).body.errors).toEqual(['missing secret_id']);
  });

  it('sees a role change and a new role ID at the next login', async () => {
    await role('changing', { token_policies: 'worker', token_ttl: '20m' });
    const first = await secretId('changing');
    const oldRoleId = await roleId('changing');
    expect((await login({ role_id: oldRoleId, secret_id: first.secret_id })).body.auth).toMatchObject({ lease_duration: 1200 });
    await role('changing', { token_ttl: '5m' });
    const changed = await login({ role_id: oldRoleId, secret_id: first.secret_id });
    expect(changed.body.auth).toMatchObject({ lease_duration: 300, policies: ['default', 'worker'] });
    expect((await v1(server, 'POST', 'auth/approle/role/changing/role-id', { body: { role_id: 'changed-id' } })).status).toBe(204);
    expect((await login({ role_id: oldRoleId, secret_id: first.secret_id })).body.errors).toEqual(['invalid role or secret ID']);
    expect((await login({ role_id: 'changed-id', secret_id: first.secret_id })).status).toBe(200);
  });

  it('looks up, lists and destroys secret IDs by value and by accessor', async () => {
    await role('ops', { token_policies: 'worker', secret_id_num_uses: 5 });
    const first = await secretId('ops', { metadata: { team: 'ops' } });
    const second = await secretId('ops', { num_uses: 2 });
    expect(first.secret_id_num_uses).toBe(5);
    const keys = (await list(server, 'auth/approle/role/ops/secret-id')).body.data.keys;
    expect(keys).toEqual([first.secret_id_accessor, second.secret_id_accessor].sort());

    const lookup = await v1(server, 'POST', 'auth/approle/role/ops/secret-id/lookup', { body: { secret_id: first.secret_id } });
    expect(lookup.body.data).toMatchObject({
      metadata: { team: 'ops' },
      secret_id_accessor: first.secret_id_accessor,
      secret_id_num_uses: 5,
      secret_id_ttl: 0,
      cidr_list: [],
    });
    expect(lookup.body.data.expiration_time).toBe('0001-01-01T00:00:00Z');
    expect(lookup.text).not.toContain(first.secret_id);
    const byAccessor = await v1(server, 'POST', 'auth/approle/role/ops/secret-id-accessor/lookup', {
      body: { secret_id_accessor: second.secret_id_accessor },
    });
    expect(byAccessor.body.data.secret_id_num_uses).toBe(2);

    expect((await v1(server, 'POST', 'auth/approle/role/ops/secret-id/destroy', { body: { secret_id: first.secret_id } })).status).toBe(
      204,
    );
    expect((await v1(server, 'POST', 'auth/approle/role/ops/secret-id/lookup', { body: { secret_id: first.secret_id } })).status).toBe(204);
    expect(
      (
        await v1(server, 'POST', 'auth/approle/role/ops/secret-id-accessor/destroy', {
          body: { secret_id_accessor: second.secret_id_accessor },
        })
      ).status,
    ).toBe(204);
    const missing = await v1(server, 'POST', 'auth/approle/role/ops/secret-id-accessor/lookup', {
      body: { secret_id_accessor: second.secret_id_accessor },
    });
    expect(missing.status).toBe(404);
    expect(missing.body.errors).toEqual([`failed to find accessor entry for secret_id_accessor: "${second.secret_id_accessor}"`]);
    expect((await list(server, 'auth/approle/role/ops/secret-id')).status).toBe(404);

    const tooMany = await v1(server, 'POST', 'auth/approle/role/ops/secret-id', { body: { num_uses: 6 } });
    expect(tooMany.body.errors).toEqual(["num_uses cannot be higher than the role's secret_id_num_uses"]);
    const badMeta = await v1(server, 'POST', 'auth/approle/role/ops/secret-id', { body: { metadata: '{not json' } });
    expect(badMeta.status).toBe(400);
  });

  it('issues tokens with token_num_uses, revoked after their last use', async () => {
    await role('limited', { token_policies: 'worker', token_num_uses: 2 });
    const secret = await secretId('limited');
    const reply = await login({ role_id: await roleId('limited'), secret_id: secret.secret_id });
    expect(reply.body.auth.num_uses).toBe(2);
    const token = reply.body.auth.client_token as string;
    expect((await v1(server, 'GET', 'auth/token/lookup-self', { token })).body.data.num_uses).toBe(1);
    expect((await v1(server, 'GET', 'auth/token/lookup-self', { token })).status).toBe(200);
    expect((await v1(server, 'GET', 'auth/token/lookup-self', { token })).status).toBe(403);
    // DELETE works on the destroy paths as well as POST (its fields travel in the query).
    const other = await secretId('limited');
    const destroyed = await v1(server, 'DELETE', `auth/approle/role/limited/secret-id/destroy?secret_id=${other.secret_id}`);
    expect(destroyed.status).toBe(204);
    const lookup = await v1(server, 'POST', 'auth/approle/role/limited/secret-id/lookup', { body: { secret_id: other.secret_id } });
    expect(lookup.status).toBe(204);
    expect((await v1(server, 'POST', 'auth/approle/role/limited/secret-id/destroy', { body: {} })).body.errors).toEqual([
      'missing secret_id',
    ]);
  });

  it('registers custom secret IDs once', async () => {
    await role('custom', { token_policies: 'worker' });
    const first = await v1(server, 'POST', 'auth/approle/role/custom/custom-secret-id', { body: { secret_id: 'my-secret' } });
    expect(first.body.data.secret_id).toBe('my-secret');
    const again = await v1(server, 'POST', 'auth/approle/role/custom/custom-secret-id', { body: { secret_id: 'my-secret' } });
    expect(again.body.errors).toEqual(['SecretID is already registered']);
    expect((await login({ role_id: await roleId('custom'), secret_id: 'my-secret' })).status).toBe(200);
    expect((await v1(server, 'POST', 'auth/approle/role/custom/custom-secret-id', { body: {} })).body.errors).toEqual([
      'missing secret_id',
    ]);
  });

  it('counts secret ID uses and expires secret IDs and tokens on the clock', async () => {
    await role('timed', { token_policies: 'worker', secret_id_ttl: '10m', secret_id_num_uses: 2, token_ttl: '5m' });
    const id = await roleId('timed');
    const counted = await secretId('timed');
    expect((await login({ role_id: id, secret_id: counted.secret_id })).status).toBe(200);
    const left = await v1(server, 'POST', 'auth/approle/role/timed/secret-id/lookup', { body: { secret_id: counted.secret_id } });
    expect(left.body.data.secret_id_num_uses).toBe(1);
    expect((await login({ role_id: id, secret_id: counted.secret_id })).status).toBe(200);
    expect((await login({ role_id: id, secret_id: counted.secret_id })).body.errors).toEqual(['invalid role or secret ID']);

    const timed = await secretId('timed');
    const token = (await login({ role_id: id, secret_id: timed.secret_id })).body.auth.client_token as string;
    await advance(server, '6m');
    expect((await v1(server, 'GET', 'auth/token/lookup-self', { token })).status).toBe(403);
    expect((await v1(server, 'POST', 'auth/approle/role/timed/secret-id/lookup', { body: { secret_id: timed.secret_id } })).status).toBe(
      200,
    );
    await advance(server, '5m');
    expect((await v1(server, 'POST', 'auth/approle/role/timed/secret-id/lookup', { body: { secret_id: timed.secret_id } })).status).toBe(
      204,
    );
    expect((await login({ role_id: id, secret_id: timed.secret_id })).body.errors).toEqual(['invalid role or secret ID']);
    const longer = await v1(server, 'POST', 'auth/approle/role/timed/secret-id', { body: { ttl: '1h' } });
    expect(longer.body.errors).toEqual(["ttl cannot be longer than the role's secret_id_ttl"]);
  });

  it("renews within the role's token_max_ttl, and not once the role is gone", async () => {
    await role('renewing', { token_policies: 'worker', token_ttl: '10m', token_max_ttl: '15m' });
    const secret = await secretId('renewing');
    const { client_token: token } = (await login({ role_id: await roleId('renewing'), secret_id: secret.secret_id })).body.auth;
    await advance(server, '9m');
    const renewed = await v1(server, 'POST', 'auth/token/renew-self', { token, body: { increment: '1h' } });
    expect(renewed.status).toBe(200);
    expect(renewed.body.auth.lease_duration).toBeGreaterThanOrEqual(359);
    expect(renewed.body.auth.lease_duration).toBeLessThanOrEqual(360);
    await v1(server, 'DELETE', 'auth/approle/role/renewing');
    const refused = await v1(server, 'POST', 'auth/token/renew-self', { token });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual(['role "renewing" does not exist during renewal']);
  });

  it('checks CIDR bindings against the client address', async () => {
    await role('fenced', { token_policies: 'worker', secret_id_bound_cidrs: '10.0.0.0/8' });
    const fenced = await secretId('fenced');
    const refused = await login({ role_id: await roleId('fenced'), secret_id: fenced.secret_id });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]).toMatch(/^source address ".*" unauthorized by CIDR restrictions on the role$/);
    const outside = await v1(server, 'POST', 'auth/approle/role/fenced/secret-id', { body: { cidr_list: '192.168.0.0/16' } });
    expect(outside.status).toBe(400);

    await role('local', {
      token_policies: 'worker',
      secret_id_bound_cidrs: '127.0.0.0/8,::1/128',
      token_bound_cidrs: '10.9.9.9/32',
      bind_secret_id: false,
    });
    const noSecret = await login({ role_id: await roleId('local') });
    expect(noSecret.status).toBe(200);
    // The token is bound to an address this client does not have, so it is no token here.
    expect((await v1(server, 'GET', 'auth/token/lookup-self', { token: noSecret.body.auth.client_token })).status).toBe(403);
  });

  it('revokes every token a method issued when it is disabled', async () => {
    await v1(server, 'POST', 'sys/auth/second', { body: { type: 'approle' } });
    await putPolicy(server, 'spawn', 'path "auth/token/create" { capabilities = ["update"] }');
    await v1(server, 'POST', 'auth/second/role/r', { body: { token_policies: 'worker,spawn' } });
    const id = (await v1(server, 'GET', 'auth/second/role/r/role-id')).body.data.role_id as string;
    const secret = (await v1(server, 'POST', 'auth/second/role/r/secret-id', { body: {} })).body.data.secret_id as string;
    const token = (await v1(server, 'POST', 'auth/second/login', { token: null, body: { role_id: id, secret_id: secret } })).body.auth
      .client_token as string;
    const child = await v1(server, 'POST', 'auth/token/create', { token, body: { policies: 'worker' } });
    expect(child.status).toBe(200);
    expect((await v1(server, 'DELETE', 'sys/auth/second')).status).toBe(204);
    expect((await v1(server, 'GET', 'auth/token/lookup-self', { token })).status).toBe(403);
    expect((await v1(server, 'GET', 'auth/token/lookup-self', { token: child.body.auth.client_token })).status).toBe(403);
    expect((await v1(server, 'GET', 'auth/second/role/r')).status).toBe(404);
  });
});
