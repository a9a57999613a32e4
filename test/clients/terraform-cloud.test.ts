import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { platform, startServer } from '../helpers/app.js';
import { requireTerraform, terraform } from '../helpers/terraform.js';

const version = requireTerraform('the terraform CLI tests (the CLI drives the platform API through its own go-tfe client)');

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
