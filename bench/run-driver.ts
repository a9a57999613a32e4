import { createServer, type Server } from 'node:http';
import { gzipSync } from 'node:zlib';
import tar from 'tar-stream';
import { call } from './platform-setup.js';
import { startUnderstudy, type Understudy } from './processes.js';
import type { BaselineServer, BenchTarget, OwnServer, Scenario } from './scenario.js';

/**
 * A driver for rows that measure a whole simulated run (plan and auto-apply), which is not one
 * request: each request to the driver creates a run on a workspace of its own and advances it
 * (manual progression, so every step answers once the run has stopped again: no polling) until it
 * stops for good, answering 200 when it applied. A row and its yardstick run the same driver
 * against a fresh understudy, differing only in what `prepare` adds, so their ratio is that cost.
 */

export const RUN_ORG = 'understudy';
/** More than any BENCH_CONNECTIONS one would use: each request in flight takes one. */
const WORKSPACES = 16;
/**
 * Runs in each round, the warm-up's included: every side of a row runs as many (a run applies and
 * keeps a state version, so the rows' stores stay alike), and a round of 40 runs (some half a
 * second) is timed to a few percent. A fixed total shared out over the rounds, as before, gave 22
 * runs a round at BENCH_ROUNDS=9: a quarter of a second, read to the server's 10 ms CPU ticks, so
 * the notification row's per-round ratio spread 0.86-1.27 by CPU against 1.03-1.14 with rounds of
 * 100 runs, on a margin of 10%.
 */
export const RUNS_PER_ROUND = 40;
const TERMINAL = new Set(['applied', 'errored', 'discarded', 'canceled', 'planned_and_finished', 'policy_soft_failed']);

export interface RunDriverOptions {
  /** Workspace names are `<prefix><index>`. */
  prefix: string;
  /** Once, before the workspaces: answers what every workspace gets (`env` variables). */
  setup?(target: BenchTarget): Promise<Record<string, string>>;
  /** Each workspace, after its configuration was uploaded. */
  prepare?(target: BenchTarget, workspaceId: string): Promise<void>;
  /** Stops what `setup` started (a receiver), after the understudy. */
  teardown?(): Promise<void>;
  /** More of the understudy's environment (a profiling hook in NODE_OPTIONS). */
  env?: Record<string, string>;
}

async function tarball(main: string): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  pack.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
  const ended = new Promise<void>((resolve) => pack.on('end', () => resolve()));
  pack.entry({ name: 'main.tf' }, main);
  pack.finalize();
  await ended;
  return gzipSync(Buffer.concat(chunks));
}

/** A workspace under manual progression with a configuration uploaded and these `env` variables. */
async function prepareWorkspace(target: BenchTarget, name: string, env: Record<string, string>): Promise<string> {
  const workspace = await call(target, 'POST', `/api/v2/organizations/${RUN_ORG}/workspaces`, {
    data: { type: 'workspaces', attributes: { name, 'auto-apply': true } },
  });
  const id = workspace.data.id;
  for (const [key, value] of Object.entries(env))
    await call(target, 'POST', `/api/v2/workspaces/${id}/vars`, { data: { type: 'vars', attributes: { key, value, category: 'env' } } });
  const version = await call<{ data: { attributes: { 'upload-url': string } } }>(
    target,
    'POST',
    `/api/v2/workspaces/${id}/configuration-versions`,
    { data: { type: 'configuration-versions', attributes: { 'auto-queue-runs': false } } },
  );
  const uploaded = await fetch(version.data.attributes['upload-url'], {
    method: 'PUT',
    headers: { 'content-type': 'application/octet-stream' },
    body: new Uint8Array(await tarball('resource "terraform_data" "a" {\n  input = "bench"\n}\n')),
  });
  if (uploaded.status !== 200) throw new Error(`configuration upload: ${uploaded.status}`);
  await call(target, 'PUT', '/_emulator/runs/progression', { mode: 'manual', workspace: id }, false);
  return id;
}

/** One whole run on `workspace`: created, then advanced until it stops for good; its final status. */
async function wholeRun(target: BenchTarget, workspace: string, built: Set<string>): Promise<string> {
  // Create and destroy in turn, so that every plan has a change to apply.
  const destroy = built.has(workspace);
  const run = await call(target, 'POST', '/api/v2/runs', {
    data: {
      type: 'runs',
      attributes: { 'is-destroy': destroy },
      relationships: { workspace: { data: { type: 'workspaces', id: workspace } } },
    },
  });
  for (let step = 0; step < 20; step++) {
    const answer = await fetch(`${target.baseUrl}/_emulator/runs/${run.data.id}/advance`, { method: 'POST' });
    const state = (await answer.json()) as { status?: string; error?: string };
    if (answer.status !== 200) return `advance answered ${answer.status}: ${state.error ?? ''}`;
    if (state.status === 'applied') {
      if (destroy) built.delete(workspace);
      else built.add(workspace);
    }
    if (state.status !== undefined && TERMINAL.has(state.status)) return state.status;
  }
  return 'still running after 20 steps';
}

