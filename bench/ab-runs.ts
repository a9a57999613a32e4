/**
 * Two builds, one whole-run row: `node --import tsx bench/ab-runs.ts <dist A> <dist B> [policies|plain|cost]`
 * starts the run driver (bench/run-driver.ts) on a fresh understudy from each build, with the same
 * setup (`policies`: the policy row's global sentinel and OPA sets), and measures them in
 * alternating rounds (A, B, A, B…): runs/s and the server's CPU per run, medians with spreads and
 * the median per-round B/A. bench/compare.ts leaves out rows with their own server, so this is
 * their A/B. Settings: BENCH_ROUNDS (pairs, default 7), BENCH_RUNS (runs per round, default 60),
 * BENCH_CONNECTIONS (default 2); PROFILE_HOOK names an --import hook for both servers.
 */
import { join, resolve } from 'node:path';
import { killAll } from './processes.js';
import { alternate, quotients, spread, type Round, type Spread } from './rounds.js';
import { globalPolicySet, runDriver } from './run-driver.js';
import type { OwnServer } from './scenario.js';

const setting = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

function start(dist: string, withPolicies: boolean): Promise<OwnServer> {
  const hook = process.env['PROFILE_HOOK'];
  return runDriver({
    prefix: 'bench-ab-',
    mainJs: join(resolve(dist), 'main.js'),
    ...(hook ? { env: { NODE_OPTIONS: `--import ${resolve(hook)}`, PROFILE_OUT: `/tmp/ab-${dist.replace(/\W/g, '_')}` } } : {}),
    ...(withPolicies
      ? {
          setup: async (target) => {
            await globalPolicySet(target, 'sentinel');
            await globalPolicySet(target, 'opa');
            return {};
          },
        }
      : {}),
  });
}

const text = (figure: Spread | null, digits = 0) =>
  figure === null ? '-' : `${figure.median.toFixed(digits)} (${figure.min.toFixed(digits)}–${figure.max.toFixed(digits)})`;
const cpu = (rounds: readonly Round[]) => rounds.flatMap((one) => (one.serverCpuUs === null ? [] : [one.serverCpuUs]));
const rps = (rounds: readonly Round[]) => rounds.map((one) => one.requestsPerSecond);

const [distA, distB, mode = 'policies'] = process.argv.slice(2);
if (distA === undefined || distB === undefined) {
  process.stderr.write('usage: node --import tsx bench/ab-runs.ts <dist A> <dist B> [policies|plain|cost]\n');
  process.exit(2);
}
const servers: OwnServer[] = [];
try {
  // `cost`: A plain, B with policies (the row's ratio for one build, given the same dist twice).
  servers.push(await start(distA, mode === 'policies'), await start(distB, mode !== 'plain'));
  const rounds = setting('BENCH_ROUNDS', 7);
  const amount = setting('BENCH_RUNS', 60) * rounds;
  const sides = servers.map((server) => ({
    baseUrl: server.target.baseUrl,
    request: { method: 'POST', path: '/run', amount },
    ...(server.pid === undefined ? {} : { pid: server.pid }),
    fresh: true,
  }));
  const [a = [], b = []] = await alternate(sides, {
    rounds,
    seconds: 1,
    warmupSeconds: 1,
    freshWarmupSeconds: 1,
    connections: setting('BENCH_CONNECTIONS', 2),
  });
  const bad = [...a, ...b].reduce((sum, one) => sum + one.non2xx + one.errors, 0);
  process.stdout.write(
    [
      `whole runs (${mode}), ${rounds} rounds of ${amount / rounds} runs${bad > 0 ? `, ${bad} FAILED` : ''}`,
      `  A runs/s ${text(spread(rps(a)), 1)}   server µs/run ${text(spread(cpu(a)))}`,
      `  B runs/s ${text(spread(rps(b)), 1)}   server µs/run ${text(spread(cpu(b)))}`,
      `  B/A by runs/s ${text(spread(quotients(rps(b), rps(a))), 3)}`,
      `  B/A by server CPU ${text(spread(quotients(cpu(b), cpu(a))), 3)}`,
      '',
    ].join('\n'),
  );
} finally {
  await Promise.all(servers.map((server) => server.stop()));
  killAll();
}
