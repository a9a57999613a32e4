import vault from 'node-vault';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_TOKEN, startServer, type TestServer } from '../helpers/app.js';

/** node-vault against the auth methods: enable them, log in, and use the token under a policy. */
describe('a real client: node-vault with userpass and approle', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  const client = (token?: string) => vault({ endpoint: server.baseUrl, ...(token ? { token } : {}) });
  const POLICY = 'path "cubbyhole/*" { capabilities = ["create", "read", "list"] }\npath "sys/policies/acl/*" { capabilities = ["deny"] }';

  it('enables userpass, logs in, and is allowed and denied by its policy', async () => {
    const root = client(ROOT_TOKEN);
    await root.addPolicy({ name: 'reader', rules: POLICY });
    await root.enableAuth({ mount_point: 'userpass', type: 'userpass', description: 'people' });
    expect(Object.keys(await root.auths())).toEqual(expect.arrayContaining(['userpass/', 'token/']));
    await root.write('auth/userpass/users/nina', { password: 'pw', token_policies: 'reader', token_ttl: '1h' });

    const app = client();
    const login = await app.userpassLogin({ username: 'nina', password: 'pw' });
    expect(login.auth).toMatchObject({
      policies: ['default', 'reader'],
      metadata: { username: 'nina' },
      lease_duration: 3600,
      renewable: true,
    });
    // userpassLogin makes the client adopt the new token.
    expect(app.token).toBe(login.auth.client_token);
    await app.write('cubbyhole/n', { v: '1' });
    expect((await app.read('cubbyhole/n')).data).toEqual({ v: '1' });
    await expect(app.read('sys/policies/acl/reader')).rejects.toMatchObject({ response: { statusCode: 403 } });
    expect((await app.tokenLookupSelf()).data).toMatchObject({ path: 'auth/userpass/login/nina', display_name: 'userpass-nina' });

    await expect(client().userpassLogin({ username: 'nina', password: 'bad' })).rejects.toMatchObject({
      response: { statusCode: 400, body: { errors: ['invalid username or password'] } },
    });
  });

  it('manages approle roles and secret IDs, logs in, and loses the token when the method is disabled', async () => {
    const root = client(ROOT_TOKEN);
    await root.enableAuth({ mount_point: 'approle', type: 'approle' });
    // node-vault sends only the fields it knows: the legacy `policies`, which lands in token_policies.
    await root.addApproleRole({ role_name: 'svc', policies: 'reader', secret_id_num_uses: 3 });
    expect((await root.approleRoles()).data.keys).toEqual(['svc']);
    expect((await root.getApproleRole({ role_name: 'svc' })).data).toMatchObject({
      token_policies: ['reader'],
      policies: ['reader'],
      secret_id_num_uses: 3,
    });
    const roleId = (await root.getApproleRoleId({ role_name: 'svc' })).data.role_id as string;
    const secret = (await root.getApproleRoleSecret({ role_name: 'svc', metadata: '{"env":"ci"}' })).data;
    // node-vault lists with the LIST method.
    expect((await root.approleSecretAccessors({ role_name: 'svc' })).data.keys).toEqual([secret.secret_id_accessor]);
    expect((await root.approleSecretLookup({ role_name: 'svc', secret_id: secret.secret_id })).data).toMatchObject({
      metadata: { env: 'ci' },
      secret_id_num_uses: 3,
    });
    expect(
      (await root.approleSecretAccessorLookup({ role_name: 'svc', secret_id_accessor: secret.secret_id_accessor })).data.secret_id_num_uses,
    ).toBe(3);

    const app = client();
    const login = await app.approleLogin({ role_id: roleId, secret_id: secret.secret_id });
    expect(login.auth.metadata).toEqual({ env: 'ci', role_name: 'svc' });
    await app.write('cubbyhole/svc', { ok: 'yes' });
    await expect(app.read('sys/policies/acl/default')).rejects.toMatchObject({ response: { statusCode: 403 } });

    await root.disableAuth({ mount_point: 'approle' });
    await expect(app.tokenLookupSelf()).rejects.toMatchObject({ response: { statusCode: 403 } });
  });
});
