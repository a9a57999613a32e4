import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform, startServer, type TestServer } from '../helpers/app.js';
import { requireTerraform, terraform } from '../helpers/terraform.js';
import { initGreeting, workDirectories } from './greeting-workspace.js';

const version = requireTerraform('the structured run output tests (terraform plan and apply drawing the remote plan)');

/** The newest run of `workspace` with its plan and apply logs as the API serves them. */
async function latestRun(server: TestServer, workspace: string) {
  const found = await platform(server, 'GET', `/organizations/understudy/workspaces/${workspace}`);
  expect(found.status).toBe(200);
  const runId = found.body.data.relationships['latest-run'].data.id as string;
  const shown = await platform(server, 'GET', `/runs/${runId}?include=plan,apply`);
  expect(shown.status).toBe(200);
  const phases = shown.body.included as { type: string; id: string; attributes: Record<string, string> }[];
  const logOf = async (type: string) => {
    const phase = phases.find((entry) => entry.type === type)!;
    // The log's own framing (STX at its start, ETX once it ends) is not part of its lines.
    const text = await (await fetch(phase.attributes['log-read-url']!)).text();
    return text.replaceAll(String.fromCharCode(2), '').replaceAll(String.fromCharCode(3), '');
  };
  return { runId, planId: phases.find((entry) => entry.type === 'plans')!.id, logOf };
}

/** The lines of a log that are JSON objects (the machine-readable UI), parsed. */
const jsonLines = (log: string) =>
  log
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe.skipIf(version === null).each([
  ['terraform', 'self-hosted', 'Terraform Enterprise', /\+ input\s+= "hello"/],
  ['simulated', 'hosted', 'HCP Terraform', /\+ digest\s+= "[0-9a-f]{64}"/],
] as const)('structured run output: the %s executor on the %s edition', (executor, edition, product, attributeLine) => {
  let server: TestServer;
  const directories = workDirectories('understudy-structured-');

  beforeAll(async () => {
    server = await startServer({ UNDERSTUDY_EXECUTOR: executor, UNDERSTUDY_EDITION: edition });
  });
  afterAll(async () => {
    directories.removeAll();
    await server?.close();
  });

  it('plans and applies with the plan drawn from the redacted JSON and the apply from the JSON log lines', async () => {
    const dir = directories.make();
    await initGreeting(dir, server.baseUrl, 'structured', 'hello');

    const plan = await terraform(dir, server.baseUrl, 'plan', '-input=false');
    expect(plan.stderr).toBe('');
    expect(plan.status).toBe(0);
    expect(plan.stdout).toContain(`Running plan in ${product}`);
    expect(plan.stdout).toContain('# terraform_data.greeting will be created');
    expect(plan.stdout).toContain('+ resource "terraform_data" "greeting" {');
    expect(plan.stdout).toMatch(attributeLine);
    expect(plan.stdout).toMatch(/\+ id\s+= \(known after apply\)/);
    expect(plan.stdout).toContain('Plan: 1 to add, 0 to change, 0 to destroy.');
    // No raw JSON line reaches the terminal.
    expect(plan.stdout).not.toContain('"@level"');

    // The log the API serves is the plain header, then the machine-readable UI's lines.
    const planned = await latestRun(server, 'structured');
    const planLog = await planned.logOf('plans');
    expect(planLog.split('\n')[0]).toMatch(/^Terraform v\d/);
    const lines = jsonLines(planLog);
    expect(lines.map((line) => line.type)).toEqual(expect.arrayContaining(['version', 'planned_change', 'change_summary']));
    expect(lines.find((line) => line.type === 'change_summary')).toMatchObject({
      '@message': 'Plan: 1 to add, 0 to change, 0 to destroy.',
      changes: { add: 1, change: 0, remove: 0, import: 0, operation: 'plan' },
    });
    // The redacted plan carries the schema of every provider it changes, under the change's provider name.
    const redacted = await platform(server, 'GET', `/plans/${planned.planId}/json-output-redacted`);
    expect(redacted.status).toBe(200);
    expect(redacted.body.resource_changes[0].provider_name).toBe('terraform.io/builtin/terraform');
    expect(Object.keys(redacted.body.provider_schemas)).toEqual(['terraform.io/builtin/terraform']);
    expect(
      redacted.body.provider_schemas['terraform.io/builtin/terraform'].resource_schemas.terraform_data.block.attributes.id,
    ).toMatchObject({
      type: 'string',
      computed: true,
    });

    const apply = await terraform(dir, server.baseUrl, 'apply', '-input=false', '-auto-approve');
    expect(apply.stderr).toBe('');
    expect(apply.status).toBe(0);
    expect(apply.stdout).toContain('+ resource "terraform_data" "greeting" {');
    expect(apply.stdout).toContain('terraform_data.greeting: Creating...');
    expect(apply.stdout).toContain('terraform_data.greeting: Creation complete after 0s [id=');
    expect(apply.stdout).toContain('Apply complete! Resources: 1 added, 0 changed, 0 destroyed.');
    expect(apply.stdout).not.toContain('"@level"');
    const applied = await latestRun(server, 'structured');
    expect(jsonLines(await applied.logOf('applies')).find((line) => line.type === 'change_summary')).toMatchObject({
      changes: { add: 1, operation: 'apply' },
    });
    if (executor === 'terraform') expect(apply.stdout).toContain('Outputs:\ngreeting = "hello"');
    // The simulation keeps an output it cannot evaluate as its expression's text.
    if (executor === 'terraform') expect((await terraform(dir, server.baseUrl, 'output', '-raw', 'greeting')).stdout).toBe('hello');
  });

  it('streams the plain log when the workspace turns structured run output off', async () => {
    const dir = directories.make();
    await initGreeting(dir, server.baseUrl, 'plain', 'hello');
    const found = await platform(server, 'GET', '/organizations/understudy/workspaces/plain');
    const patched = await platform(server, 'PATCH', `/workspaces/${found.body.data.id}`, {
      body: { data: { type: 'workspaces', attributes: { 'structured-run-output-enabled': false } } },
    });
    expect(patched.status).toBe(200);

    const plan = await terraform(dir, server.baseUrl, 'plan', '-input=false');
    expect(plan.stderr).toBe('');
    expect(plan.status).toBe(0);
    expect(plan.stdout).toContain('# terraform_data.greeting will be created');
    expect(plan.stdout).toContain('Plan: 1 to add, 0 to change, 0 to destroy.');
    const planLog = await (await latestRun(server, 'plain')).logOf('plans');
    expect(jsonLines(planLog)).toEqual([]);
    expect(planLog).toContain('Plan: 1 to add, 0 to change, 0 to destroy.');
    // The CLI printed the log as it streamed: its text is in the output as the API serves it.
    expect(plan.stdout).toContain(planLog.split('\n').find((line) => line.includes('will be created')));
  });
});
