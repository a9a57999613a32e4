/**
 * `npm run bench`: throughput of every scenario in bench/scenarios/ against two baselines, spawn-to-
 * ready of `node dist/main.js` and `npm start` against a bare Node HTTP server's, and the goals of
 * bench/goals.ts. Every ratio is measured in alternating rounds (bench/rounds.ts): the document
 * baseline, then the row, again and again, so both sides see the same machine; a row's ratio is the
 * median of its per-round ratios, printed with their spread, and goals are judged on that median.
 * Loopback only, bounded in time, stops by itself. Results go to stdout and to .bench/results.json.
 *
 * Knobs (environment): BENCH_DURATION seconds per row and side, split across the rounds (4),
 * BENCH_ROUNDS pairs of rounds (5), BENCH_CONNECTIONS (2), BENCH_STARTS spawn-to-ready rounds (5),
 * BENCH_ONLY runs only scenarios whose name contains it (or any of its `|`-separated parts),
 * `BENCH_ONLY=start` only the spawn-to-ready rounds (printed, not written to .bench/results.json),
 * BENCH_SOAK seconds of the soak row (60; the full soak is 600, after a warm-up of a tenth
 * of it and at least 10 000 requests), run when BENCH_ONLY is unset or `soak`; BENCH_SOAK_HEAP_DIR makes it write heap
 * snapshots there (bench/soak.ts).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { DOC_BASELINE, KV_BASELINE, START_BARE, START_NODE, START_NPM } from './goals.js';
import { killAll, measureStartup, ROOT, START_NOISE, startBaseline, startUnderstudy, type StartCommand } from './processes.js';
import { BASELINE_TOKEN } from './baseline-token.js';
import { evaluateGoals, failedRow, printGoals, printTable, row, type Row, type Yardsticks } from './report.js';
import { alternate, median, preflight, quotients, spread, type RoundSettings, type Side } from './rounds.js';
import type { BenchTarget, OwnServer, Scenario } from './scenario.js';
import { allScenarios } from './scenario-files.js';
import { rssMb, soak, SOAK_GROWTH_GOAL, SOAK_PEAK_GOAL, soakServerEnvironment, type SoakResult } from './soak.js';

function positiveInteger(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer (got ${JSON.stringify(text)})`);
  return value;
}

const settings = {
  durationSeconds: positiveInteger('BENCH_DURATION', 4),
  rounds: positiveInteger('BENCH_ROUNDS', 5),
  connections: positiveInteger('BENCH_CONNECTIONS', 2),
  starts: positiveInteger('BENCH_STARTS', 5),
  only: process.env.BENCH_ONLY ?? '',
  soakSeconds: positiveInteger('BENCH_SOAK', 60),
};
const roundSettings: RoundSettings = {
  rounds: settings.rounds,
  seconds: settings.durationSeconds / settings.rounds,
  warmupSeconds: 1,
  freshWarmupSeconds: 4,
  connections: settings.connections,
};

async function loadScenarios(): Promise<Scenario[]> {
  const parts = settings.only.split('|');
  return (await allScenarios()).filter((scenario) => parts.some((part) => scenario.name.includes(part)));
}

/** What every row is measured beside, and how to start a fresh understudy for rows that want one. */
interface Context {
  document: Side;
  yardsticks: Yardsticks;
  /** The shared understudy's process. */
  sharedPid: number | undefined;
  startFresh(): Promise<OwnServer>;
}

/** Measures each scenario in rounds beside the document baseline, resetting the store whenever the world changes. */
async function runScenarios(target: BenchTarget, scenarios: readonly Scenario[], context: Context, rows: Row[]): Promise<void> {
  let world: string | undefined;
  for (const scenario of scenarios) {
    const fresh = scenario.fresh === true && scenario.ownServer === undefined;
    // Each scenario starts from the seed, unless it shares the world of the one before it.
    if (!fresh && (scenario.world === undefined || scenario.world !== world)) {
      await fetch(`${target.baseUrl}/_emulator/reset`, { method: 'POST' }).then((response) => response.arrayBuffer());
      world = scenario.world;
    }
    let ownServer: OwnServer | undefined;
    let ownBaseline: Awaited<ReturnType<NonNullable<Scenario['baseline']>['start']>> | undefined;
    try {
      ownBaseline = await scenario.baseline?.start(target);
      ownServer = await (scenario.ownServer?.() ?? (fresh ? context.startFresh() : undefined));
      const measured = ownServer?.target ?? target;
      const request = await scenario.setup(measured);
      const failure = await preflight(measured.baseUrl, request);
      if (failure) {
        rows.push(failedRow(scenario.name, failure));
        continue;
      }
      const own = ownBaseline && { baseUrl: ownBaseline.baseUrl, request: ownBaseline.request, pid: ownBaseline.pid };
      const measuredPid = ownServer ? ownServer.pid : context.sharedPid;
      const sides = [
        context.document,
        ...(own ? [{ ...own, fresh: true }] : []),
        { baseUrl: measured.baseUrl, request, pid: measuredPid, fresh: ownServer !== undefined },
      ];
      const [document, ...rest] = await alternate(sides, roundSettings);
      const measuredRounds = rest[rest.length - 1] ?? [];
      const ownRounds = own ? rest[0] : undefined;
      if (ownRounds && scenario.baseline) rows.push(row(`baseline: ${scenario.baseline.name}`, ownRounds, document ?? [], null, null));
      // A scenario with its own yardstick (the same work done directly) is compared to that.
      rows.push(row(scenario.name, measuredRounds, document ?? [], ownRounds ?? document ?? [], context.yardsticks));
    } catch (error) {
      rows.push(failedRow(scenario.name, `setup failed: ${(error as Error).message}`));
      if (!fresh) world = undefined;
    } finally {
      await ownServer?.stop();
      await ownBaseline?.stop();
      await scenario
        .teardown?.()
        .catch((error: unknown) => console.error(`bench: teardown of ${scenario.name} failed: ${(error as Error).message}`));
    }
  }
}

