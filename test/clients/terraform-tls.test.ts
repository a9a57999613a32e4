import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUnderstudy, type Understudy } from '../../src/index.js';
import { requireTerraform, terraformOverTls } from '../helpers/terraform.js';

const version = requireTerraform('the terraform CLI over HTTPS test');

/**
 * The point of UNDERSTUDY_TLS=auto: the CLI finds the APIs by service discovery over HTTPS, as it
 * does for the real service, so its config holds only a token: no `host` block.
 */
describe.skipIf(version === null)('terraform over HTTPS, with only a credentials block', () => {
  const dir = mkdtempSync(join(tmpdir(), 'understudy-tftls-'));
  let server: Understudy;
  let hostname: string;

  const terraform = (...args: string[]) => terraformOverTls(dir, server.env['SSL_CERT_FILE'], ...args);

  beforeAll(async () => {
    server = await startUnderstudy({ tls: 'auto', tlsDir: join(dir, 'tls') });
    hostname = `localhost:${new URL(server.url).port}`;
    writeFileSync(join(dir, 'cli.tfrc'), `credentials "${hostname}" {\n  token = "${server.tokens.admin}"\n}\n`);
    writeFileSync(
      join(dir, 'main.tf'),
      `terraform {
  cloud {
    hostname     = "${hostname}"
    organization = "understudy"
    workspaces { name = "over-tls" }
  }
}
resource "terraform_data" "marker" { input = "tls" }
output "marker" { value = terraform_data.marker.output }
`,
    );
    const response = await fetch(`${server.url}/api/v2/organizations/understudy`, { method: 'GET' }).catch(() => null);
    // Node's fetch does not trust the local CA: that is the point of the files the banner names.
    expect(response).toBeNull();
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('inits, lists workspaces, applies and reads the state back', async () => {
    const init = await terraform('init', '-input=false');
    expect(init.stderr).toBe('');
    expect(init.status).toBe(0);
    expect(init.stdout).toContain('HCP Terraform has been successfully initialized!');

    const workspaces = await terraform('workspace', 'list');
    expect(workspaces.status).toBe(0);
    expect(workspaces.stdout).toContain('over-tls');

    await localExecution();
    const apply = await terraform('apply', '-auto-approve', '-input=false');
    expect(apply.stderr).toBe('');
    expect(apply.status).toBe(0);

    const state = await terraform('state', 'list');
    expect(state.status).toBe(0);
    expect(state.stdout.trim()).toBe('terraform_data.marker');
    const pulled = await terraform('state', 'pull');
    expect(JSON.parse(pulled.stdout).outputs.marker.value).toBe('tls');
  });

  /** Local execution (the CLI applies here, the workspace keeps the state); Node trusts the CA only when told. */
  async function localExecution(): Promise<void> {
    const body = JSON.stringify({ data: { type: 'workspaces', attributes: { 'execution-mode': 'local' } } });
    const status = await new Promise<number | undefined>((done, fail) => {
      const call = request(
        `${server.url}/api/v2/organizations/understudy/workspaces/over-tls`,
        {
          method: 'PATCH',
          ca: readFileSync(server.env['VAULT_CACERT'] as string),
          headers: { authorization: `Bearer ${server.tokens.admin}`, 'content-type': 'application/vnd.api+json' },
        },
        (response) => {
          response.resume();
          done(response.statusCode);
        },
      );
      call.on('error', fail);
      call.end(body);
    });
    expect(status).toBe(200);
  }
});
