/**
 * `npm run bench`: throughput of every scenario in bench/scenarios/ against two baselines measured
 * in the same run (bench/baseline.ts), start-to-ready time of `node dist/main.js` and `npm start`,
 * and the goals of bench/goals.ts as ratios between those figures. Loopback only, bounded in
 * time, stops by itself. Results go to stdout and to .bench/results.json.
 *
 * Knobs (environment): BENCH_DURATION seconds per row (4), BENCH_CONNECTIONS (2),
 * BENCH_STARTS start-up samples (5), BENCH_ONLY runs only scenarios whose name contains it (or
 * any of its `|`-separated parts), BENCH_SOAK seconds of the soak row (60; the full soak
 * is 600, after a warm-up of a tenth of it), run when BENCH_ONLY is unset or `soak`;
 * BENCH_SOAK_HEAP_DIR makes it write heap snapshots there (bench/soak.ts).
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { allGoals, DOC_BASELINE, KV_BASELINE, START_NODE, START_NPM, type Figures } from './goals.js';
import { killAll, measureStartup, ROOT, startBaseline, startUnderstudy, type StartCommand } from './processes.js';
import { BASELINE_TOKEN } from './baseline-token.js';
import type { BenchRequest, BenchTarget, OwnServer, Scenario } from './scenario.js';
import { rssMb, soak, SOAK_GROWTH_GOAL, soakServerEnvironment, type SoakResult } from './soak.js';
import { preflightOverTls, tlsOptionsOf } from './tls-request.js';

function positiveInteger(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer (got ${JSON.stringify(text)})`);
  return value;
}

const settings = {
  durationSeconds: positiveInteger('BENCH_DURATION', 4),
  connections: positiveInteger('BENCH_CONNECTIONS', 2),
  starts: positiveInteger('BENCH_STARTS', 5),
  only: process.env.BENCH_ONLY ?? '',
  soakSeconds: positiveInteger('BENCH_SOAK', 60),
};
const WARMUP_SECONDS = 1;

interface Row {
  scenario: string;
  requestsPerSecond: number;
  /** autocannon records latency in whole milliseconds, so 0 means under one. */
  p99Ms: number;
  /** Throughput as a fraction of the document baseline's (token lookup + 2 KB document). */
  ratioToBaseline: number | null;
  /** The same against the bare primary-key baseline, the row earlier runs compared with. */
  ratioToKvBaseline: number | null;
  non2xx: number;
  errors: number;
  /** Set when the scenario could not be measured; the other figures are then zero. */
  failure?: string;
}

async function loadScenarios(): Promise<Scenario[]> {
  const dir = join(ROOT, 'bench', 'scenarios');
  const files = readdirSync(dir)
    .filter((file) => file.endsWith('.ts'))
    .sort();
  const all: Scenario[] = [];
  for (const file of files) {
    const module = (await import(pathToFileURL(join(dir, file)).href)) as { scenarios?: unknown };
    if (!Array.isArray(module.scenarios)) throw new Error(`bench/scenarios/${file} must export scenarios: Scenario[]`);
    all.push(...(module.scenarios as Scenario[]));
  }
  const parts = settings.only.split('|');
  return all.filter((scenario) => parts.some((part) => scenario.name.includes(part)));
}

async function hammer(baseUrl: string, request: BenchRequest, seconds: number) {
  const length = request.amount === undefined ? { duration: seconds } : { amount: request.amount * (request.followUp ? 2 : 1) };
  return autocannon({
    url: baseUrl + request.path,
    method: (request.method ?? 'GET') as autocannon.Request['method'],
    headers: request.headers ?? {},
    ...(request.body === undefined ? {} : { body: request.body }),
    ...(request.followUp ? { requests: followUpRequests(request, request.followUp) } : {}),
    ...tlsOptionsOf(request),
    connections: settings.connections,
    ...length,
  });
}

