import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { createToken, list, putPolicy, v1 } from '../core/client.js';

/** `auth/token/roles/:role_name` and `auth/token/create/:role_name` over HTTP. */
describe('token roles', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
    for (const name of ['app', 'app-extra', 'ops', 'secret-admin'])
      await putPolicy(server, name, 'path "secret/*" { capabilities = ["read"] }');
    await putPolicy(server, 'creator', 'path "auth/token/create/*" { capabilities = ["update"] }');
  });
  afterAll(() => server.close());

  const writeRole = (name: string, body: Record<string, unknown>) => v1(server, 'POST', `auth/token/roles/${name}`, { body });
  const createWith = (role: string, body: Record<string, unknown> = {}, token?: string) =>
    v1(server, 'POST', `auth/token/create/${role}`, { body, token });

  it('creates, reads with every field, lists and deletes roles', async () => {
    expect(await list(server, 'auth/token/roles')).toMatchObject({ status: 404 });
    expect((await writeRole('web', { allowed_policies: 'App,ops', orphan: true, period: '1h', path_suffix: 'rev1' })).status).toBe(204);
    const read = await v1(server, 'GET', 'auth/token/roles/web');
    expect(read.body.data).toEqual({
      name: 'web',
      allowed_policies: ['app', 'ops'],
      disallowed_policies: [],
      allowed_policies_glob: [],
      disallowed_policies_glob: [],
      orphan: true,
      renewable: true,
      path_suffix: 'rev1',
      period: 3600,
      token_period: 3600,
      explicit_max_ttl: 0,
      token_explicit_max_ttl: 0,
      token_type: 'default-service',
      allowed_entity_aliases: null,
      token_no_default_policy: false,
    });
    // An update keeps what it does not name.
    expect((await writeRole('web', { renewable: false })).status).toBe(204);
    expect((await v1(server, 'GET', 'auth/token/roles/web')).body.data).toMatchObject({ renewable: false, orphan: true, period: 3600 });
    expect((await list(server, 'auth/token/roles')).body.data.keys).toEqual(['web']);
    expect((await v1(server, 'DELETE', 'auth/token/roles/web')).status).toBe(204);
    expect((await v1(server, 'GET', 'auth/token/roles/web')).status).toBe(404);
  });

  it('refuses bad role fields with the real texts, storing nothing', async () => {
    expect(await writeRole('bad', { path_suffix: 'a b' })).toMatchObject({
      status: 400,
      body: { errors: ['given role path suffix contains invalid characters; must match \\w[\\w-.]+\\w'] },
    });
    expect(await writeRole('bad', { path_suffix: 'a..b' })).toMatchObject({
      status: 400,
      body: { errors: ['error registering path suffix: path cannot contain parent references'] },
    });
    expect(await writeRole('bad', { token_type: 'weird' })).toMatchObject({
      status: 400,
      body: { errors: ['invalid \'token_type\' value "weird"'] },
    });
    expect((await writeRole('bad', { token_type: 'batch' })).status).toBe(400);
    expect(await writeRole('bad', { token_bound_cidrs: ['nope'] })).toMatchObject({ status: 400 });
    expect((await v1(server, 'GET', 'auth/token/roles/bad')).status).toBe(404);
    const both = await writeRole('both', { period: '1h', token_period: '2h' });
    expect(both.body.warnings).toEqual(["Both 'token_period' and deprecated 'period' value supplied, ignoring the deprecated value"]);
    expect((await v1(server, 'GET', 'auth/token/roles/both')).body.data).toMatchObject({ period: 0, token_period: 7200 });
  });

  it('creates tokens with the allowed policies, beyond what the parent holds', async () => {
    await writeRole('allowed', { allowed_policies: ['app', 'ops'] });
    const parent = (await createToken(server, { policies: ['app', 'creator'] })).client_token;
    const byDefault = await createWith('allowed', {}, parent);
    expect(byDefault.status, byDefault.text).toBe(200);
    expect(byDefault.body.auth.policies).toEqual(['app', 'default', 'ops']);
    expect((await createWith('allowed', { policies: ['ops'] }, parent)).body.auth.policies).toEqual(['default', 'ops']);
    const outside = await createWith('allowed', { policies: ['secret-admin'] }, parent);
    expect(outside).toMatchObject({
      status: 400,
      body: {
        errors: [
          'token policies (["default" "secret-admin"]) must be subset of the role\'s allowed policies ' +
            '(["app" "default" "ops"]) or glob policies ([])',
        ],
      },
    });
  });

  it('applies globs and disallowed policies', async () => {
    await writeRole('globbed', { allowed_policies_glob: ['app*'], disallowed_policies: ['app-extra'] });
    expect((await createWith('globbed', { policies: ['app'] })).body.auth.policies).toEqual(['app', 'default']);
    expect(await createWith('globbed', { policies: ['app-extra'] })).toMatchObject({
      status: 400,
      body: { errors: ['token policy "app-extra" is disallowed by this role'] },
    });
    await writeRole('no-default', { disallowed_policies: ['default'] });
    expect((await createWith('no-default', { policies: ['ops'] })).body.auth.policies).toEqual(['ops']);
  });

  it('makes orphans, non-renewable and periodic tokens, bounded and suffixed as the role says', async () => {
    await writeRole('shaped', {
      orphan: true,
      renewable: false,
      token_period: '30m',
      token_explicit_max_ttl: '2h',
      path_suffix: 'rev2',
      token_num_uses: 3,
    });
    const parent = (await createToken(server, { policies: ['app', 'creator'] })).client_token;
    const created = await createWith('shaped', { explicit_max_ttl: '1h', num_uses: 5 }, parent);
    expect(created.status, created.text).toBe(200);
    expect(created.body.auth).toMatchObject({ orphan: true, renewable: false, lease_duration: 1800, num_uses: 3 });
    expect(created.body.warnings).toEqual([
      'Explicit max TTL specified both during creation call and in role; using the lesser value of 3600 seconds',
    ]);
    const lookup = await v1(server, 'POST', 'auth/token/lookup', { body: { token: created.body.auth.client_token } });
    expect(lookup.body.data).toMatchObject({
      path: 'auth/token/create/shaped/rev2',
      role: 'shaped',
      period: 1800,
      explicit_max_ttl: 3600,
      orphan: true,
    });
    // Revoking the parent leaves the role's orphan alive.
    await v1(server, 'POST', 'auth/token/revoke', { body: { token: parent } });
    expect((await v1(server, 'GET', 'auth/token/lookup-self', { token: created.body.auth.client_token })).status).toBe(200);
  });

  it("renews a role's tokens with the role as it is now, and not once it is gone", async () => {
    await writeRole('periodic', { token_period: '1h' });
    const token = (await createWith('periodic')).body.auth.client_token as string;
    await writeRole('periodic', { token_period: '2h' });
    expect((await v1(server, 'POST', 'auth/token/renew-self', { token })).body.auth.lease_duration).toBe(7200);
    await v1(server, 'DELETE', 'auth/token/roles/periodic');
    expect(await v1(server, 'POST', 'auth/token/renew-self', { token })).toMatchObject({
      status: 400,
      body: { errors: ['original token role "periodic" could not be found, not renewing'] },
    });
  });

  it('checks entity aliases against the role, and refuses unknown roles', async () => {
    await writeRole('aliased', { allowed_entity_aliases: ['svc-*'] });
    expect((await createWith('aliased', { entity_alias: 'SVC-web' })).status).toBe(200);
    expect(await createWith('aliased', { entity_alias: 'other' })).toMatchObject({
      status: 400,
      body: { errors: ["invalid 'entity_alias' value"] },
    });
    expect(await v1(server, 'POST', 'auth/token/create', { body: { entity_alias: 'svc-web' } })).toMatchObject({
      status: 400,
      body: { errors: ["'entity_alias' is only allowed in combination with token role"] },
    });
    expect(await createWith('missing')).toMatchObject({ status: 400, body: { errors: ['unknown role missing'] } });
  });
});
