import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startServer, type TestServer } from '../../helpers/app.js';
import { requireTerraform } from '../../helpers/terraform.js';
import { ORG, publishProvider } from './helpers.js';
import { newSigner, providerZip, type Signer } from './signing.js';

const run = promisify(execFile);
const HOST = 'registry.understudy.test';
const missing = requireTerraform('the private provider installation test') === null;

let server: TestServer;
let signer: Signer;
let work: string;

beforeAll(async () => {
  [server, signer, work] = await Promise.all([startServer(), newSigner(), mkdtemp(join(tmpdir(), 'us-tf-providers-'))]);
});
afterAll(async () => {
  await server?.close();
  await signer?.close();
  await rm(work, { recursive: true, force: true });
});

/**
 * `terraform init` with only understudy to talk to: the CLI config maps the registry host to
 * understudy's `providers.v1` (plain http needs a `host` block, discovery being https only), and
 * an empty plugin cache, so the provider can only come from the registry.
 */
async function init(name: string, mainTf: string) {
  const dir = join(work, name);
  await mkdir(dir, { recursive: true });
  const cliConfig = join(work, `${name}.tfrc`);
  await writeFile(
    cliConfig,
    `host "${HOST}" {\n  services = {\n    "providers.v1" = "${server.baseUrl}/api/registry/v1/providers/"\n  }\n}\n\n` +
      `credentials "${HOST}" {\n  token = "${ADMIN_TOKEN}"\n}\n`,
  );
  await writeFile(join(dir, 'main.tf'), mainTf);
  const env = { ...process.env, TF_CLI_CONFIG_FILE: cliConfig, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1', TF_PLUGIN_CACHE_DIR: '' };
  return run('terraform', ['init', '-no-color', '-input=false'], { cwd: dir, env, timeout: 120_000 }).then(
    ({ stdout }) => ({ ok: true, stdout, stderr: '', dir }),
    (error: { stdout: string; stderr: string }) => ({ ok: false, stdout: error.stdout, stderr: error.stderr, dir }),
  );
}

const requiring = (name: string, constraint: string) =>
  `terraform {\n  required_providers {\n    ${name} = {\n` +
  `      source  = "${HOST}/${ORG}/${name}"\n      version = "${constraint}"\n    }\n  }\n}\n`;

describe.skipIf(missing)('terraform init with a private provider', () => {
  it('installs the newest matching version, checks its signature against the namespace key, and locks it', async () => {
    for (const version of ['1.0.0', '1.2.0', '2.0.0']) {
      const { filename, zip } = await providerZip('greeter', version);
      await publishProvider(server, signer, 'greeter', version, [{ os: 'linux', arch: 'amd64', filename, zip }]);
    }
    const result = await init('greeter', requiring('greeter', '~> 1.0'));
    expect(result.stderr).toBe('');
    expect(result.ok).toBe(true);
    expect(result.stdout).toContain(`Installing ${HOST}/${ORG}/greeter v1.2.0`);
    // Signed by a key that is neither the CLI's own nor a partner's: a community provider.
    expect(result.stdout).toContain(`Installed ${HOST}/${ORG}/greeter v1.2.0 (self-signed, key ID ${signer.keyId})`);
    const installed = join(result.dir, '.terraform/providers', HOST, ORG, 'greeter', '1.2.0', 'linux_amd64');
    expect(await readdir(installed)).toEqual(['terraform-provider-greeter_v1.2.0']);
    const lock = await readFile(join(result.dir, '.terraform.lock.hcl'), 'utf8');
    expect(lock).toContain(`provider "${HOST}/${ORG}/greeter"`);
    expect(lock).toContain('version     = "1.2.0"');
  });

  it('refuses a provider whose SHA256SUMS was signed by another key than the one the version names', async () => {
    const impostor = await newSigner();
    try {
      const { filename, zip } = await providerZip('forged', '1.0.0');
      // The version names the organization's key, but the signature comes from a key understudy never saw.
      await publishProvider(server, { ...signer, sign: (content) => impostor.sign(content) }, 'forged', '1.0.0', [
        { os: 'linux', arch: 'amd64', filename, zip },
      ]);
      const result = await init('forged', requiring('forged', '1.0.0'));
      expect(result.ok).toBe(false);
      expect(result.stderr).toContain('authentication signature from unknown issuer');
    } finally {
      await impostor.close();
    }
  });
});