/** The first request, then the follow-up to the path its response names (per connection). */
function followUpRequests(request: BenchRequest, followUp: NonNullable<BenchRequest['followUp']>): autocannon.Request[] {
  return [
    {
      method: (request.method ?? 'GET') as autocannon.Request['method'],
      path: request.path,
      headers: request.headers ?? {},
      ...(request.body === undefined ? {} : { body: request.body }),
      onResponse: (_status: number, body: string, context: object) => {
        Object.assign(context, { next: followUp.pathFrom(body), nextHeaders: followUp.headersFrom?.(body) ?? {} });
      },
    },
    {
      method: followUp.method as autocannon.Request['method'],
      headers: followUp.headers ?? {},
      body: followUp.body,
      setupRequest: (next: autocannon.Request, context: object) => {
        const { next: path, nextHeaders } = context as { next?: string; nextHeaders?: Record<string, string> };
        return { ...next, path: String(path), headers: { ...next.headers, ...nextHeaders } };
      },
    },
  ];
}

/** A warm-up, then the measured run. */
async function measure(name: string, baseUrl: string, request: BenchRequest, baselines: Baselines | null): Promise<Row> {
  await hammer(baseUrl, request, WARMUP_SECONDS);
  const result = await hammer(baseUrl, request, settings.durationSeconds);
  const requestsPerSecond = Math.round(result.requests.average);
  const ratio = (baseline: number) => Math.round((requestsPerSecond / baseline) * 1000) / 1000;
  return {
    scenario: name,
    requestsPerSecond,
    p99Ms: result.latency.p99,
    ratioToBaseline: baselines === null ? null : ratio(baselines.doc),
    ratioToKvBaseline: baselines === null ? null : ratio(baselines.kv),
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

/** One request first: a scenario that answers 4xx/5xx would otherwise post a flattering figure. */
async function preflight(baseUrl: string, request: BenchRequest): Promise<string | null> {
  if (request.tls) return preflightOverTls(baseUrl, request);
  const response = await fetch(baseUrl + request.path, {
    method: request.method ?? 'GET',
    headers: request.headers ?? {},
    body: (request.body ?? null) as BodyInit | null,
  });
  const text = await response.text();
  if (response.status >= 400) return `preflight answered ${response.status}`;
  if (!request.followUp) return null;
  const { method, headers, body, pathFrom, headersFrom } = request.followUp;
  const second = await fetch(baseUrl + pathFrom(text), {
    method,
    headers: { ...headers, ...headersFrom?.(text) },
    body: new Uint8Array(body),
  });
  await second.arrayBuffer();
  return second.status >= 400 ? `preflight follow-up answered ${second.status}` : null;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

interface Baselines {
  doc: number;
  kv: number;
}

function printTable(rows: Row[]): void {
  const header = ['scenario', 'req/s', 'p99 ms', 'x doc baseline', 'x kv baseline', 'non-2xx'];
  const lines = rows.map((row) =>
    row.failure
      ? [row.scenario, '-', '-', '-', '-', row.failure]
      : [
          row.scenario,
          String(row.requestsPerSecond),
          row.p99Ms === 0 ? '<1' : String(row.p99Ms),
          row.ratioToBaseline === null ? '(baseline)' : row.ratioToBaseline.toFixed(3),
          row.ratioToKvBaseline === null ? '(baseline)' : row.ratioToKvBaseline.toFixed(3),
          String(row.non2xx + row.errors),
        ],
  );
  printColumns(header, lines);
}

interface GoalResult {
  goal: string;
  target: string;
  figure: number | null;
  met: boolean | null;
}

function evaluateGoals(rows: Row[], startMs: Map<string, number>): GoalResult[] {
  const figures: Figures = {
    rps: new Map(rows.filter((row) => !row.failure).map((row) => [row.scenario, row.requestsPerSecond])),
    startMs,
  };
  return allGoals().map((goal) => {
    const figure = goal.figure(figures);
    return { goal: goal.label, target: goal.target, figure: figure ?? null, met: figure === undefined ? null : goal.met(figure) };
  });
}

function printGoals(results: GoalResult[]): void {
  const lines = results.map((result) => [
    result.goal,
    result.target,
    result.figure === null ? '-' : result.figure >= 10 ? result.figure.toFixed(0) : result.figure.toFixed(2),
    result.met === null ? 'not measured' : result.met ? 'met' : 'NOT MET',
  ]);
  printColumns(['goal', 'target', 'figure', 'status'], lines);
}

function printColumns(header: string[], lines: string[][]): void {
  const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => (line[column] as string).length)));
  const format = (cells: string[]) =>
    cells
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column] as number) : cell.padStart(widths[column] as number)))
      .join('  ');
  console.log(format(header));
  console.log(widths.map((width) => '-'.repeat(width)).join('  '));
  for (const line of lines) console.log(format(line));
}