/** The machine first: what it is, how busy, and what its yardsticks measure on it now. */
function printMachine(): { cpu: string; cores: number; loadAverage: number[] } {
  const cpu = cpus()[0]?.model ?? 'unknown';
  const machine = { cpu, cores: cpus().length, loadAverage: loadavg().map((load) => Math.round(load * 100) / 100) };
  console.log(`machine: ${machine.cpu}, ${machine.cores} core(s), load average ${machine.loadAverage.join(' ')}, node ${process.version}`);
  const noise = START_NOISE.filter((name) => process.env[name] !== undefined);
  if (noise.length > 0) console.log(`timed start-ups run without ${noise.join(', ')} (set here; see bench/processes.ts)`);
  return machine;
}

/** Spawn-to-ready in rounds: the bare server, `node dist/main.js`, `npm start`, again and again. */
async function measureStarts(): Promise<Map<string, number[]>> {
  const commands: [string, StartCommand][] = [
    [START_BARE, 'bare'],
    [START_NODE, 'node'],
    [START_NPM, 'npm'],
  ];
  const samples = new Map<string, number[]>(commands.map(([label]) => [label, []]));
  for (let index = 0; index < settings.starts; index += 1) {
    for (const [label, how] of commands) samples.get(label)?.push(Math.round(await measureStartup(how)));
  }
  const bare = samples.get(START_BARE) ?? [];
  for (const [label, values] of samples) {
    const ratio =
      label === START_BARE
        ? ''
        : `; x bare per round: median ${fixed(median(quotients(values, bare)))} (${range(quotients(values, bare))})`;
    console.log(`spawn to ready, ${label}: median ${median(values)} ms (${range(values, 0)})${ratio}`);
  }
  return samples;
}

const fixed = (value: number, digits = 2) => value.toFixed(digits);
function range(values: number[], digits = 2): string {
  const found = spread(values);
  return found === null ? '-' : `${fixed(found.min, digits)}-${fixed(found.max, digits)}`;
}

async function main(): Promise<void> {
  const scenarios = await loadScenarios();
  const machine = printMachine();
  console.log(
    `bench: ${scenarios.length} scenario(s), each measured in ${settings.rounds} alternating rounds of ` +
      `${fixed(roundSettings.seconds)} s beside the document baseline (after a ${roundSettings.warmupSeconds} s warm-up, ` +
      `${roundSettings.freshWarmupSeconds} s on a server started for the row), ` +
      `${settings.connections} connection(s)`,
  );
  const startRounds = await measureStarts();
  if (settings.only === 'start') return;

  const baselineServer = await startBaseline();
  const rows: Row[] = [];
  try {
    const document: Side = {
      baseUrl: baselineServer.baseUrl,
      request: { path: '/doc/doc-4242', headers: { authorization: `Bearer ${BASELINE_TOKEN}` } },
      pid: baselineServer.pid,
    };
    const [kvRounds = [], documentRounds = []] = await alternate(
      [{ baseUrl: baselineServer.baseUrl, request: { path: '/kv/4242' }, pid: baselineServer.pid }, document],
      roundSettings,
    );
    const kv = kvRounds.map((one) => one.requestsPerSecond);
    const doc = documentRounds.map((one) => one.requestsPerSecond);
    const yardsticks: Yardsticks = { documentMedian: median(doc), kvPerDocument: median(quotients(kv, doc)) };
    rows.push(row(KV_BASELINE, kvRounds, documentRounds, null, null), row(DOC_BASELINE, documentRounds, documentRounds, null, null));
    console.log(`${KV_BASELINE}: median ${Math.round(median(kv))} req/s (${range(kv, 0)})`);
    console.log(`${DOC_BASELINE}: median ${Math.round(median(doc))} req/s (${range(doc, 0)})`);
    const soaked = await measureUnderstudy(scenarios, document, yardsticks, rows);
    report(machine, startRounds, rows, yardsticks, soaked);
  } finally {
    await baselineServer.stop();
  }
}

