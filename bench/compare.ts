/**
 * Two builds of understudy, one row: `node --import tsx bench/compare.ts <dist A> <dist B> <row>`
 * starts a server from each build's `main.js` (keep a copy of `dist/` inside the checkout, say in
 * `.bench/dist-a`, which git, lint and format ignore: the bundle finds `node_modules` from where it
 * lies), prepares every scenario whose name contains `<row>` on
 * both, and measures them in alternating rounds (A, B, A, B…), each row on a fresh pair of servers.
 *
 * It prints each side's median req/s and server CPU per request with their spread, and the
 * median of the per-round B/A ratios. CPU per request is the figure to trust on a busy machine:
 * a round's req/s moves with whatever else runs, its CPU per request much less. Settings:
 * `BENCH_ROUNDS` (pairs, default 7), `BENCH_DURATION` (seconds per round, default 1),
 * `BENCH_CONNECTIONS` (default 2). Rows with their own server or baseline are left out: this
 * compares the server, not the yardstick.
 */
import { join, resolve } from 'node:path';
import { killAll, startUnderstudy } from './processes.js';
import { alternate, cpuOf, preflight, quotients, rpsOf, spread, spreadText, type Side } from './rounds.js';
import type { Scenario } from './scenario.js';
import { allScenarios, positiveSetting } from './scenario-files.js';

async function scenariosNamed(part: string): Promise<Scenario[]> {
  return (await allScenarios()).filter(
    (scenario) => scenario.name.includes(part) && !scenario.ownServer && !scenario.baseline && !scenario.edition,
  );
}

async function compare(scenario: Scenario, distA: string, distB: string): Promise<void> {
  const servers = await Promise.all([distA, distB].map((dist) => startUnderstudy({}, join(dist, 'main.js'))));
  try {
    const sides: Side[] = [];
    for (const server of servers) {
      const request = await scenario.setup(server.target);
      const failure = await preflight(server.target.baseUrl, request);
      if (failure !== null) throw new Error(`${scenario.name}: ${failure}`);
      sides.push({ baseUrl: server.target.baseUrl, request, pid: server.pid, fresh: true });
    }
    const rounds = positiveSetting('BENCH_ROUNDS', 7);
    const [a = [], b = []] = await alternate(sides, {
      rounds,
      seconds: positiveSetting('BENCH_DURATION', 1),
      warmupSeconds: 4,
      freshWarmupSeconds: 4,
      connections: positiveSetting('BENCH_CONNECTIONS', 2),
    });
    process.stdout.write(
      [
        `${scenario.name}`,
        `  A req/s ${spreadText(spread(rpsOf(a)))}   server µs/req ${spreadText(spread(cpuOf(a)))}`,
        `  B req/s ${spreadText(spread(rpsOf(b)))}   server µs/req ${spreadText(spread(cpuOf(b)))}`,
        `  B/A by req/s ${spreadText(spread(quotients(rpsOf(b), rpsOf(a))), 3)}`,
        `  B/A by server CPU ${spreadText(spread(quotients(cpuOf(b), cpuOf(a))), 3)}`,
        '',
      ].join('\n'),
    );
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await scenario.teardown?.();
  }
}

const [distA, distB, part] = process.argv.slice(2);
if (distA === undefined || distB === undefined || part === undefined) {
  process.stderr.write('usage: node --import tsx bench/compare.ts <dist A> <dist B> <row name part>\n');
  process.exit(2);
}
try {
  const scenarios = await scenariosNamed(part);
  if (scenarios.length === 0) throw new Error(`no row without its own server or baseline has a name containing ${JSON.stringify(part)}`);
  for (const scenario of scenarios) await compare(scenario, resolve(distA), resolve(distB));
} catch (error) {
  process.stderr.write(`compare: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
} finally {
  killAll();
  // A scenario's setup may start a server in this process (a key-set server per setup) that its
  // teardown, written for the bench's single setup per row, does not close.
  process.exit();
}
