import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform, startServer, type TestServer } from '../helpers/app.js';
import { requireTerraform, startTerraform, terraform } from '../helpers/terraform.js';
import { createRun, newWorkspace, nextRunCreated, uploadConfiguration, waitFor } from '../platform/runs/helpers.js';
import { KEY, startTaskService } from '../platform/runs/task-service.js';
import { initGreeting, workDirectories, writeGreeting } from './greeting-workspace.js';
import { untilJournaled, untilRunStatus } from './interrupt-helpers.js';

const version = requireTerraform('the remote-execution tests (terraform plan and apply run by understudy)');

async function runsOf(server: TestServer, workspace: string) {
  const found = await platform(server, 'GET', `/organizations/understudy/workspaces/${workspace}`);
  expect(found.status).toBe(200);
  const list = await platform(server, 'GET', `/workspaces/${found.body.data.id}/runs`);
  expect(list.status).toBe(200);
  return { workspace: found.body.data, runs: list.body.data as { id: string; attributes: Record<string, unknown> }[] };
}

describe.skipIf(version === null)('terraform plan and apply in remote execution mode', () => {
  let server: TestServer;
  const directories = workDirectories('understudy-remote-');

  beforeAll(async () => {
    server = await startServer({ UNDERSTUDY_EXECUTOR: 'terraform' });
  });
  afterAll(async () => {
    directories.removeAll();
    await server?.close();
  });

  it('plans speculatively with the log streamed to the terminal, without locking or changing state', async () => {
    const dir = directories.make();
    await initGreeting(dir, server.baseUrl, 'remote-plan', 'hello');
    const plan = await terraform(dir, server.baseUrl, 'plan', '-input=false');
    expect(plan.stderr).toBe('');
    expect(plan.status).toBe(0);
    expect(plan.stdout).toContain('Running plan in Terraform Enterprise');
    expect(plan.stdout).toContain('# terraform_data.greeting will be created');
    expect(plan.stdout).toContain('Plan: 1 to add, 0 to change, 0 to destroy.');

    const { workspace, runs } = await runsOf(server, 'remote-plan');
    expect(runs).toHaveLength(1);
    expect(runs[0]!.attributes.status).toBe('planned_and_finished');
    expect(runs[0]!.attributes['plan-only']).toBe(true);
    expect(workspace.attributes.locked).toBe(false);
    expect(workspace.relationships['current-state-version'].data).toBeNull();
  });

  it('saves a plan with plan -out (the workspace untouched) and applies that run with apply FILE', async () => {
    const dir = directories.make();
    await initGreeting(dir, server.baseUrl, 'remote-saved', 'saved');
    const plan = await terraform(dir, server.baseUrl, 'plan', '-input=false', '-out=saved.tfplan');
    expect(plan.stderr).toBe('');
    expect(plan.status).toBe(0);
    expect(plan.stdout).toContain('Plan: 1 to add, 0 to change, 0 to destroy.');
    const saved = await runsOf(server, 'remote-saved');
    expect(saved.runs).toHaveLength(1);
    expect(saved.runs[0]!.attributes).toMatchObject({ status: 'planned_and_saved', 'save-plan': true, 'plan-only': false });
    expect(saved.workspace.attributes.locked).toBe(false);
    expect(saved.workspace.relationships['current-state-version'].data).toBeNull();

    const apply = await terraform(dir, server.baseUrl, 'apply', '-input=false', 'saved.tfplan');
    expect(apply.stderr).toBe('');
    expect(apply.status).toBe(0);
    expect(apply.stdout).toContain('Apply complete! Resources: 1 added, 0 changed, 0 destroyed.');
    expect((await terraform(dir, server.baseUrl, 'output', '-raw', 'greeting')).stdout).toBe('saved');
    const { workspace, runs } = await runsOf(server, 'remote-saved');
    expect(runs.map((run) => run.id)).toEqual([saved.runs[0]!.id]);
    expect(runs[0]!.attributes.status).toBe('applied');
    expect(workspace.relationships['current-run'].data.id).toBe(runs[0]!.id);

    // Applied once, the file cannot be applied again: the CLI reads the run and refuses.
    const again = await terraform(dir, server.baseUrl, 'apply', '-input=false', 'saved.tfplan');
    expect(again.status).not.toBe(0);
    expect(again.stderr).toContain('Saved plan is already applied');
  });

  it("applies remotely: queues, plans, applies, and the state is the workspace's; a second apply is serial 2", async () => {
    const dir = directories.make();
    await initGreeting(dir, server.baseUrl, 'remote-apply', 'hello');
    const apply = await terraform(dir, server.baseUrl, 'apply', '-input=false', '-auto-approve');
    expect(apply.stderr).toBe('');
    expect(apply.status).toBe(0);
    expect(apply.stdout).toContain('Running apply in Terraform Enterprise');
    expect(apply.stdout).toContain('terraform_data.greeting: Creation complete');
    expect(apply.stdout).toContain('Apply complete! Resources: 1 added, 0 changed, 0 destroyed.');
    const output = await terraform(dir, server.baseUrl, 'output', '-raw', 'greeting');
    expect(output.stdout).toBe('hello');

    writeGreeting(dir, 'remote-apply', 'hello again');
    const second = await terraform(dir, server.baseUrl, 'apply', '-input=false', '-auto-approve');
    expect(second.status).toBe(0);
    expect(second.stdout).toContain('Apply complete! Resources: 0 added, 1 changed, 0 destroyed.');
    expect((await terraform(dir, server.baseUrl, 'output', '-raw', 'greeting')).stdout).toBe('hello again');

    const { workspace, runs } = await runsOf(server, 'remote-apply');
    expect(runs.map((run) => run.attributes.status)).toEqual(['applied', 'applied']);
    expect(workspace.attributes.locked).toBe(false);
    expect(workspace.relationships['current-run'].data.id).toBe(runs[0]!.id);
    expect(workspace.relationships['latest-run'].data.id).toBe(runs[0]!.id);
    expect(workspace.attributes['workspace-kpis-runs-count']).toBe(2);
    expect(workspace.attributes['run-failures']).toBe(0);
    expect(workspace.attributes['resource-count']).toBe(1);
    const versions = await platform(server, 'GET', `/workspaces/${workspace.id}/current-state-version`);
    expect(versions.status).toBe(200);
    expect(versions.body.data.attributes.serial).toBeGreaterThanOrEqual(2);

    // The plan's JSON and the logs stay readable after the run.
    const run = await platform(server, 'GET', `/runs/${runs[0]!.id}?include=plan,apply`);
    const plan = run.body.included.find((item: { type: string }) => item.type === 'plans');
    expect(plan.attributes['resource-changes']).toBe(1);
    expect(plan.attributes['resource-additions']).toBe(0);
    const json = await platform(server, 'GET', `/plans/${plan.id}/json-output`);
    expect(json.status).toBe(200);
    expect(json.body.resource_changes[0].address).toBe('terraform_data.greeting');
    const log = await fetch(plan.attributes['log-read-url']);
    const text = await log.text();
    expect(text.startsWith('\u0002Terraform v')).toBe(true);
    expect(text.endsWith('\u0003')).toBe(true);
  });
});

