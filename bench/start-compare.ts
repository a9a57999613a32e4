/**
 * Spawn-to-ready of two builds beside the bare server: `node --import tsx bench/start-compare.ts
 * <dist A> <dist B>` starts the bare Node HTTP server, A's `main.js` and B's `main.js` in turn,
 * BENCH_STARTS rounds (default 20), each to its first 200 from /_emulator/health as the bench does
 * (bench/processes.ts). Each build is started once before the rounds, so both run with the V8 code
 * cache their first start wrote. It prints each one's median time and CPU at ready with their
 * spread, and the medians of the per-round quotients A/bare, B/bare and B/A: the goal's figure is
 * the spawn-to-ready against the bare server's of the same round (bench/goals.ts, startCost).
 */
import { join, resolve } from 'node:path';
import { killAll, timeStartup, type StartupTiming } from './processes.js';
import { quotients, spread, spreadText } from './rounds.js';
import { positiveSetting } from './scenario-files.js';

const [distA, distB] = process.argv.slice(2).map((dist) => resolve(dist));
if (distA === undefined || distB === undefined) {
  process.stderr.write('usage: bench/start-compare.ts <dist A> <dist B>\n');
  process.exit(2);
}
const rounds = positiveSetting('BENCH_STARTS', 20);

async function main(): Promise<void> {
  const sides: [string, () => Promise<StartupTiming>][] = [
    ['bare', () => timeStartup('bare')],
    ['A', () => timeStartup('node', join(distA as string, 'main.js'))],
    ['B', () => timeStartup('node', join(distB as string, 'main.js'))],
  ];
  // The first start of a build writes its code cache; the rounds measure the starts after it.
  for (const [, run] of sides.slice(1)) await run();
  const samples = new Map<string, StartupTiming[]>(sides.map(([name]) => [name, []]));
  for (let round = 0; round < rounds; round += 1) {
    for (const [name, run] of sides) samples.get(name)?.push(await run());
  }
  const ms = (name: string) => (samples.get(name) ?? []).map((one) => one.ms);
  const cpu = (name: string) => (samples.get(name) ?? []).flatMap((one) => (one.cpuMs === null ? [] : [one.cpuMs]));
  process.stdout.write(`${rounds} rounds (bare, A, B), medians (min–max)\n`);
  for (const [name] of sides) {
    process.stdout.write(
      `  ${name.padEnd(4)} ready ${spreadText(spread(ms(name)))} ms, CPU at ready ${spreadText(spread(cpu(name)))} ms\n`,
    );
  }
  process.stdout.write(`  A/bare ${spreadText(spread(quotients(ms('A'), ms('bare'))), 2)}\n`);
  process.stdout.write(`  B/bare ${spreadText(spread(quotients(ms('B'), ms('bare'))), 2)}\n`);
  process.stdout.write(
    `  B/A    ${spreadText(spread(quotients(ms('B'), ms('A'))), 2)}, CPU ${spreadText(spread(quotients(cpu('B'), cpu('A'))), 2)}\n`,
  );
}

main().then(
  () => killAll(),
  (error: unknown) => {
    killAll();
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
