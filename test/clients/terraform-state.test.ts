import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform, startServer, type TestServer } from '../helpers/app.js';
import { nextJournaled } from '../helpers/events.js';
import { requireTerraform, startTerraform, terraform } from '../helpers/terraform.js';

const version = requireTerraform('the terraform state end-to-end tests (`terraform apply` with a cloud block)');

/** A configuration with no provider to download: `terraform_data` is built into the CLI. */
function configuration(workspaces: string, greeting: string, extra = ''): string {
  return `terraform {
  cloud {
    hostname     = "understudy.test"
    organization = "understudy"
    workspaces { ${workspaces} }
  }
}
locals {
  names = ["alpha", "beta"]
}
resource "terraform_data" "item" {
  for_each = toset(local.names)
  input    = "item-\${each.key}"
}
${extra}
output "greeting" { value = "${greeting}" }
output "items" { value = [for name in local.names : terraform_data.item[name].output] }
output "secret" {
  value     = "hush"
  sensitive = true
}
`;
}

async function workspace(server: TestServer, name: string) {
  const { status, body } = await platform(server, 'GET', `/organizations/understudy/workspaces/${name}?include=outputs`);
  expect(status).toBe(200);
  return body;
}

async function stateVersions(server: TestServer, name: string) {
  const { status, body } = await platform(
    server,
    'GET',
    `/state-versions?filter[workspace][name]=${name}&filter[organization][name]=understudy`,
  );
  expect(status).toBe(200);
  return body.data as { id: string; attributes: { serial: number; status: string } }[];
}

