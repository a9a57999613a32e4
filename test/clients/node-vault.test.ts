import vault from 'node-vault';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_TOKEN, startServer, type TestServer } from '../helpers/app.js';

/**
 * node-vault, a real client of the secrets API from npm. Its `list` sends the HTTP method LIST
 * (Node's own HTTP parser refuses it), so this also proves the socket layer with a client that
 * does not know it is talking to a stand-in.
 */
describe('a real client: node-vault', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  const client = (token: string, options: { noCustomHTTPVerbs?: boolean } = {}) =>
    vault({ endpoint: server.baseUrl, token, noCustomHTTPVerbs: options.noCustomHTTPVerbs ?? false });

  it('reads health and seal status', async () => {
    const root = client(ROOT_TOKEN);
    expect(await root.health()).toMatchObject({ initialized: true, sealed: false, standby: false });
    expect(await root.status()).toMatchObject({ initialized: true, sealed: false });
  });

  it('creates a policy and a token, stores and lists cubbyhole secrets with LIST, and loses them on revoke', async () => {
    const root = client(ROOT_TOKEN);
    await root.addPolicy({ name: 'app', rules: 'path "cubbyhole/*" { capabilities = ["create", "read", "update", "delete", "list"] }' });
    expect((await root.policies()).policies).toContain('app');

    // tokenCreate makes node-vault adopt the new token, so it gets a client of its own.
    const created = await client(ROOT_TOKEN).tokenCreate({ policies: ['app'], ttl: '1h', display_name: 'app' });
    const token = created.auth.client_token as string;
    expect(created.auth.policies).toEqual(['app', 'default']);
    expect(created.auth.lease_duration).toBe(3600);

    const app = client(token);
    await app.write('cubbyhole/app/config', { user: 'svc', port: '5432' });
    await app.write('cubbyhole/app/nested/deeper', { x: '1' });
    expect((await app.read('cubbyhole/app/config')).data).toEqual({ user: 'svc', port: '5432' });
    expect((await app.list('cubbyhole/app')).data.keys).toEqual(['config', 'nested/']);
    expect((await client(token, { noCustomHTTPVerbs: true }).list('cubbyhole/app')).data.keys).toEqual(['config', 'nested/']);

    const self = await app.tokenLookupSelf();
    expect(self.data).toMatchObject({ display_name: 'token-app', policies: ['app', 'default'], creation_ttl: 3600 });
    // `ttl` is what remains, and the clock follows real time.
    expect(self.data.ttl).toBeGreaterThanOrEqual(3598);
    expect(self.data.ttl).toBeLessThanOrEqual(3600);

    // Root cannot see another token's cubbyhole.
    await expect(root.read('cubbyhole/app/config')).rejects.toMatchObject({ response: { statusCode: 404 } });

    await app.tokenRevokeSelf();
    await expect(app.read('cubbyhole/app/config')).rejects.toThrow('permission denied');
  });

  it('is refused by policy with the error text real clients see', async () => {
    const created = await client(ROOT_TOKEN).tokenCreate({ policies: ['default'] });
    const limited = client(created.auth.client_token as string);
    await expect(limited.write('sys/policies/acl/evil', { policy: 'path "*" { capabilities = ["sudo"] }' })).rejects.toMatchObject({
      response: { statusCode: 403 },
      message: '1 error occurred:\n\t* permission denied\n\n',
    });
  });
  it('reads a secret wrapped, unwraps it once, and manages token roles', async () => {
    const root = client(ROOT_TOKEN);
    await root.write('secret/data/nv-wrapped', { data: { key: 'value' } });
    const wrapped = await root.read('secret/data/nv-wrapped', { headers: { 'X-Vault-Wrap-TTL': '90s' } });
    expect(wrapped.data).toBeNull();
    expect(wrapped.wrap_info).toMatchObject({ ttl: 90, creation_path: 'secret/data/nv-wrapped' });
    const unwrapped = await root.unwrap({ token: wrapped.wrap_info.token });
    expect(unwrapped.data.data).toEqual({ key: 'value' });
    await expect(root.unwrap({ token: wrapped.wrap_info.token })).rejects.toThrow('wrapping token is not valid or does not exist');

    await root.addTokenRole({ role_name: 'nv-role', allowed_policies: 'default', orphan: true });
    expect((await root.tokenRoles()).data.keys).toEqual(['nv-role']);
    expect((await root.getTokenRole({ role_name: 'nv-role' })).data).toMatchObject({ allowed_policies: ['default'], orphan: true });
    await root.removeTokenRole({ role_name: 'nv-role' });
    await expect(root.getTokenRole({ role_name: 'nv-role' })).rejects.toThrow();
  });
});
