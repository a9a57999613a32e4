import { execFileSync } from 'node:child_process';
import { chmodSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform, startServer, type TestServer } from '../helpers/app.js';
import { requireTerraform, startTerraformPiped, terraform } from '../helpers/terraform.js';
import { Transcript, cloudBlock, journalCount, runStatus, untilRunStatus } from './interrupt-helpers.js';

/**
 * The same interrupts with the real terraform executor, whose plan waits on a FIFO the test
 * holds: the run's terraform reads a `terraform_remote_state` from a local path that is a named
 * pipe, so it blocks in `Refreshing...` until the test writes. The plan log saying `Refreshing...` is
 * the event the test waits for; nothing waits for a fixed time.
 */
const version = requireTerraform('the Ctrl-C tests with the terraform executor');

const gated = (workspace: string, fifo: string) => `${cloudBlock(workspace)}
data "terraform_remote_state" "gate" {
  backend = "local"
  config = { path = "${fifo}" }
}
# Planned only after the gate's read, so an interrupted terraform never gets to it.
resource "terraform_data" "greeting" {
  input = "hello"
  depends_on = [data.terraform_remote_state.gate]
}
`;

/** A valid empty state for the gate to give once released (serial, lineage and outputs are what the reader needs). */
const EMPTY_STATE = JSON.stringify({ version: 4, terraform_version: '1.0.0', serial: 1, lineage: 'gate', outputs: {}, resources: [] });

describe.skipIf(version === null)('Ctrl-C while the terraform executor plans', () => {
  let server: TestServer;
  const directories: string[] = [];
  const directory = () => {
    const made = mkdtempSync(join(tmpdir(), 'understudy-interrupt-'));
    directories.push(made);
    return made;
  };
  beforeAll(async () => {
    server = await startServer({ UNDERSTUDY_EXECUTOR: 'terraform' });
  });
  afterAll(async () => {
    await server?.close();
    for (const made of directories) rmSync(made, { recursive: true, force: true });
  });

  /** A named pipe the run's (possibly unprivileged) user can read. */
  function gate(): string {
    const dir = directory();
    chmodSync(dir, 0o755);
    const fifo = join(dir, 'gate.tfstate');
    execFileSync('mkfifo', ['-m', '0666', fifo]);
    return fifo;
  }

  /**
   * Opens the gate and waits for the run to reach `status`. The gate's writer opens once the run's
   * terraform opens the pipe to read (an event of the pipe itself); a run that ends without reading
   * it (killed after its grace period) is followed by a read end of the test's own, which lets the
   * pending open complete, so nothing is left waiting.
   */
  async function releaseUntil(fifo: string, runId: string, status: string) {
    const writer = open(fifo, constants.O_WRONLY).then(async (handle) => {
      await handle.write(EMPTY_STATE).catch(() => undefined); // a reader that left early: nothing to give
      await handle.close();
    });
    await untilRunStatus(server, runId, status);
    const drain = await open(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    await writer;
    await drain.close();
  }

  async function planLog(runId: string): Promise<string> {
    const shown = await platform(server, 'GET', `/runs/${runId}?include=plan`);
    return (await fetch(shown.body.included[0].attributes['log-read-url'])).text();
  }

  /** Starts the CLI and waits until the run's terraform is blocked reading the gate. */
  async function startBlocked(workspace: string, fifo: string, ...args: string[]) {
    const dir = directory();
    writeFileSync(join(dir, 'main.tf'), gated(workspace, fifo));
    expect((await terraform(dir, server.baseUrl, 'init', '-input=false')).status).toBe(0);
    const cli = startTerraformPiped(dir, server.baseUrl, ...args);
    const transcript = new Transcript(cli);
    const runId = (await transcript.until(/\/runs\/(run-[A-Za-z0-9]+)/))[1]!;
    // The CLI echoes the plan log as it streams: the executor's terraform is now reading the gate
    // (structured run output, on by default, words the read `Refreshing...`, as `plan -json` does).
    await transcript.until('data.terraform_remote_state.gate: Refreshing...');
    expect(await runStatus(server, runId)).toBe('planning');
    return { cli, transcript, runId };
  }

  it('apply -auto-approve: the CLI cancels without asking; terraform is interrupted and the run ends canceled', async () => {
    const fifo = gate();
    const { cli, transcript, runId } = await startBlocked('executor-cancel', fifo, 'apply', '-input=false', '-auto-approve');
    cli.kill('SIGINT');
    await transcript.exited;
    expect(transcript.text).toContain('The remote operation was successfully cancelled.');
    expect(transcript.text).not.toContain('Do you want to cancel the remote operation?');
    expect(await journalCount(server, { method: 'POST', path: `/api/v2/runs/${runId}/actions/cancel` })).toBe(1);

    // terraform has been sent its interrupt; once its read returns it stops instead of planning on
    // (or, past its grace period, it is killed).
    await releaseUntil(fifo, runId, 'canceled');
    const log = await planLog(runId);
    expect(log).toContain('Interrupt received.');
    expect(log).toContain('was interrupted: the run was canceled.');
    expect(log).not.toContain('Plan: 1 to add');
    const workspace = await platform(server, 'GET', '/organizations/understudy/workspaces/executor-cancel');
    expect(workspace.body.data.attributes.locked).toBe(false);
  }, 120_000);

  it('plan: the CLI leaves, and the real plan finishes remotely', async () => {
    const fifo = gate();
    const { cli, transcript, runId } = await startBlocked('executor-plan', fifo, 'plan', '-input=false');
    cli.kill('SIGINT');
    await transcript.exited;
    expect(await journalCount(server, { method: 'POST', path: `/api/v2/runs/${runId}/actions/cancel` })).toBe(0);
    await releaseUntil(fifo, runId, 'planned_and_finished');
    expect(await planLog(runId)).toContain('Plan: 1 to add, 0 to change, 0 to destroy.');
  }, 120_000);
});
