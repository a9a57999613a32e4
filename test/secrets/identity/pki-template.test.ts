import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { v1 } from '../core/client.js';

describe('PKI allowed_domains_template', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it("renders a role's domains for the caller's entity; an unresolved template allows nothing", async () => {
    await v1(server, 'POST', 'sys/mounts/pki', { body: { type: 'pki' } });
    await v1(server, 'POST', 'sys/auth/userpass', { body: { type: 'userpass' } });
    const accessor = (await v1(server, 'GET', 'sys/auth')).body.data['userpass/'].accessor as string;
    expect((await v1(server, 'POST', 'pki/root/generate/internal', { body: { common_name: 'ca.test', ttl: '24h' } })).status).toBe(200);
    const template = `{{identity.entity.aliases.${accessor}.name}}.example.com`;
    await v1(server, 'POST', 'pki/roles/own', {
      body: { allowed_domains: [template], allowed_domains_template: true, allow_bare_domains: true, ttl: '1h' },
    });
    await v1(server, 'PUT', 'sys/policies/acl/issuer', { body: { policy: 'path "pki/issue/own" { capabilities = ["update"] }' } });
    await v1(server, 'POST', 'auth/userpass/users/ana', { body: { password: 'pw', token_policies: 'issuer' } });
    const token = (await v1(server, 'POST', 'auth/userpass/login/ana', { token: null, body: { password: 'pw' } })).body.auth.client_token;

    const own = await v1(server, 'POST', 'pki/issue/own', { token, body: { common_name: 'ana.example.com' } });
    expect(own.status).toBe(200);
    expect(own.body.data.certificate).toContain('BEGIN CERTIFICATE');
    const other = await v1(server, 'POST', 'pki/issue/own', { token, body: { common_name: 'bo.example.com' } });
    expect(other.status).toBe(400);
    expect(other.body.errors[0]).toContain('common name bo.example.com not allowed by this role');
    // The root token has no entity: the template resolves to nothing, so no name is allowed.
    const rootIssue = await v1(server, 'POST', 'pki/issue/own', { body: { common_name: 'ana.example.com' } });
    expect(rootIssue.status).toBe(400);
  });
});
