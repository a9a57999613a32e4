import { execFile, execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, platform, startServer, type TestServer } from '../../helpers/app.js';
import { tarball } from './archives.js';
import { ORG, publishByUpload } from './helpers.js';
import { gitRepository } from './git.js';

const run = promisify(execFile);
const HOST = 'registry.understudy.test';

function terraformMissing(): string | null {
  try {
    execFileSync('terraform', ['version'], { stdio: 'ignore' });
    return null;
  } catch {
    return 'the terraform CLI is not on PATH';
  }
}
const missing = terraformMissing();
if (missing && process.env['CI']) throw new Error(`${missing}, and CI is set: the registry CLI test must run`);
if (missing) console.log(`skipping the terraform CLI registry test: ${missing}`);

/** A module that needs no provider, so `terraform init` runs with no network. */
const files = (label: string) => [
  { name: 'main.tf', content: `variable "who" {\n  default = "world"\n}\n\noutput "greeting" {\n  value = "${label} \${var.who}"\n}\n` },
  { name: 'README.md', content: `# ${label}\n` },
];

let server: TestServer;
let work: string;

beforeAll(async () => {
  server = await startServer();
  work = await mkdtemp(join(tmpdir(), 'understudy-tf-'));
});
afterAll(async () => {
  await server.close();
  await rm(work, { recursive: true, force: true });
});

/** Writes the CLI config and a root module using `source`, runs `terraform init`, returns the installed record. */
async function init(name: string, source: string, constraint: string) {
  const dir = join(work, name);
  await run('mkdir', ['-p', dir]);
  const cliConfig = join(work, `${name}.tfrc`);
  await writeFile(
    cliConfig,
    `host "${HOST}" {\n  services = {\n    "modules.v1" = "${server.baseUrl}/api/registry/v1/modules/"\n  }\n}\n\ncredentials "${HOST}" {\n  token = "${ADMIN_TOKEN}"\n}\n`,
  );
  await writeFile(join(dir, 'main.tf'), `module "m" {\n  source  = "${source}"\n  version = "${constraint}"\n}\n`);
  const env = { ...process.env, TF_CLI_CONFIG_FILE: cliConfig, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1', TF_PLUGIN_CACHE_DIR: '' };
  const { stdout } = await run('terraform', ['init', '-no-color', '-input=false'], { cwd: dir, env, timeout: 120_000 });
  const record = JSON.parse(await readFile(join(dir, '.terraform/modules/modules.json'), 'utf8')) as {
    Modules: { Key: string; Version: string; Dir: string }[];
  };
  const installed = record.Modules.find((module) => module.Key === 'm')!;
  return { stdout, installed, mainTf: await readFile(join(dir, installed.Dir, 'main.tf'), 'utf8') };
}

describe.skipIf(missing !== null)('terraform init against the registry', () => {
  it('installs the newest version matching the constraint from an uploaded module', async () => {
    await publishByUpload(server, 'hello', 'null', [
      { version: '1.0.0', archive: await tarball(files('one-oh')) },
      { version: '1.4.2', archive: await tarball(files('one-four')) },
      { version: '2.0.0', archive: await tarball(files('two')) },
    ]);
    const { stdout, installed, mainTf } = await init('upload', `${HOST}/${ORG}/hello/null`, '~> 1.0');
    expect(stdout).toContain(`Downloading ${HOST}/${ORG}/hello/null 1.4.2`);
    expect(installed.Version).toBe('1.4.2');
    expect(mainTf).toContain('one-four');
  });

  it('installs a module published from a git repository', async () => {
    const repository = await gitRepository(work, 'terraform-null-tagged', [
      { tag: 'v0.9.0', files: files('nine') },
      { tag: 'v1.1.0', files: files('eleven') },
      { tag: 'not-a-version', files: files('ignored') },
    ]);
    const client = await platform(server, 'POST', `/organizations/${ORG}/oauth-clients`, {
      body: {
        data: {
          type: 'oauth-clients',
          attributes: {
            'service-provider': 'github',
            'http-url': repository.base,
            'api-url': repository.base,
            'oauth-token-string': 'unused',
          },
        },
      },
    });
    const tokenId = client.body.data.relationships['oauth-tokens'].data[0].id;
    const published = await platform(server, 'POST', `/organizations/${ORG}/registry-modules/vcs`, {
      body: {
        data: {
          type: 'registry-modules',
          attributes: {
            'vcs-repo': { identifier: repository.identifier, 'oauth-token-id': tokenId, display_identifier: repository.identifier },
          },
        },
      },
    });
    expect(published.status).toBe(201);
    const { installed, mainTf } = await init('vcs', `${HOST}/${ORG}/tagged/null`, '>= 1.0.0');
    expect(installed.Version).toBe('1.1.0');
    expect(mainTf).toContain('eleven');
  });
});