describe.skipIf(version === null)('terraform apply with a cloud block keeps its state in understudy', () => {
  let server: TestServer;
  const directories: string[] = [];
  const directory = () => {
    const made = mkdtempSync(join(tmpdir(), 'understudy-tfstate-'));
    directories.push(made);
    return made;
  };

  beforeAll(async () => {
    server = await startServer();
    // Local execution: the CLI plans and applies here and keeps only its state in the workspace.
    const { status } = await platform(server, 'PATCH', '/organizations/understudy', {
      body: { data: { type: 'organizations', attributes: { 'default-execution-mode': 'local' } } },
    });
    expect(status).toBe(200);
  });
  afterAll(async () => {
    for (const made of directories) rmSync(made, { recursive: true, force: true });
    await server?.close();
  });

  it('applies, reads outputs and state back, applies again as version 2, and never leaves the lock behind', async () => {
    const dir = directory();
    writeFileSync(join(dir, 'main.tf'), configuration('name = "e2e"', 'hello'));
    const init = await terraform(dir, server.baseUrl, 'init', '-input=false');
    expect(init.stderr).toBe('');
    expect(init.status).toBe(0);

    const apply = await terraform(dir, server.baseUrl, 'apply', '-auto-approve', '-input=false');
    expect(apply.stderr).toBe('');
    expect(apply.status).toBe(0);
    expect(apply.stdout).toContain('Apply complete! Resources: 2 added');

    const after = await workspace(server, 'e2e');
    expect(after.data.attributes.locked).toBe(false);
    expect(after.data.attributes['resource-count']).toBe(2);
    expect(after.data.relationships['current-state-version'].data.id).toMatch(/^sv-/);
    const outputs = Object.fromEntries(
      (after.included as { attributes: { name: string; value: unknown } }[]).map((o) => [o.attributes.name, o.attributes.value]),
    );
    expect(outputs).toEqual({ greeting: 'hello', items: ['item-alpha', 'item-beta'], secret: null });

    const output = await terraform(dir, server.baseUrl, 'output', '-json');
    expect(output.status).toBe(0);
    const values = JSON.parse(output.stdout) as Record<string, { value: unknown; sensitive: boolean }>;
    expect(values['greeting']?.value).toBe('hello');
    expect(values['items']?.value).toEqual(['item-alpha', 'item-beta']);
    expect(values['secret']).toEqual(expect.objectContaining({ sensitive: true, value: 'hush' }));

    const pull = await terraform(dir, server.baseUrl, 'state', 'pull');
    expect(pull.status).toBe(0);
    const state = JSON.parse(pull.stdout) as {
      serial: number;
      lineage: string;
      resources: { type: string }[];
      outputs: Record<string, { value: unknown }>;
    };
    expect(state.resources.map((resource) => resource.type)).toEqual(['terraform_data']);
    expect(state.outputs['greeting']?.value).toBe('hello');
    const first = await stateVersions(server, 'e2e');
    expect(first.map((version) => version.attributes.status)).toEqual(first.map(() => 'finalized'));
    expect(first[0]?.attributes.serial).toBe(state.serial);
    // Newer CLIs upload the raw and the JSON state through the links the create response gave.
    const shown = await platform(server, 'GET', `/state-versions/${first[0]?.id}`);
    expect(shown.body.data.attributes['hosted-json-state-download-url']).toMatch(/\/_archivist\/v1\/object\/download\//);

    writeFileSync(join(dir, 'main.tf'), configuration('name = "e2e"', 'hello again'));
    const second = await terraform(dir, server.baseUrl, 'apply', '-auto-approve', '-input=false');
    expect(second.status).toBe(0);
    expect(second.stdout).toContain('Apply complete! Resources: 0 added, 0 changed, 0 destroyed.');
    const versions = await stateVersions(server, 'e2e');
    expect(versions.length).toBe(first.length + 1);
    expect(versions[0]?.attributes.serial).toBeGreaterThan(state.serial);
    expect((await workspace(server, 'e2e')).data.attributes.locked).toBe(false);
    const again = await terraform(dir, server.baseUrl, 'output', '-raw', 'greeting');
    expect(again.stdout).toBe('hello again');
  });

  it('leaves the lock of an interrupted apply, which terraform force-unlock clears', async () => {
    const dir = directory();
    // A provisioner that waits keeps the apply inside its lock long enough to interrupt it.
    const slow = 'resource "terraform_data" "slow" {\n  provisioner "local-exec" { command = "sleep 60" }\n}\n';
    writeFileSync(join(dir, 'main.tf'), configuration('name = "interrupted"', 'hello', slow));
    expect((await terraform(dir, server.baseUrl, 'init', '-input=false')).status).toBe(0);

    // The apply's lock request answered (the journal's event), unless the CLI gives up first.
    const lockTaken = nextJournaled(server, { method: 'POST', path: '/api/v2/workspaces/*/actions/lock', status: '200' });
    const cli = startTerraform(dir, server.baseUrl, 'apply', '-auto-approve', '-input=false');
    const exited = new Promise((done) => cli.on('exit', done));
    try {
      await Promise.race([
        lockTaken,
        exited.then(() => {
          throw new Error('terraform exited before taking the lock');
        }),
      ]);
      expect((await workspace(server, 'interrupted')).data.attributes.locked).toBe(true);
    } finally {
      cli.kill('SIGKILL');
      await exited;
    }
    expect((await workspace(server, 'interrupted')).data.attributes.locked).toBe(true);

    const blocked = await terraform(dir, server.baseUrl, 'plan', '-input=false', '-lock-timeout=0s');
    expect(blocked.status).toBe(1);
    expect(blocked.stderr).toContain('Error acquiring the state lock');

    const unlock = await terraform(dir, server.baseUrl, 'force-unlock', '-force', 'understudy/interrupted');
    expect(unlock.stderr).toBe('');
    expect(unlock.status).toBe(0);
    expect((await workspace(server, 'interrupted')).data.attributes.locked).toBe(false);
  });

  it('creates the project the cloud block names, puts the workspace there, and applies there', async () => {
    const dir = directory();
    writeFileSync(join(dir, 'main.tf'), configuration('\n      name    = "in-project"\n      project = "platform-team"\n    ', 'projects'));
    const init = await terraform(dir, server.baseUrl, 'init', '-input=false');
    expect(init.stderr).toBe('');
    expect(init.status).toBe(0);
    const apply = await terraform(dir, server.baseUrl, 'apply', '-auto-approve', '-input=false');
    expect(apply.stderr).toBe('');
    expect(apply.status).toBe(0);

    const projects = await platform(server, 'GET', '/organizations/understudy/projects?filter[names]=platform-team');
    expect(projects.body.data).toHaveLength(1);
    const found = await workspace(server, 'in-project');
    expect(found.data.relationships.project.data.id).toBe(projects.body.data[0].id);
    expect(found.data.attributes.locked).toBe(false);
    expect((await terraform(dir, server.baseUrl, 'output', '-raw', 'greeting')).stdout).toBe('projects');
  });
});
