import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform, startServer, type TestServer } from '../helpers/app.js';
import { requireTerraform, terraform } from '../helpers/terraform.js';
import { putPolicy, putRole, runPolicy, setUpJwtMethod, v1 } from '../platform/workload-identity/vault-setup.js';

const version = requireTerraform('the dynamic credentials test (terraform remote runs logging in to the secrets API)');

/**
 * No provider can be downloaded here, so the configuration does what the Vault provider would
 * with the token the run was given: a `local-exec` provisioner calls lookup-self, a KV read and a
 * KV write with VAULT_ADDR and VAULT_TOKEN. (Provisioners run at apply only: the plan role's
 * policy is proven by the simulated-run and hook tests.)
 */
function configuration(workspace: string): string {
  return `terraform {
  cloud {
    hostname     = "understudy.test"
    organization = "understudy"
    workspaces { name = "${workspace}" }
  }
}
resource "terraform_data" "probe" {
  provisioner "local-exec" {
    command = <<-EOT
      echo "lookup-self: $(curl -sS -H "X-Vault-Token: $VAULT_TOKEN" "$VAULT_ADDR/v1/auth/token/lookup-self")"
      echo "kv-read: $(curl -sS -H "X-Vault-Token: $VAULT_TOKEN" "$VAULT_ADDR/v1/secret/data/app")"
      echo "kv-write: $(curl -sS -o /dev/null -w '%%{http_code}' -X POST -H "X-Vault-Token: $VAULT_TOKEN" \
        -d '{"data":{"by":"apply"}}' "$VAULT_ADDR/v1/secret/data/app")"
    EOT
  }
}
`;
}

describe.skipIf(version === null)('terraform remote runs with TFC_VAULT_PROVIDER_AUTH', () => {
  let server: TestServer;
  const directories: string[] = [];

  beforeAll(async () => {
    server = await startServer({ UNDERSTUDY_EXECUTOR: 'terraform' });
    await setUpJwtMethod(server.baseUrl, server.baseUrl);
    await putPolicy(server.baseUrl, 'plan-reads', runPolicy('path "secret/data/app" { capabilities = ["read"] }'));
    await putPolicy(server.baseUrl, 'apply-writes', runPolicy('path "secret/data/app" { capabilities = ["read", "create", "update"] }'));
    const sub = (workspace: string, phase: string) => `organization:understudy:project:*:workspace:${workspace}:run_phase:${phase}`;
    await putRole(server.baseUrl, 'plan', { sub: sub('wif-cli', 'plan'), policies: ['plan-reads'] });
    await putRole(server.baseUrl, 'apply', { sub: sub('wif-cli', 'apply'), policies: ['apply-writes'] });
    await putRole(server.baseUrl, 'someone-else', { sub: sub('not-this-one', '*'), policies: ['apply-writes'] });
    expect((await v1(server.baseUrl, 'POST', 'secret/data/app', { body: { data: { greeting: 'hello' } } })).status).toBe(200);
  });
  afterAll(async () => {
    for (const made of directories) rmSync(made, { recursive: true, force: true });
    await server?.close();
  });

  async function workspaceWith(name: string, env: Record<string, string>): Promise<string> {
    const created = await platform(server, 'POST', '/organizations/understudy/workspaces', {
      body: { data: { type: 'workspaces', attributes: { name } } },
    });
    expect(created.status).toBe(201);
    for (const [key, value] of Object.entries(env)) {
      const variable = await platform(server, 'POST', `/workspaces/${created.body.data.id}/vars`, {
        body: { data: { type: 'vars', attributes: { key, value, category: 'env' } } },
      });
      expect(variable.status).toBe(201);
    }
    const dir = mkdtempSync(join(tmpdir(), 'understudy-wif-cli-'));
    directories.push(dir);
    writeFileSync(join(dir, 'main.tf'), configuration(name));
    expect((await terraform(dir, server.baseUrl, 'init', '-input=false')).status).toBe(0);
    return dir;
  }

  it("the apply runs with the apply role's token: lookup-self, a KV read and a write; the plan logged in with the plan role", async () => {
    const dir = await workspaceWith('wif-cli', {
      TFC_VAULT_PROVIDER_AUTH: 'true',
      TFC_VAULT_ADDR: server.baseUrl,
      TFC_VAULT_PLAN_ROLE: 'plan',
      TFC_VAULT_APPLY_ROLE: 'apply',
    });
    const apply = await terraform(dir, server.baseUrl, 'apply', '-input=false', '-auto-approve');
    expect(apply.stderr).toBe('');
    expect(apply.status).toBe(0);
    expect(apply.stdout).toContain(`logged in to ${server.baseUrl} with role "plan" for the plan phase`);
    // The CLI shows the apply log from its header on; the line before it is in the log itself.
    const runs = await platform(server, 'GET', `/organizations/understudy/workspaces/wif-cli`);
    const run = await platform(server, 'GET', `/runs/${runs.body.data.relationships['latest-run'].data.id}?include=apply`);
    const applyLog = await (await fetch(run.body.included[0].attributes['log-read-url'])).text();
    expect(applyLog).toContain(`logged in to ${server.baseUrl} with role "apply" for the apply phase`);
    const lookup = /lookup-self: (\{.*\})/.exec(apply.stdout)?.[1];
    expect(lookup, apply.stdout).toBeDefined();
    const self = JSON.parse(lookup as string) as { data: Record<string, unknown> };
    expect(self.data).toMatchObject({ path: 'auth/jwt/login', meta: { role: 'apply' }, policies: ['apply-writes', 'default'] });
    // The token itself is hidden wherever the log shows it.
    expect(self.data.id).toBe('(sensitive value)');
    expect(apply.stdout).toMatch(/kv-read: \{.*"greeting":"hello"/);
    expect(apply.stdout).toContain('kv-write: 200');
    expect((await v1(server.baseUrl, 'GET', 'secret/data/app')).body.data.data).toEqual({ by: 'apply' });
  });

  it("a role bound to another workspace errors the run with the method's text", async () => {
    const dir = await workspaceWith('wif-cli-refused', {
      TFC_VAULT_PROVIDER_AUTH: 'true',
      TFC_VAULT_ADDR: server.baseUrl,
      TFC_VAULT_RUN_ROLE: 'someone-else',
    });
    const apply = await terraform(dir, server.baseUrl, 'apply', '-input=false', '-auto-approve');
    expect(apply.status).not.toBe(0);
    expect(apply.stdout + apply.stderr).toContain(
      'login to ' +
        server.baseUrl +
        '/v1/auth/jwt/login with role "someone-else" failed (400): ' +
        'error validating claims: claim "sub" does not match any associated bound claim values',
    );
  });
});