describe.skipIf(version === null)('phase hooks with the terraform executor', () => {
  it("give terraform each phase's own environment: the plan's in the plan, the apply's in the apply", async () => {
    const server = await startServer({ UNDERSTUDY_EXECUTOR: 'terraform' });
    try {
      server.app.platform.services.runs.engine.addPhaseHook({
        name: 'phase environment',
        start: async (start) => ({
          kind: 'proceed',
          environment: [
            // TF_VAR_ shows the plan's environment in the plan; the provisioner echoes the apply's.
            { key: 'TF_VAR_planned_in', value: `${start.phase}-phase`, hcl: false, sensitive: false },
            { key: 'PHASE_VALUE', value: `${start.phase}-phase`, hcl: false, sensitive: false },
          ],
        }),
      });
      // Plain logs: the plan's text shows the planned output's value (structured lines give only its action).
      const ws = await newWorkspace(server, 'remote-hooks', { 'auto-apply': true, 'structured-run-output-enabled': false });
      await uploadConfiguration(
        server,
        ws,
        `variable "planned_in" {
  default = "nowhere"
}
output "planned_in" { value = var.planned_in }
resource "terraform_data" "echo" {
  provisioner "local-exec" {
    command = "echo applied_in=$PHASE_VALUE"
  }
}
`,
      );
      const id = (await createRun(server, ws)).body.data.id as string;
      await waitFor(server, id, 'applied');
      const shown = await platform(server, 'GET', `/runs/${id}?include=plan,apply`);
      const logOf = async (type: string) => {
        const phase = shown.body.included.find((item: { type: string }) => item.type === type);
        return (await fetch(phase.attributes['log-read-url'])).text();
      };
      expect(await logOf('plans')).toContain('+ planned_in = "plan-phase"');
      expect(await logOf('applies')).toContain('applied_in=apply-phase');
      const outputs = await platform(server, 'GET', `/workspaces/${ws}/current-state-version?include=outputs`);
      expect(outputs.body.included[0].attributes).toMatchObject({ name: 'planned_in', value: 'plan-phase' });
    } finally {
      await server.close();
    }
  });
});

