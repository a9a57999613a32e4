import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { createToken, list, POLICY_DENIED, putPolicy, TOKEN_DENIED, v1 } from './client.js';

describe('ACL policies over HTTP', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('lists the built-ins on a fresh server', async () => {
    const legacy = await v1(server, 'GET', 'sys/policy');
    expect(legacy.status).toBe(200);
    expect(legacy.body).toMatchObject({ keys: ['default', 'root'], policies: ['default', 'root'], data: { keys: ['default', 'root'] } });
    const modern = await list(server, 'sys/policies/acl');
    expect(modern.body.data).toEqual({ keys: ['default', 'root'] });
  });

  it('writes, reads and deletes through sys/policies/acl', async () => {
    const text = 'path "cubbyhole/*" { capabilities = ["read"] }';
    expect((await v1(server, 'PUT', 'sys/policies/acl/Reader', { body: { policy: text } })).status).toBe(204);
    const read = await v1(server, 'GET', 'sys/policies/acl/reader');
    expect(read.body.data).toEqual({ name: 'reader', policy: text });
    expect(read.body.name).toBeUndefined();
    expect((await list(server, 'sys/policies/acl')).body.data.keys).toEqual(['default', 'reader', 'root']);
    expect((await v1(server, 'DELETE', 'sys/policies/acl/reader')).status).toBe(204);
    expect((await v1(server, 'GET', 'sys/policies/acl/reader')).status).toBe(404);
  });

  it('speaks the legacy sys/policy form: rules, copied to the top level', async () => {
    const text = 'path "secret/*" { policy = "read" }';
    expect((await v1(server, 'PUT', 'sys/policy/legacy', { body: { rules: text } })).body.warnings).toEqual([
      "'rules' is deprecated, please use 'policy' instead",
    ]);
    const read = await v1(server, 'GET', 'sys/policy/legacy');
    expect(read.body).toMatchObject({ name: 'legacy', rules: text, data: { name: 'legacy', rules: text } });
    expect((await v1(server, 'GET', 'sys/policy')).body.keys).toEqual(['default', 'legacy', 'root']);
  });

  it('decodes a base64 policy body', async () => {
    const text = 'path "b64/*" { capabilities = ["list"] }';
    await v1(server, 'PUT', 'sys/policies/acl/b64', { body: { policy: Buffer.from(text).toString('base64') } });
    expect((await v1(server, 'GET', 'sys/policies/acl/b64')).body.data.policy).toBe(text);
  });

  it('answers a bad capability with the real 400', async () => {
    const reply = await v1(server, 'PUT', 'sys/policies/acl/bad', { body: { policy: 'path "x" { capabilities = ["fly"] }' } });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ errors: ['failed to parse policy: path "x": invalid capability "fly"'] });
    expect(reply.headers.get('content-type')).toBe('application/json');
  });

  it('refuses an empty policy, changing root, and deleting root or default', async () => {
    expect((await v1(server, 'PUT', 'sys/policies/acl/empty', { body: {} })).body.errors).toEqual([
      "'policy' parameter not supplied or empty",
    ]);
    expect((await v1(server, 'PUT', 'sys/policy/root', { body: { policy: 'path "x" { policy = "read" }' } })).body.errors).toEqual([
      'cannot update "root" policy',
    ]);
    expect((await v1(server, 'DELETE', 'sys/policies/acl/root')).body.errors).toEqual(['cannot delete "root" policy']);
    expect((await v1(server, 'DELETE', 'sys/policy/default')).body.errors).toEqual(['cannot delete default policy']);
  });

  it('shows the default policy, which includes the cubbyhole', async () => {
    const read = await v1(server, 'GET', 'sys/policies/acl/default');
    expect(read.body.data.policy).toContain('path "cubbyhole/*"');
    // Only the real default policy's grants: no random-bytes tool, which it does not give.
    const paths = [...(read.body.data.policy as string).matchAll(/^path "([^"]+)"/gm)].map((match) => match[1]);
    expect(paths).not.toContain('sys/tools/random');
    expect(paths).toEqual(
      expect.arrayContaining(['auth/token/lookup-self', 'sys/leases/renew', 'sys/leases/lookup', 'sys/wrapping/wrap', 'sys/tools/hash']),
    );
  });

  describe('with real tokens', () => {
    let reader: string;
    let denied: string;
    beforeAll(async () => {
      await putPolicy(
        server,
        'mounts-reader',
        'path "sys/mounts" { capabilities = ["read"] }\npath "sys/policy/*" { capabilities = ["read"] }',
      );
      await putPolicy(server, 'no-mounts', 'path "sys/mounts" { capabilities = ["deny"] }');
      reader = (await createToken(server, { policies: ['mounts-reader'] })).client_token;
      denied = (await createToken(server, { policies: ['mounts-reader', 'no-mounts'] })).client_token;
    });

    it('allows what a policy grants and refuses the rest with the multierror 403', async () => {
      expect((await v1(server, 'GET', 'sys/mounts', { token: reader })).status).toBe(200);
      expect((await v1(server, 'GET', 'sys/policy/default', { token: reader })).status).toBe(200);
      const refused = await v1(server, 'PUT', 'sys/policies/acl/x', { token: reader, body: { policy: 'path "x" { policy = "read" }' } });
      expect(refused.status).toBe(403);
      expect(refused.body.errors).toEqual(POLICY_DENIED);
    });

    it('lets deny in one policy win over a grant in another', async () => {
      const reply = await v1(server, 'GET', 'sys/mounts', { token: denied });
      expect(reply.status).toBe(403);
      expect(reply.body.errors).toEqual(POLICY_DENIED);
    });

    it('answers a missing or unknown token with the plain 403', async () => {
      expect((await v1(server, 'GET', 'sys/mounts', { token: null })).body.errors).toEqual(TOKEN_DENIED);
      expect((await v1(server, 'GET', 'sys/mounts', { token: 'hvs.nope' })).body.errors).toEqual(TOKEN_DENIED);
    });

    it('gives an unknown path 403 to a non-root token and 404 to root', async () => {
      expect((await v1(server, 'GET', 'nowhere/x', { token: reader })).status).toBe(403);
      expect((await v1(server, 'GET', 'nowhere/x')).status).toBe(404);
    });

    it('needs sudo on root-protected paths even with the operation capability', async () => {
      await putPolicy(server, 'prefix-no-sudo', 'path "sys/leases/revoke-prefix/*" { capabilities = ["update"] }');
      await putPolicy(server, 'prefix-sudo', 'path "sys/leases/revoke-prefix/*" { capabilities = ["update", "sudo"] }');
      const without = (await createToken(server, { policies: ['prefix-no-sudo'] })).client_token;
      const withSudo = (await createToken(server, { policies: ['prefix-sudo'] })).client_token;
      expect((await v1(server, 'PUT', 'sys/leases/revoke-prefix/cubbyhole/', { token: without })).status).toBe(403);
      expect((await v1(server, 'PUT', 'sys/leases/revoke-prefix/cubbyhole/', { token: withSudo })).status).toBe(204);
      // auth/token/accessors is root-protected too.
      expect((await list(server, 'auth/token/accessors', without)).status).toBe(403);
      expect((await list(server, 'auth/token/accessors')).status).toBe(200);
    });

    it('lets the default policy look itself up, but not list tokens', async () => {
      expect((await v1(server, 'GET', 'auth/token/lookup-self', { token: reader })).status).toBe(200);
      expect((await v1(server, 'POST', 'auth/token/lookup', { token: reader, body: { token: reader } })).status).toBe(403);
    });
  });
});
