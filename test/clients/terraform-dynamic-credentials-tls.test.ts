import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUnderstudy, type Understudy } from '../../src/index.js';
import { requireTerraform, terraformOverTls } from '../helpers/terraform.js';
import { runPolicy } from '../platform/workload-identity/vault-setup.js';

const version = requireTerraform('the dynamic credentials over HTTPS test (terraform remote runs with TFC_VAULT_ENCODED_CACERT)');

/**
 * The apply of terraform-dynamic-credentials.test.ts with UNDERSTUDY_TLS=auto: the CLI trusts the
 * local CA through SSL_CERT_FILE, the JWT method through `oidc_discovery_ca_pem`, the platform's
 * login through TFC_VAULT_ENCODED_CACERT, and the run's own calls through the VAULT_CACERT file it
 * is handed.
 */
describe.skipIf(version === null)('terraform remote runs with TFC_VAULT_PROVIDER_AUTH over HTTPS', () => {
  const dir = mkdtempSync(join(tmpdir(), 'understudy-wif-cli-tls-'));
  let server: Understudy;
  let ca: string;
  let hostname: string;
  /** The discovery document's issuer, `https://localhost:PORT` by default: the address used for the secrets API too. */
  let issuer: string;

  /** A JSON call over HTTPS trusting only the local CA; the body parsed when there is one. */
  function call(method: string, path: string, headers: Record<string, string>, body?: unknown) {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise<{ status: number; body: unknown }>((done, fail) => {
      const sent = request(
        `${server.url}${path}`,
        { method, ca, headers: { ...headers, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) } },
        (response) => {
          let text = '';
          response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
          response.on('end', () => done({ status: response.statusCode ?? 0, body: text === '' ? undefined : JSON.parse(text) }));
        },
      );
      sent.on('error', fail);
      sent.end(payload);
    });
  }
  const v1 = (method: string, path: string, body?: unknown) => call(method, `/v1/${path}`, { 'x-vault-token': server.tokens.root }, body);
  const api = (method: string, path: string, body: unknown) =>
    call(method, `/api/v2/${path}`, { authorization: `Bearer ${server.tokens.admin}`, 'content-type': 'application/vnd.api+json' }, body);

  const terraform = (...args: string[]) => terraformOverTls(dir, server.env['SSL_CERT_FILE'], ...args);

  beforeAll(async () => {
    server = await startUnderstudy({ tls: 'auto', tlsDir: join(dir, 'tls'), executor: 'terraform', logLevel: 'silent' });
    ca = readFileSync(server.env['VAULT_CACERT'] as string, 'utf8');
    hostname = `localhost:${new URL(server.url).port}`;
    issuer = ((await call('GET', '/.well-known/openid-configuration', {})).body as { issuer: string }).issuer;
    expect(issuer).toBe(`https://${hostname}`);
    // The method trusts the issuer with the local CA.
    expect((await v1('POST', 'sys/auth/jwt', { type: 'jwt' })).status).toBe(204);
    const configured = await v1('POST', 'auth/jwt/config', {
      oidc_discovery_url: issuer,
      oidc_discovery_ca_pem: ca,
      bound_issuer: issuer,
    });
    expect(configured.status, JSON.stringify(configured.body)).toBe(204);
    const policy = runPolicy('path "secret/data/app" { capabilities = ["read", "create", "update"] }');
    expect((await v1('PUT', 'sys/policies/acl/tls-writes', { policy })).status).toBe(204);
    const role = await v1('POST', 'auth/jwt/role/tls-run', {
      role_type: 'jwt',
      user_claim: 'terraform_full_workspace',
      bound_audiences: ['vault.workload.identity'],
      bound_claims_type: 'glob',
      bound_claims: { sub: 'organization:understudy:project:*:workspace:wif-tls:run_phase:*' },
      token_policies: ['tls-writes'],
    });
    expect(role.status, JSON.stringify(role.body)).toBe(204);
    expect((await v1('POST', 'secret/data/app', { data: { greeting: 'over tls' } })).status).toBe(200);

    const created = await api('POST', 'organizations/understudy/workspaces', {
      data: { type: 'workspaces', attributes: { name: 'wif-tls' } },
    });
    expect(created.status).toBe(201);
    const workspaceId = (created.body as { data: { id: string } }).data.id;
    const env = {
      TFC_VAULT_PROVIDER_AUTH: 'true',
      TFC_VAULT_ADDR: issuer,
      TFC_VAULT_RUN_ROLE: 'tls-run',
      TFC_VAULT_ENCODED_CACERT: Buffer.from(ca).toString('base64'),
    };
    for (const [key, value] of Object.entries(env)) {
      const variable = await api('POST', `workspaces/${workspaceId}/vars`, {
        data: { type: 'vars', attributes: { key, value, category: 'env' } },
      });
      expect(variable.status).toBe(201);
    }
    writeFileSync(join(dir, 'cli.tfrc'), `credentials "${hostname}" {\n  token = "${server.tokens.admin}"\n}\n`);
    writeFileSync(
      join(dir, 'main.tf'),
      `terraform {
  cloud {
    hostname     = "${hostname}"
    organization = "understudy"
    workspaces { name = "wif-tls" }
  }
}
resource "terraform_data" "probe" {
  provisioner "local-exec" {
    command = <<-EOT
      self=$(curl -sS --cacert "$VAULT_CACERT" -H "X-Vault-Token: $VAULT_TOKEN" "$VAULT_ADDR/v1/auth/token/lookup-self")
      echo "own-token-role: $(printf '%s' "$self" | grep -o '"role":"[a-z-]*"')"
      echo "kv-write: $(curl -sS --cacert "$VAULT_CACERT" -o /dev/null -w '%%{http_code}' -X POST -H "X-Vault-Token: $VAULT_TOKEN" \\
        -d '{"data":{"by":"apply over tls"}}' "$VAULT_ADDR/v1/secret/data/app")"
    EOT
  }
}
`,
    );
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('logs in over HTTPS with the encoded CA and hands the run VAULT_CACERT; the run writes with its token', async () => {
    const init = await terraform('init', '-input=false');
    expect(init.status, init.stdout + init.stderr).toBe(0);
    const apply = await terraform('apply', '-input=false', '-auto-approve');
    expect(apply.stderr).toBe('');
    expect(apply.status).toBe(0);
    expect(apply.stdout).toContain(`logged in to ${issuer} with role "tls-run" for the plan phase`);
    expect(apply.stdout).toContain('own-token-role: "role":"tls-run"');
    expect(apply.stdout).toContain('kv-write: 200');
    const read = await v1('GET', 'secret/data/app');
    expect((read.body as { data: { data: unknown } }).data.data).toEqual({ by: 'apply over tls' });
  });
});