describe.skipIf(version === null)('Ctrl-C during a remote run', () => {
  it('cancels the run (simulated executor, held in planning by the manual progression)', async () => {
    const server = await startServer({ UNDERSTUDY_EXECUTOR: 'simulated', UNDERSTUDY_RUN_PROGRESSION: 'manual' });
    const dir = mkdtempSync(join(tmpdir(), 'understudy-remote-'));
    try {
      await initGreeting(dir, server.baseUrl, 'remote-cancel', 'hello');
      const created = nextRunCreated(server);
      const cli = startTerraform(dir, server.baseUrl, 'apply', '-input=false', '-auto-approve');
      const exited = new Promise<void>((resolve) => cli.on('exit', () => resolve()));
      // The CLI creates the run (the engine's creation event), unless it gives up first.
      const runId = await Promise.race([
        created,
        exited.then(() => {
          throw new Error('terraform exited before creating a run');
        }),
      ]);
      const { runs } = await runsOf(server, 'remote-cancel');
      expect(runs.map((item) => item.id)).toEqual([runId]);
      // Walk it into planning, where it waits; the CLI polls it there.
      const control = (path: string) => fetch(`${server.baseUrl}/_emulator${path}`, { method: 'POST' });
      while ((await runsOf(server, 'remote-cancel')).runs[0]!.attributes.status !== 'planning') {
        expect((await control(`/runs/${runs[0]!.id}/advance`)).status).toBe(200);
      }
      // Interrupt once the CLI tails the plan log (the journal shows its read), not after a pause.
      const planId = (await platform(server, 'GET', `/runs/${runs[0]!.id}`)).body.data.relationships.plan.data.id as string;
      const logPath = `/_archivist/v1/runs/logs/${planId}.*`;
      await untilJournaled(server, { method: 'GET', path: logPath });
      cli.kill('SIGINT');
      // The CLI asks for the cancel itself, then exits.
      await exited;
      // The cancel is accepted (202); the run stops soon after.
      await untilRunStatus(server, runs[0]!.id, 'canceled');
      const after = await runsOf(server, 'remote-cancel');
      expect(after.runs[0]!.attributes.status).toBe('canceled');
      expect(after.workspace.attributes.locked).toBe(false);
      const events = await platform(server, 'GET', `/runs/${runs[0]!.id}/run-events`);
      expect(events.body.data.map((event: { attributes: { action: string } }) => event.attributes.action)).toEqual([
        'queued',
        'plan_queued',
        'planning',
        'canceled',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await server.close();
    }
  });
});

describe.skipIf(version === null)('run tasks in a CLI-driven run', () => {
  it('a mandatory task that fails after the plan stops terraform apply, and the CLI says so', async () => {
    const server = await startServer({ UNDERSTUDY_EXECUTOR: 'terraform' });
    const service = await startTaskService((payload) => (payload.stage === 'post_plan' ? 'failed' : 'passed'));
    const dir = mkdtempSync(join(tmpdir(), 'understudy-remote-'));
    try {
      await initGreeting(dir, server.baseUrl, 'remote-tasks', 'hello');
      const { workspace } = await runsOf(server, 'remote-tasks');
      const task = await platform(server, 'POST', '/organizations/understudy/tasks', {
        body: {
          data: {
            type: 'tasks',
            attributes: { name: 'checker', url: service.url, description: 'checks', category: 'task', 'hmac-key': KEY },
          },
        },
      });
      expect(task.status).toBe(201);
      const attached = await platform(server, 'POST', `/workspaces/${workspace.id}/tasks`, {
        body: {
          data: {
            type: 'workspace-tasks',
            attributes: { 'enforcement-level': 'mandatory', stages: ['pre_plan', 'post_plan'] },
            relationships: { task: { data: { type: 'tasks', id: task.body.data.id } } },
          },
        },
      });
      expect(attached.status).toBe(201);
      const apply = await terraform(dir, server.baseUrl, 'apply', '-input=false', '-auto-approve');
      expect(apply.status).toBe(1);
      expect(apply.stdout).toContain('Pre-plan Tasks');
      expect(apply.stdout).toContain('Post-plan Tasks');
      expect(apply.stderr).toContain('Task Stage failed.');
      expect(service.received.map((item) => [item.payload.stage, item.verified])).toEqual([
        ['pre_plan', true],
        ['post_plan', true],
      ]);
      const { runs } = await runsOf(server, 'remote-tasks');
      expect(runs[0]!.attributes.status).toBe('errored');
      expect((await platform(server, 'GET', `/workspaces/${workspace.id}/current-state-version`)).status).toBe(404);
    } finally {
      service.server.close();
      rmSync(dir, { recursive: true, force: true });
      await server.close();
    }
  });
});