/** A fresh understudy and, in front of it, the driver: `POST /run` answers 200 once a whole run is applied. */
export async function runDriver(options: RunDriverOptions): Promise<OwnServer> {
  const understudy: Understudy = await startUnderstudy({ ...options.env, UNDERSTUDY_EXECUTOR: 'simulated' });
  let driver: Server | undefined;
  const stopAll = async () => {
    await understudy.stop();
    await options.teardown?.();
  };
  try {
    const target = understudy.target;
    const env = (await options.setup?.(target)) ?? {};
    const free: string[] = [];
    for (let index = 0; index < WORKSPACES; index++) {
      const id = await prepareWorkspace(target, `${options.prefix}${index}`, env);
      await options.prepare?.(target, id);
      free.push(id);
    }
    /** Workspaces whose last run created the resource: their next run destroys it. */
    const built = new Set<string>();
    driver = createServer((request, response) => {
      request.resume();
      const workspace = free.pop();
      if (workspace === undefined) return void response.writeHead(503).end('no free workspace');
      wholeRun(target, workspace, built)
        .then((status) => response.writeHead(status === 'applied' ? 200 : 500).end(status))
        .catch((error: unknown) => response.writeHead(500).end((error as Error).message))
        .finally(() => free.push(workspace));
    });
    await new Promise<void>((resolve) => driver?.listen(0, '127.0.0.1', resolve));
    const port = (driver.address() as { port: number }).port;
    const listening = driver;
    return {
      target: { ...target, baseUrl: `http://127.0.0.1:${port}` },
      // The driver runs in the bench's process: the CPU read is the understudy's alone.
      ...(understudy.pid === undefined ? {} : { pid: understudy.pid }),
      stop: async () => {
        await new Promise<void>((resolve) => listening.close(() => resolve()));
        await stopAll();
      },
    };
  } catch (error) {
    driver?.close();
    await stopAll();
    throw error;
  }
}

/** A passing policy of `kind` in a global set of its own: every bench workspace's runs meet it. */
export async function globalPolicySet(target: BenchTarget, kind: 'sentinel' | 'opa'): Promise<void> {
  const policy = await call(target, 'POST', `/api/v2/organizations/${RUN_ORG}/policies`, {
    data: {
      type: 'policies',
      attributes: {
        name: `bench-${kind}`,
        kind,
        ...(kind === 'opa' ? { query: 'data.bench.deny', 'enforcement-level': 'mandatory' } : { 'enforcement-level': 'hard-mandatory' }),
      },
    },
  });
  const uploaded = await fetch(`${target.baseUrl}/api/v2/policies/${policy.data.id}/upload`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${target.adminToken}`, 'content-type': 'application/octet-stream' },
    body: kind === 'opa' ? 'package bench\n\ndeny[msg] { false }\n' : 'main = rule { true }\n',
  });
  if (uploaded.status !== 204) throw new Error(`policy upload: ${uploaded.status}`);
  await call(target, 'POST', `/api/v2/organizations/${RUN_ORG}/policy-sets`, {
    data: {
      type: 'policy-sets',
      attributes: { name: `bench-${kind}-set`, kind, global: true },
      relationships: { policies: { data: [{ type: 'policies', id: policy.data.id }] } },
    },
  });
}

/** What a run row asks of its driver. */
export const runRequest = async () => ({ method: 'POST', path: '/run', amountPerRound: RUNS_PER_ROUND });

/**
 * The plain run on an understudy of its own, as a row's own baseline: measured in the same
 * alternating rounds as the row (plain, row, plain, row…), so each round's ratio compares runs
 * seconds apart, which holds on a busy machine better than two rows measured minutes apart.
 */
export function plainRun(name: string, prefix: string): NonNullable<Scenario['baseline']> {
  return {
    name,
    start: async (): Promise<BaselineServer> => {
      const own = await runDriver({ prefix });
      return {
        baseUrl: own.target.baseUrl,
        request: await runRequest(),
        ...(own.pid === undefined ? {} : { pid: own.pid }),
        stop: () => own.stop(),
      };
    },
  };
}
