import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './processes.js';
import type { Scenario } from './scenario.js';

/** Every scenario of `bench/scenarios/*.ts`, file by file in name order (each file exports `scenarios`). */
export async function allScenarios(): Promise<Scenario[]> {
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
  return all;
}

/** A positive number from the environment (the A/B tools' BENCH_ROUNDS, BENCH_DURATION…), or `fallback`. */
export function positiveSetting(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
}
