import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { platform, startServer, type TestServer } from '../helpers/app.js';
import { requireTerraform, startTerraformPiped, terraform } from '../helpers/terraform.js';
import { Transcript, advanceUntil, cloudBlock, journalCount, runStatus, untilJournaled, untilRunStatus } from './interrupt-helpers.js';

/**
 * Ctrl-C while the terraform CLI (1.11) follows a remote run, as its cloud backend does it
 * (internal/cloud/backend.go `Operation` and `cancel`, backend_plan.go, backend_apply.go):
 * - `terraform plan`: the interrupt stops the CLI's wait, and `opPlan` drops the run on any error,
 *   so nothing is sent; the speculative plan goes on remotely (its header says so).
 * - `terraform apply`: the CLI reads the run and, if `actions.is-cancelable`, asks "Do you want to
 *   cancel the remote operation?" on the terminal whatever `-input` says; only `yes` sends
 *   `POST /runs/:id/actions/cancel`. With `-auto-approve` it sends the cancel without asking.
 */
const version = requireTerraform('the Ctrl-C tests of terraform plan and apply in remote mode');

const CONFIGURATION = (workspace: string) => `${cloudBlock(workspace)}
resource "terraform_data" "greeting" {
  input = "hello"
}
`;

const QUESTION = 'Do you want to cancel the remote operation?';
const CANCELED = 'The remote operation was successfully cancelled.';
const NOT_CANCELED = 'The remote operation was not cancelled.';

describe.skipIf(version === null)('Ctrl-C while the CLI follows a run (simulated executor, held in planning)', () => {
  let server: TestServer;
  const directories: string[] = [];
  afterEach(async () => {
    for (const made of directories.splice(0)) rmSync(made, { recursive: true, force: true });
    await server?.close();
  });

  /** Starts the CLI, walks its run into `planning` and waits until the CLI tails the plan log. */
  async function heldInPlanning(workspace: string, ...args: string[]) {
    server = await startServer({ UNDERSTUDY_EXECUTOR: 'simulated', UNDERSTUDY_RUN_PROGRESSION: 'manual' });
    const dir = mkdtempSync(join(tmpdir(), 'understudy-interrupt-'));
    directories.push(dir);
    writeFileSync(join(dir, 'main.tf'), CONFIGURATION(workspace));
    expect((await terraform(dir, server.baseUrl, 'init', '-input=false')).status).toBe(0);
    const cli = startTerraformPiped(dir, server.baseUrl, ...args);
    const transcript = new Transcript(cli);
    // The CLI prints the run's link once it has the run: from then on an interrupt is about that run.
    const runId = (await transcript.until(/\/runs\/(run-[A-Za-z0-9]+)/))[1]!;
    await advanceUntil(server, runId, ['planning']);
    const planId = (await platform(server, 'GET', `/runs/${runId}`)).body.data.relationships.plan.data.id as string;
    const logPath = `/_archivist/v1/runs/logs/${planId}.*`;
    await untilJournaled(server, { method: 'GET', path: logPath });
    return { cli, transcript, runId };
  }

  const cancels = () => journalCount(server, { method: 'POST', path: '/api/v2/runs/*/actions/cancel' });

  it('terraform plan: the CLI stops following and sends nothing; the speculative plan finishes remotely', async () => {
    const { cli, transcript, runId } = await heldInPlanning('interrupt-plan', 'plan', '-input=false');
    cli.kill('SIGINT');
    const code = await transcript.exited;
    expect(code).not.toBe(0);
    expect(transcript.text).toContain('will stop streaming the logs, but will not stop the plan running remotely');
    expect(transcript.text).not.toContain(QUESTION);

    expect(await cancels()).toBe(0);
    expect(await runStatus(server, runId)).toBe('planning');
    expect(await advanceUntil(server, runId, ['planned_and_finished', 'errored', 'canceled'])).toBe('planned_and_finished');
    const shown = await platform(server, 'GET', `/runs/${runId}?include=plan`);
    expect(shown.body.included[0].attributes['resource-additions']).toBe(1);
    const workspace = await platform(server, 'GET', '/organizations/understudy/workspaces/interrupt-plan');
    expect(workspace.body.data.attributes.locked).toBe(false);
  }, 90_000);

  it('terraform apply: asks whether to cancel (even with -input=false); "yes" cancels the run', async () => {
    const { cli, transcript, runId } = await heldInPlanning('interrupt-yes', 'apply', '-input=false');
    cli.kill('SIGINT');
    await transcript.until(QUESTION);
    cli.stdin.write('yes\n');
    const code = await transcript.exited;
    expect(transcript.text).toContain(CANCELED);
    // The CLI read the run (still planning) before it canceled it, so it reports success.
    expect(code).toBe(0);

    // The cancel is accepted (202) and the run stops soon after, as on the real platform.
    await untilRunStatus(server, runId, 'canceled');
    expect(await journalCount(server, { method: 'POST', path: `/api/v2/runs/${runId}/actions/cancel` })).toBe(1);
    const events = await platform(server, 'GET', `/runs/${runId}/run-events`);
    expect(events.body.data.map((event: { attributes: { action: string } }) => event.attributes.action)).toEqual([
      'queued',
      'plan_queued',
      'planning',
      'canceled',
    ]);
    const plan = await platform(server, 'GET', `/runs/${runId}?include=plan`);
    expect(plan.body.included[0].attributes.status).toBe('canceled');
    const workspace = await platform(server, 'GET', '/organizations/understudy/workspaces/interrupt-yes');
    expect(workspace.body.data.attributes.locked).toBe(false);
  }, 90_000);

  it('terraform apply: any other answer sends nothing and leaves the run planning', async () => {
    const { cli, transcript, runId } = await heldInPlanning('interrupt-no', 'apply', '-input=false');
    cli.kill('SIGINT');
    await transcript.until(QUESTION);
    cli.stdin.write('no\n');
    await transcript.exited;
    expect(transcript.text).toContain(NOT_CANCELED);
    expect(await cancels()).toBe(0);
    expect(await runStatus(server, runId)).toBe('planning');
  }, 90_000);
});