/** Measures each scenario on one understudy, resetting the store whenever the world changes. */
async function runScenarios(target: BenchTarget, scenarios: readonly Scenario[], baselines: Baselines, rows: Row[]): Promise<void> {
  let world: string | undefined;
  for (const scenario of scenarios) {
    // Each scenario starts from the seed, unless it shares the world of the one before it.
    if (scenario.world === undefined || scenario.world !== world) {
      await fetch(`${target.baseUrl}/_emulator/reset`, { method: 'POST' }).then((response) => response.arrayBuffer());
    }
    world = scenario.world;
    let ownServer: OwnServer | undefined;
    try {
      const own = scenario.baseline ? await measureOwnBaseline(scenario.baseline, target) : undefined;
      if (own) rows.push(own);
      ownServer = await scenario.ownServer?.();
      const measured = ownServer?.target ?? target;
      const request = await scenario.setup(measured);
      const failure = await preflight(measured.baseUrl, request);
      // A scenario with its own yardstick (the same work done directly) is compared to that.
      const yardstick = own ? { ...baselines, doc: own.requestsPerSecond } : baselines;
      rows.push(failure ? failedRow(scenario.name, failure) : await measure(scenario.name, measured.baseUrl, request, yardstick));
    } catch (error) {
      rows.push(failedRow(scenario.name, `setup failed: ${(error as Error).message}`));
      world = undefined;
    } finally {
      await ownServer?.stop();
      await scenario
        .teardown?.()
        .catch((error: unknown) => console.error(`bench: teardown of ${scenario.name} failed: ${(error as Error).message}`));
    }
  }
}

