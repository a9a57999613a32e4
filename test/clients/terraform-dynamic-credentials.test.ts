import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { arch, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform, startServer, type TestServer } from '../helpers/app.js';
import { requireTerraform, terraform, terraformWithConfig } from '../helpers/terraform.js';
import { putPolicy, putRole, runPolicy, setUpJwtMethod, v1 } from '../platform/workload-identity/vault-setup.js';

const version = requireTerraform('the dynamic credentials test (terraform remote runs logging in to the secrets API)');

const cloudBlock = (workspace: string) => `
  cloud {
    hostname     = "understudy.test"
    organization = "understudy"
    workspaces { name = "${workspace}" }
  }`;

/**
 * No provider can be downloaded here, so the configuration does what the Vault provider would
 * with the token the run was given: a `local-exec` provisioner calls lookup-self, a KV read and a
 * KV write with VAULT_ADDR and VAULT_TOKEN. (Provisioners run at apply only: see `planProbe`.)
 */
function configuration(workspace: string): string {
  return `terraform {${cloudBlock(workspace)}
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

/**
 * A plan runs no provisioner, but it does start every provider the configuration requires. This
 * "provider", installed from a filesystem mirror, is a script that tries a KV write with the plan
 * phase's token and prints the answer as its first line: Terraform shows that line in the plan's
 * error ("Unrecognized remote plugin message: ...") because it is not a plugin handshake.
 */
const PROBE_PROVIDER = `#!/bin/sh
answer=$(curl -sS -X POST -H "X-Vault-Token: $VAULT_TOKEN" -d '{"data":{"by":"plan"}}' -w ' %{http_code}' \\
  "$VAULT_ADDR/v1/secret/data/app" | tr -d '\\n')
printf 'plan-kv-write: %s\\n' "$answer"
exit 1
`;

function planProbe(workspace: string): string {
  return `terraform {${cloudBlock(workspace)}
  required_providers {
    probe = { source = "understudy/probe" }
  }
}
provider "probe" {}
`;
}

/** A mirror holding the probe provider, and the CLI configuration that installs it from there. */
function probeMirror(root: string): string {
  const platformName = `linux_${arch() === 'x64' ? 'amd64' : arch()}`;
  const directory = join(root, 'mirror', 'registry.terraform.io', 'understudy', 'probe', '0.0.1', platformName);
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, 'terraform-provider-probe'), PROBE_PROVIDER);
  chmodSync(join(directory, 'terraform-provider-probe'), 0o755);
  return `provider_installation {
  filesystem_mirror {
    path    = "${join(root, 'mirror')}"
    include = ["understudy/probe"]
  }
  direct { exclude = ["understudy/probe"] }
}
`;
}

/**
 * Keeps the run's manual workload identity token (signed with the key current at its first apply)
 * in `saved`, then logs in with it: each apply says whether that older token still verifies.
 */
function rotationProbe(workspace: string, saved: string): string {
  return `terraform {${cloudBlock(workspace)}
}
resource "terraform_data" "probe" {
  provisioner "local-exec" {
    command = <<-EOT
      umask 077
      [ -f "${saved}" ] || printf '%s' "$TFC_WORKLOAD_IDENTITY_TOKEN" > "${saved}"
      printf '{"role":"rotation","jwt":"%s"}' "$(cat "${saved}")" > "${saved}.login"
      echo "saved-token-login: $(curl -sS -o /dev/null -w '%%{http_code}' -X POST -d @"${saved}.login" "$VAULT_ADDR/v1/auth/jwt/login")"
      self=$(curl -sS -H "X-Vault-Token: $VAULT_TOKEN" "$VAULT_ADDR/v1/auth/token/lookup-self")
      echo "own-token-role: $(printf '%s' "$self" | grep -o '"role":"[a-z]*"')"
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
    await putRole(server.baseUrl, 'plan', { sub: sub('wif-cli*', 'plan'), policies: ['plan-reads'] });
    await putRole(server.baseUrl, 'apply', { sub: sub('wif-cli*', 'apply'), policies: ['apply-writes'] });
    await putRole(server.baseUrl, 'rotation', { sub: sub('wif-cli-rotation', '*'), policies: ['plan-reads'] });
    await putRole(server.baseUrl, 'someone-else', { sub: sub('not-this-one', '*'), policies: ['apply-writes'] });
    expect((await v1(server.baseUrl, 'POST', 'secret/data/app', { body: { data: { greeting: 'hello' } } })).status).toBe(200);
  });
  afterAll(async () => {
    for (const made of directories) rmSync(made, { recursive: true, force: true });
    await server?.close();
  });

  /** A workspace with these `env` variables, and a directory holding `main` (by default `configuration`), initialised. */
  async function workspaceWith(name: string, env: Record<string, string>, main = configuration(name), cliConfig = ''): Promise<string> {
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
    const dir = directoryFor(name);
    writeFileSync(join(dir, 'main.tf'), main);
    const init = await terraformWithConfig(cliConfig, dir, server.baseUrl, 'init', '-input=false');
    expect(init.status, init.stdout + init.stderr).toBe(0);
    return dir;
  }

  const made = new Map<string, string>();
  function directoryFor(name: string): string {
    const existing = made.get(name);
    if (existing) return existing;
    const dir = mkdtempSync(join(tmpdir(), 'understudy-wif-cli-'));
    directories.push(dir);
    made.set(name, dir);
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

  it("the plan phase's token cannot write: the plan role's policy refuses a KV write, and the plan log says so", async () => {
    const before = (await v1(server.baseUrl, 'GET', 'secret/data/app')).body.data;
    const dir = directoryFor('wif-cli-plan');
    // Runs go as an unprivileged user when the server is root: it reads the mirror and the CLI config.
    chmodSync(dir, 0o755);
    const cliConfig = probeMirror(dir);
    await workspaceWith(
      'wif-cli-plan',
      {
        TFC_VAULT_PROVIDER_AUTH: 'true',
        TFC_VAULT_ADDR: server.baseUrl,
        TFC_VAULT_PLAN_ROLE: 'plan',
        TFC_VAULT_APPLY_ROLE: 'apply',
        // The run's own terraform installs the probe from the same mirror.
        TF_CLI_CONFIG_FILE: join(dir, 'understudy.tfrc'),
      },
      planProbe('wif-cli-plan'),
      cliConfig,
    );
    // Plain logs: the CLI shows the plugin's message as the log has it (structured output would draw the
    // diagnostic in a wrapped box, splitting the answer across lines).
    const workspace = await platform(server, 'GET', '/organizations/understudy/workspaces/wif-cli-plan');
    const patched = await platform(server, 'PATCH', `/workspaces/${workspace.body.data.id}`, {
      body: { data: { type: 'workspaces', attributes: { 'structured-run-output-enabled': false } } },
    });
    expect(patched.status).toBe(200);
    const plan = await terraformWithConfig(cliConfig, dir, server.baseUrl, 'plan', '-input=false');
    expect(plan.status).not.toBe(0);
    const shown = (plan.stdout + plan.stderr).replace(/\s+/g, ' ');
    expect(shown).toContain(`logged in to ${server.baseUrl} with role "plan" for the plan phase`);
    expect(shown).toContain('plan-kv-write: {"errors":["1 error occurred:\\n\\t* permission denied\\n\\n"]} 403');
    // The refused write changed nothing.
    expect((await v1(server.baseUrl, 'GET', 'secret/data/app')).body.data).toEqual(before);
  });

  it('a rotated signing key keeps verifying; once trimmed, its tokens fail when the method fetches the key set again', async () => {
    // The run's user (unprivileged when the server is root) writes the token here; only it and root can read it.
    const drop = join(directoryFor('wif-cli-rotation'), 'drop');
    mkdirSync(drop, { mode: 0o1777 });
    chmodSync(drop, 0o1777);
    chmodSync(directoryFor('wif-cli-rotation'), 0o711);
    const saved = join(drop, 'saved-token');
    const dir = await workspaceWith(
      'wif-cli-rotation',
      {
        TFC_VAULT_PROVIDER_AUTH: 'true',
        TFC_VAULT_ADDR: server.baseUrl,
        TFC_VAULT_RUN_ROLE: 'rotation',
        TFC_WORKLOAD_IDENTITY_AUDIENCE: 'vault.workload.identity',
      },
      rotationProbe('wif-cli-rotation', saved),
    );
    const first = await terraform(dir, server.baseUrl, 'apply', '-input=false', '-auto-approve');
    expect(first.status, first.stdout + first.stderr).toBe(0);
    expect(first.stdout).toContain('saved-token-login: 200');
    const keysBefore = (await (await fetch(`${server.baseUrl}/.well-known/jwks`)).json()) as { keys: { kid: string }[] };

    expect(keysBefore.keys).toHaveLength(1);
    expect((await platform(server, 'POST', '/admin/oidc-settings/actions/rotate-key')).status).toBe(204);
    // The next run signs with a key the method has not seen: it fetches the key set again and
    // accepts it, and the token signed with the rotated-out key still verifies.
    const second = await terraform(dir, server.baseUrl, 'apply', '-input=false', '-auto-approve', '-replace=terraform_data.probe');
    expect(second.status, second.stdout + second.stderr).toBe(0);
    expect(second.stdout).toContain('own-token-role: "role":"rotation"');
    expect(second.stdout).toContain('saved-token-login: 200');

    expect((await platform(server, 'POST', '/admin/oidc-settings/actions/trim-key')).status).toBe(204);
    const keysAfter = (await (await fetch(`${server.baseUrl}/.well-known/jwks`)).json()) as { keys: { kid: string }[] };
    expect(keysAfter.keys.map((key) => key.kid)).not.toContain(keysBefore.keys[0]?.kid);
    const login = () =>
      v1(server.baseUrl, 'POST', 'auth/jwt/login', { token: null, body: { role: 'rotation', jwt: readFileSync(saved, 'utf8') } });
    // Until the method fetches the key set again, it still holds the trimmed key.
    expect((await login()).status).toBe(200);
    // A config write makes it fetch the set anew (as the real method does).
    const rewritten = await v1(server.baseUrl, 'POST', 'auth/jwt/config', {
      body: { oidc_discovery_url: server.baseUrl, bound_issuer: server.baseUrl },
    });
    expect(rewritten.status).toBe(204);
    const refused = await login();
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual(['error validating token: error verifying token signature: failed to verify id token signature']);
  });
});