/** The soak row on a fresh understudy: its idle RSS read before any request, then warm-up and soak. */
async function soakOnFreshServer(): Promise<SoakResult | undefined> {
  const understudy = await startUnderstudy(soakServerEnvironment());
  try {
    if (understudy.pid === undefined) return undefined;
    // Two quiet seconds after start: the idle figure of a fresh server (issue 22 wants it under 150 MB).
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const rssAfterStartMb = rssMb(understudy.pid);
    return await soak(understudy.target, understudy.pid, settings.soakSeconds, settings.connections, rssAfterStartMb);
  } finally {
    await understudy.stop();
  }
}

/** The scenarios on a shared understudy (and a hosted one), fresh ones where a row asks, then the soak on its own. */
async function measureUnderstudy(scenarios: readonly Scenario[], document: Side, yardsticks: Yardsticks, rows: Row[]) {
  const freshStarter = (overrides: Record<string, string>) => async (): Promise<OwnServer> => {
    const server = await startUnderstudy(overrides);
    return { target: server.target, ...(server.pid === undefined ? {} : { pid: server.pid }), stop: () => server.stop() };
  };
  const standard = scenarios.filter((scenario) => scenario.edition === undefined);
  if (standard.length > 0) {
    const understudy = await startUnderstudy({});
    try {
      await runScenarios(
        understudy.target,
        standard,
        { document, yardsticks, sharedPid: understudy.pid, startFresh: freshStarter({}) },
        rows,
      );
    } finally {
      await understudy.stop();
    }
  }
  // The soak on a server of its own: after the rows' big worlds (100,000-row stores), even a reset
  // server holds their memory, and its idle figure would not be the idle of the server soaked.
  const soaked = settings.only === '' || settings.only === 'soak' ? await soakOnFreshServer() : undefined;
  // Rows of the hosted edition (the audit trail) run on a second understudy started as one.
  const hosted = scenarios.filter((scenario) => scenario.edition === 'hosted');
  if (hosted.length > 0) {
    const edition = { UNDERSTUDY_EDITION: 'hosted' };
    const hostedUnderstudy = await startUnderstudy(edition);
    try {
      await runScenarios(
        hostedUnderstudy.target,
        hosted,
        { document, yardsticks, sharedPid: hostedUnderstudy.pid, startFresh: freshStarter(edition) },
        rows,
      );
    } finally {
      await hostedUnderstudy.stop();
    }
  }
  return soaked;
}

/** The soak row: its RSS figures and its two goals. */
function printSoak(soaked: SoakResult): void {
  const { seconds, warmupSeconds, requests, rssAfterStartMb, rssAfterWarmupMb, rssAfterSoakMb, rssPeakMb, rssIdleMb } = soaked;
  const verdict = (met: boolean) => (met ? 'met' : 'NOT MET');
  console.log(
    `\nsoak: ${seconds} s after a warm-up of ${warmupSeconds} s and ${soaked.warmupRequests} requests, ` +
      `${requests} requests (${soaked.non2xx} non-2xx, ${soaked.errors} errors)\n` +
      `  RSS idle ${rssAfterStartMb} MB, after warm-up ${rssAfterWarmupMb} MB, after soak ${rssAfterSoakMb} MB, peak ${rssPeakMb} MB, ` +
      `2 s later ${rssIdleMb} MB\n` +
      `  growth after warm-up ${(soaked.growth * 100).toFixed(1)}% (goal < ${SOAK_GROWTH_GOAL * 100}%: ${verdict(soaked.growthMet)}), ` +
      `peak / idle ${soaked.peakRatio} (goal < ${SOAK_PEAK_GOAL}: ${verdict(soaked.peakMet)})`,
  );
  if (soaked.heapSnapshots.length > 0)
    console.log(`  heap snapshots in ${process.env.BENCH_SOAK_HEAP_DIR}: ${soaked.heapSnapshots.join(', ')}`);
}

function report(
  machine: ReturnType<typeof printMachine>,
  startRounds: Map<string, number[]>,
  rows: Row[],
  yardsticks: Yardsticks,
  soaked: SoakResult | undefined,
): void {
  console.log('');
  printTable(rows);
  const goals = evaluateGoals(rows, yardsticks.documentMedian, startRounds);
  console.log('');
  printGoals(goals);
  if (soaked) printSoak(soaked);
  const startToReadyMs = Object.fromEntries([...startRounds].map(([label, samples]) => [label, { ...spread(samples), samples }]));
  const results = {
    date: new Date().toISOString(),
    machine,
    node: process.version,
    settings,
    baselines: yardsticks,
    startToReadyMs,
    rows,
    goals,
    soak: soaked ?? null,
  };
  mkdirSync(join(ROOT, '.bench'), { recursive: true });
  writeFileSync(join(ROOT, '.bench', 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  console.log('\nwritten to .bench/results.json');
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
