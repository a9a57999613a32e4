/**
 * Rows that bring their own server and their own baseline (whole simulated runs through the run
 * driver: dynamic credentials, notifications, policy checks), which bench/compare.ts leaves out:
 * `node --import tsx bench/compare-runs.ts <row name part> <dist> [<dist>…]` starts, for each
 * build, the row's server and its baseline's from that build's `main.js` (keep a copy of `dist/`
 * in `.bench/dist-a`, as for compare.ts), and measures all of them in alternating rounds (each
 * build's baseline, then its row, then the next build's…), so every ratio compares rounds seconds
 * apart.
 *
 * Per build it prints the baseline's and the row's runs/s and server CPU per run with their
 * spread, and the row's cost over its baseline, per round, by runs/s (what the bench's goal reads)
 * and by server CPU; with two builds, also the second's row over the first's. Settings as for
 * compare.ts: `BENCH_ROUNDS` (default 7), `BENCH_CONNECTIONS` (default 2); a round sends the
 * row's runs per round (bench/run-driver.ts), however many rounds there are.
 */
import { killAll, useBuild } from './processes.js';
import { alternate, cpuOf, preflight, quotients, rpsOf, spread, spreadText, type Round, type Side } from './rounds.js';
import type { BaselineServer, OwnServer, Scenario } from './scenario.js';
import { allScenarios, positiveSetting } from './scenario-files.js';

async function rowsNamed(part: string): Promise<Scenario[]> {
  return (await allScenarios()).filter((scenario) => scenario.name.includes(part) && scenario.ownServer && scenario.baseline);
}

/** What the row costs over its baseline, per round: baseline runs/s over the row's, row CPU over the baseline's. */
const costs = (row: readonly Round[], base: readonly Round[]) => ({
  byRps: spread(quotients(rpsOf(base), rpsOf(row))),
  byCpu: spread(quotients(cpuOf(row), cpuOf(base))),
});

async function compare(scenario: Scenario, dists: readonly string[]): Promise<void> {
  const baselines: BaselineServer[] = [];
  const rows: OwnServer[] = [];
  try {
    const sides: Side[] = [];
    for (const dist of dists) {
      useBuild(dist);
      const baseline = await (scenario.baseline as NonNullable<Scenario['baseline']>).start({ baseUrl: '', adminToken: '', rootToken: '' });
      baselines.push(baseline);
      const row = await (scenario.ownServer as NonNullable<Scenario['ownServer']>)();
      rows.push(row);
      const request = await scenario.setup(row.target);
      for (const [baseUrl, sent] of [
        [baseline.baseUrl, baseline.request],
        [row.target.baseUrl, request],
      ] as const) {
        const failure = await preflight(baseUrl, sent);
        if (failure !== null) throw new Error(`${scenario.name}: ${failure}`);
      }
      sides.push(
        { baseUrl: baseline.baseUrl, request: baseline.request, fresh: true, ...(baseline.pid === undefined ? {} : { pid: baseline.pid }) },
        { baseUrl: row.target.baseUrl, request, fresh: true, ...(row.pid === undefined ? {} : { pid: row.pid }) },
      );
    }
    const measured = await alternate(sides, {
      rounds: positiveSetting('BENCH_ROUNDS', 7),
      seconds: 1,
      warmupSeconds: 1,
      freshWarmupSeconds: 1,
      connections: positiveSetting('BENCH_CONNECTIONS', 2),
    });
    const lines = [scenario.name];
    dists.forEach((dist, index) => {
      const base = measured[2 * index] ?? [];
      const row = measured[2 * index + 1] ?? [];
      const { byRps, byCpu } = costs(row, base);
      lines.push(
        `  ${dist}`,
        `    baseline runs/s ${spreadText(spread(rpsOf(base)), 1)}   server µs/run ${spreadText(spread(cpuOf(base)))}`,
        `    row      runs/s ${spreadText(spread(rpsOf(row)), 1)}   server µs/run ${spreadText(spread(cpuOf(row)))}`,
        `    row cost over baseline: by runs/s ${spreadText(byRps, 3)}   by server CPU ${spreadText(byCpu, 3)}`,
      );
    });
    if (dists.length === 2) {
      const [baseA = [], rowA = [], baseB = [], rowB = []] = measured;
      const rowRps = spread(quotients(rpsOf(rowB), rpsOf(rowA)));
      const rowCpu = spread(quotients(cpuOf(rowB), cpuOf(rowA)));
      lines.push(
        `  B/A row by runs/s ${spreadText(rowRps, 3)}   by server CPU ${spreadText(rowCpu, 3)}`,
        `  B/A baseline by server CPU ${spreadText(spread(quotients(cpuOf(baseB), cpuOf(baseA))), 3)}`,
      );
    }
    process.stdout.write(`${lines.join('\n')}\n\n`);
  } finally {
    await Promise.all([...rows, ...baselines].map((server) => server.stop()));
    await scenario.teardown?.();
  }
}

const [part, ...dists] = process.argv.slice(2);
if (part === undefined || dists.length === 0) {
  process.stderr.write('usage: node --import tsx bench/compare-runs.ts <row name part> <dist> [<dist>…]\n');
  process.exit(2);
}
try {
  const scenarios = await rowsNamed(part);
  if (scenarios.length === 0) throw new Error(`no row with its own server and baseline has a name containing ${JSON.stringify(part)}`);
  for (const scenario of scenarios) await compare(scenario, dists);
} catch (error) {
  process.stderr.write(`compare-runs: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
} finally {
  killAll();
  process.exit();
}