async function main(): Promise<void> {
  const scenarios = await loadScenarios();
  console.log(
    `bench: ${scenarios.length} scenario(s), ${settings.durationSeconds} s each after ${WARMUP_SECONDS} s warm-up, ` +
      `${settings.connections} connection(s), node ${process.version}, ${cpus().length} cpu(s)`,
  );

  const startups = new Map<string, number[]>();
  const startMs = new Map<string, number>();
  for (const [label, how] of [
    [START_NODE, 'node'],
    [START_NPM, 'npm'],
  ] as [string, StartCommand][]) {
    const samples: number[] = [];
    for (let run = 0; run < settings.starts; run += 1) samples.push(Math.round(await measureStartup(how)));
    startups.set(label, samples);
    startMs.set(label, median(samples));
    console.log(`start-to-ready, ${label} (spawn -> /_emulator/health 200): median ${median(samples)} ms of ${samples.join(', ')}`);
  }

  const baselineServer = await startBaseline();
  const rows: Row[] = [];
  try {
    rows.push(await measure(KV_BASELINE, baselineServer.baseUrl, { path: '/kv/4242' }, null));
    rows.push(
      await measure(
        DOC_BASELINE,
        baselineServer.baseUrl,
        { path: '/doc/doc-4242', headers: { authorization: `Bearer ${BASELINE_TOKEN}` } },
        null,
      ),
    );
  } finally {
    await baselineServer.stop();
  }
  const baselines: Baselines = { kv: (rows[0] as Row).requestsPerSecond, doc: (rows[1] as Row).requestsPerSecond };

  const understudy = await startUnderstudy(soakServerEnvironment());
  // Read before any request: the idle figure of a fresh server (issue 22 wants it under 150 MB).
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const rssAfterStartMb = understudy.pid === undefined ? 0 : rssMb(understudy.pid);
  let soaked: SoakResult | undefined;
  try {
    await runScenarios(
      understudy.target,
      scenarios.filter((scenario) => scenario.edition === undefined),
      baselines,
      rows,
    );
    if ((settings.only === '' || settings.only === 'soak') && understudy.pid !== undefined) {
      await fetch(`${understudy.target.baseUrl}/_emulator/reset`, { method: 'POST' }).then((response) => response.arrayBuffer());
      soaked = await soak(understudy.target, understudy.pid, settings.soakSeconds, settings.connections, rssAfterStartMb);
    }
  } finally {
    await understudy.stop();
  }
  // Rows of the hosted edition (the audit trail) run on a second understudy started as one.
  const hosted = scenarios.filter((scenario) => scenario.edition === 'hosted');
  if (hosted.length > 0) {
    const hostedUnderstudy = await startUnderstudy({ UNDERSTUDY_EDITION: 'hosted' });
    try {
      await runScenarios(hostedUnderstudy.target, hosted, baselines, rows);
    } finally {
      await hostedUnderstudy.stop();
    }
  }

  console.log('');
  printTable(rows);
  const goals = evaluateGoals(rows, startMs);
  console.log('');
  printGoals(goals);
  if (soaked) {
    const { seconds, warmupSeconds, requests, rssAfterWarmupMb, rssAfterSoakMb, rssIdleMb, growth, met } = soaked;
    console.log(
      `\nsoak: idle RSS after start ${soaked.rssAfterStartMb} MB; ` +
        `${seconds} s after ${warmupSeconds} s warm-up, ${requests} requests (${soaked.non2xx} non-2xx, ${soaked.errors} errors); ` +
        `RSS ${rssAfterWarmupMb} -> ${rssAfterSoakMb} MB (growth ${(growth * 100).toFixed(1)}%, goal < ${SOAK_GROWTH_GOAL * 100}%: ` +
        `${met ? 'met' : 'NOT MET'}), idle ${rssIdleMb} MB`,
    );
    if (soaked.heapSnapshots.length > 0)
      console.log(`heap snapshots in ${process.env.BENCH_SOAK_HEAP_DIR}: ${soaked.heapSnapshots.join(', ')}`);
  }
  const startToReadyMs = Object.fromEntries([...startups].map(([label, samples]) => [label, { median: median(samples), samples }]));
  const results = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    settings,
    startToReadyMs,
    rows,
    goals,
    soak: soaked ?? null,
  };
  mkdirSync(join(ROOT, '.bench'), { recursive: true });
  writeFileSync(join(ROOT, '.bench', 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  console.log('\nwritten to .bench/results.json');
}

/** A scenario's own yardstick, e.g. the same SQL issued directly; reported as its own row. */
async function measureOwnBaseline(baseline: NonNullable<Scenario['baseline']>, target: BenchTarget): Promise<Row> {
  const server = await baseline.start(target);
  try {
    return await measure(`baseline: ${baseline.name}`, server.baseUrl, server.request, null);
  } finally {
    await server.stop();
  }
}

function failedRow(scenario: string, failure: string): Row {
  return { scenario, requestsPerSecond: 0, p99Ms: 0, ratioToBaseline: null, ratioToKvBaseline: null, non2xx: 0, errors: 0, failure };
}

process.once('SIGINT', () => {
  killAll();
  process.exit(130);
});

main()
  .catch((error: unknown) => {
    process.stderr.write(`bench: ${(error as Error).message}\n`);
    process.exitCode = 1;
  })
  .finally(killAll);
