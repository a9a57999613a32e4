import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, platform, startServer } from '../helpers/app.js';

/** The terraform CLI's version, or null when it is not installed. */
function terraformVersion(): string | null {
  try {
    const output = execFileSync('terraform', ['version', '-json'], { encoding: 'utf8', env: { ...process.env, CHECKPOINT_DISABLE: '1' } });
    return (JSON.parse(output) as { terraform_version: string }).terraform_version;
  } catch {
    return null;
  }
}

const version = terraformVersion();
if (version === null) {
  if (process.env.CI) throw new Error('the terraform CLI is required in CI (it drives the platform API through its own go-tfe client)');
  console.warn('skipping the terraform CLI tests: `terraform` is not installed on this machine');
}

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Terraform's `cloud` backend is a real client of the platform API (it embeds the official Go
 * client). Plain http needs a CLI `host` block, because service discovery is always https.
 * Asynchronous on purpose: the server runs in this process and must keep answering meanwhile.
 */
function terraform(directory: string, baseUrl: string, ...args: string[]): Promise<Run> {
  writeFileSync(
    join(directory, 'understudy.tfrc'),
    `host "understudy.test" {\n  services = { "tfe.v2" = "${baseUrl}/api/v2/" }\n}\n` +
      `credentials "understudy.test" {\n  token = "${ADMIN_TOKEN}"\n}\n`,
  );
  const env = { ...process.env, TF_CLI_CONFIG_FILE: join(directory, 'understudy.tfrc'), CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1' };
  return new Promise((done) => {
    execFile('terraform', [...args, '-no-color'], { cwd: directory, env, timeout: 60_000 }, (error, stdout, stderr) => {
      done({ status: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
    });
  });
}

describe.skipIf(version === null)('the terraform CLI cloud backend', () => {
  it.each([
    ['spec', 'tool-version', 'svc-api'],
    ['upstream', 'terraform-version', 'tfe-api'],
  ])('initialises against understudy in the %s dialect, creating its workspace', async (dialect, versionAttribute, source) => {
    const server = await startServer({ UNDERSTUDY_DIALECT: dialect });
    const directory = mkdtempSync(join(tmpdir(), 'understudy-terraform-'));
    try {
      writeFileSync(
        join(directory, 'main.tf'),
        'terraform {\n  cloud {\n    hostname     = "understudy.test"\n    organization = "understudy"\n' +
          '    workspaces { name = "from-terraform" }\n  }\n}\noutput "greeting" { value = "hello" }\n',
      );
      const init = await terraform(directory, server.baseUrl, 'init', '-input=false');
      expect(init.stderr).toBe('');
      expect(init.status).toBe(0);
      expect(init.stdout).toContain('successfully initialized');

      const { status, body } = await platform(server, 'GET', '/organizations/understudy/workspaces/from-terraform');
      expect(status).toBe(200);
      expect(body.data.attributes[versionAttribute]).toBe(version);
      expect(body.data.attributes.source).toBe(source);
      expect(body.data.attributes['execution-mode']).toBe('remote');

      const show = await terraform(directory, server.baseUrl, 'workspace', 'show');
      expect(show.status).toBe(0);
      expect(show.stdout.trim()).toBe('from-terraform');
    } finally {
      rmSync(directory, { recursive: true, force: true });
      await server.close();
    }
  });

  it('is refused a workspace in an organization the token cannot see', async () => {
    const server = await startServer();
    const directory = mkdtempSync(join(tmpdir(), 'understudy-terraform-'));
    try {
      writeFileSync(
        join(directory, 'main.tf'),
        'terraform {\n  cloud {\n    hostname     = "understudy.test"\n    organization = "nowhere"\n' +
          '    workspaces { name = "w" }\n  }\n}\n',
      );
      const init = await terraform(directory, server.baseUrl, 'init', '-input=false');
      expect(init.status).toBe(1);
      expect(init.stderr).toContain('organization "nowhere" at host understudy.test not found');
    } finally {
      rmSync(directory, { recursive: true, force: true });
      await server.close();
    }
  });
});
