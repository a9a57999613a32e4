/**
 * `npm run bench`: throughput of every scenario in bench/scenarios/ against a bare Fastify +
 * SQLite baseline measured in the same run, plus start-to-ready time. Loopback only, bounded in
 * time, stops by itself. Results go to stdout and to .bench/results.json.
 *
 * Knobs (environment): BENCH_DURATION seconds per row (5), BENCH_CONNECTIONS (2),
 * BENCH_STARTS start-up samples (5), BENCH_ONLY runs only scenarios whose name contains it.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { killAll, measureStartup, ROOT, startBaseline, startUnderstudy } from './processes.js';
import type { BenchRequest, Scenario } from './scenario.js';

function positiveInteger(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer (got ${JSON.stringify(text)})`);
  return value;
}

const settings = {
  durationSeconds: positiveInteger('BENCH_DURATION', 5),
  connections: positiveInteger('BENCH_CONNECTIONS', 2),
  starts: positiveInteger('BENCH_STARTS', 5),
  only: process.env.BENCH_ONLY ?? '',
};
const WARMUP_SECONDS = 1;

interface Row {
  scenario: string;
  requestsPerSecond: number;
  /** autocannon records latency in whole milliseconds, so 0 means under one. */
  p99Ms: number;
  ratioToBaseline: number | null;
  non2xx: number;
  errors: number;
  /** Set when the scenario could not be measured; the other figures are then zero. */
  failure?: string;
}

async function loadScenarios(): Promise<Scenario[]> {
  const dir = join(ROOT, 'bench', 'scenarios');
  const files = readdirSync(dir).filter((file) => file.endsWith('.ts')).sort();
  const all: Scenario[] = [];
  for (const file of files) {
    const module = (await import(pathToFileURL(join(dir, file)).href)) as { scenarios?: unknown };
    if (!Array.isArray(module.scenarios)) throw new Error(`bench/scenarios/${file} must export scenarios: Scenario[]`);
    all.push(...(module.scenarios as Scenario[]));
  }
  return all.filter((scenario) => scenario.name.includes(settings.only));
}

async function hammer(baseUrl: string, request: BenchRequest, seconds: number) {
  return autocannon({
    url: baseUrl + request.path,
    method: (request.method ?? 'GET') as autocannon.Request['method'],
    headers: request.headers ?? {},
    ...(request.body === undefined ? {} : { body: request.body }),
    connections: settings.connections,
    duration: seconds,
  });
}

/** A warm-up, then the measured run. */
async function measure(name: string, baseUrl: string, request: BenchRequest, baseline: number | null): Promise<Row> {
  await hammer(baseUrl, request, WARMUP_SECONDS);
  const result = await hammer(baseUrl, request, settings.durationSeconds);
  const requestsPerSecond = Math.round(result.requests.average);
  return {
    scenario: name,
    requestsPerSecond,
    p99Ms: result.latency.p99,
    ratioToBaseline: baseline === null ? null : Math.round((requestsPerSecond / baseline) * 1000) / 1000,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

/** One request first: a scenario that answers 4xx/5xx would otherwise post a flattering figure. */
async function preflight(baseUrl: string, request: BenchRequest): Promise<string | null> {
  const response = await fetch(baseUrl + request.path, { method: request.method ?? 'GET', headers: request.headers ?? {}, body: request.body ?? null });
  await response.arrayBuffer();
  return response.status >= 400 ? `preflight answered ${response.status}` : null;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

function printTable(rows: Row[]): void {
  const header = ['scenario', 'req/s', 'p99 ms', 'x baseline', 'non-2xx'];
  const lines = rows.map((row) =>
    row.failure
      ? [row.scenario, '-', '-', '-', row.failure]
      : [row.scenario, String(row.requestsPerSecond), row.p99Ms === 0 ? '<1' : String(row.p99Ms), row.ratioToBaseline === null ? '1 (baseline)' : row.ratioToBaseline.toFixed(3), String(row.non2xx + row.errors)],
  );
  const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => (line[column] as string).length)));
  const format = (cells: string[]) => cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] as number) : cell.padStart(widths[column] as number))).join('  ');
  console.log(format(header));
  console.log(widths.map((width) => '-'.repeat(width)).join('  '));
  for (const line of lines) console.log(format(line));
}

async function main(): Promise<void> {
  const scenarios = await loadScenarios();
  console.log(`bench: ${scenarios.length} scenario(s), ${settings.durationSeconds} s each after ${WARMUP_SECONDS} s warm-up, ${settings.connections} connection(s), node ${process.version}, ${cpus().length} cpu(s)`);

  const startups: number[] = [];
  for (let run = 0; run < settings.starts; run += 1) startups.push(Math.round(await measureStartup()));
  console.log(`start-to-ready (spawn -> /_emulator/health 200): median ${median(startups)} ms of ${startups.join(', ')}`);

  const baselineServer = await startBaseline();
  let baselineRow: Row;
  try {
    baselineRow = await measure('baseline: fastify + sqlite pk select', baselineServer.baseUrl, { path: '/kv/4242' }, null);
  } finally {
    await baselineServer.stop();
  }

  const rows: Row[] = [baselineRow];
  const understudy = await startUnderstudy();
  try {
    const { target } = understudy;
    for (const scenario of scenarios) {
      // Each scenario starts from the seed, whatever the one before it created.
      await fetch(`${target.baseUrl}/_emulator/reset`, { method: 'POST' }).then((response) => response.arrayBuffer());
      try {
        const request = await scenario.setup(target);
        const failure = await preflight(target.baseUrl, request);
        rows.push(failure ? failedRow(scenario.name, failure) : await measure(scenario.name, target.baseUrl, request, baselineRow.requestsPerSecond));
      } catch (error) {
        rows.push(failedRow(scenario.name, `setup failed: ${(error as Error).message}`));
      }
    }
  } finally {
    await understudy.stop();
  }

  console.log('');
  printTable(rows);
  const results = { date: new Date().toISOString(), node: process.version, cpus: cpus().length, settings, startToReadyMs: { median: median(startups), samples: startups }, rows };
  mkdirSync(join(ROOT, '.bench'), { recursive: true });
  writeFileSync(join(ROOT, '.bench', 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  console.log('\nwritten to .bench/results.json');
}

function failedRow(scenario: string, failure: string): Row {
  return { scenario, requestsPerSecond: 0, p99Ms: 0, ratioToBaseline: null, non2xx: 0, errors: 0, failure };
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
