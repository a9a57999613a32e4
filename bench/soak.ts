import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import type { BenchTarget } from './scenario.js';

/** The soak's goal (issue 22): RSS growth across the measured run, after the warm-up. */
export const SOAK_GROWTH_GOAL = 0.1;

export interface SoakResult {
  seconds: number;
  warmupSeconds: number;
  /** RSS of the freshly started server, before any request of the soak. */
  rssAfterStartMb: number;
  requests: number;
  non2xx: number;
  errors: number;
  rssAfterWarmupMb: number;
  rssAfterSoakMb: number;
  /** RSS after two idle seconds once the soak is over. */
  rssIdleMb: number;
  growth: number;
  met: boolean;
  /** Heap snapshots written after the warm-up and after the soak, when BENCH_SOAK_HEAP_DIR asked for them. */
  heapSnapshots: string[];
}

/**
 * BENCH_SOAK_HEAP_DIR: a directory for two heap snapshots of the server (after the warm-up, after
 * the soak), to compare by constructor in Chrome's memory tool. The server is then started with
 * `--heapsnapshot-signal`, so nothing in understudy itself serves snapshots. A snapshot briefly
 * doubles the heap, so the RSS figures of such a run are read before each snapshot.
 */
export const SOAK_HEAP_DIR = process.env.BENCH_SOAK_HEAP_DIR ?? '';

/** The environment the soaked server needs on top of the bench's (empty unless snapshots are asked for). */
export function soakServerEnvironment(): Record<string, string> {
  if (SOAK_HEAP_DIR === '') return {};
  return { NODE_OPTIONS: `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${SOAK_HEAP_DIR}` };
}

/**
 * Asks `pid` for a heap snapshot and waits until it is written: the server writes it on its main
 * thread, so the first answer to a health check after the signal means the file is complete.
 */
async function heapSnapshot(target: BenchTarget, pid: number): Promise<string> {
  const before = new Set(readdirSync(SOAK_HEAP_DIR));
  process.kill(pid, 'SIGUSR2');
  await sleep(1_000);
  for (let waited = 0; waited < 600_000; waited += 1_000) {
    const answered = await fetch(`${target.baseUrl}/_emulator/health`, { signal: AbortSignal.timeout(1_000) }).then(
      (response) => response.ok,
      () => false,
    );
    const made = readdirSync(SOAK_HEAP_DIR).find((name) => name.endsWith('.heapsnapshot') && !before.has(name));
    if (answered && made) return made;
  }
  throw new Error(`no heap snapshot from process ${pid} within ten minutes`);
}

/** Resident set size of `pid` in MB (Linux /proc). */
export function rssMb(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS for process ${pid}`);
  return Math.round(Number(match[1]) / 102.4) / 10;
}

/** A mix of old and new routes, reads and overwrites (nothing that legitimately grows the store). */
function mix(target: BenchTarget): autocannon.Request[] {
  const platform = { authorization: `Bearer ${target.adminToken}`, accept: 'application/vnd.api+json' };
  const secrets = { 'x-vault-token': target.rootToken, 'content-type': 'application/json' };
  return [
    { method: 'GET', path: '/api/v2/organizations/understudy', headers: platform },
    { method: 'GET', path: '/api/v2/organizations/understudy/workspaces?page[size]=20', headers: platform },
    { method: 'GET', path: '/api/v2/ping', headers: platform },
    { method: 'GET', path: '/v1/sys/mounts', headers: secrets },
    { method: 'PUT', path: '/v1/cubbyhole/soak', headers: secrets, body: JSON.stringify({ value: 'x'.repeat(512) }) },
    { method: 'GET', path: '/v1/cubbyhole/soak', headers: secrets },
    { method: 'GET', path: '/v1/auth/token/lookup-self', headers: secrets },
    { method: 'GET', path: '/_emulator/health' },
    { method: 'GET', path: '/api/registry/v1/modules/understudy', headers: platform },
    { method: 'GET', path: '/no/such/route' },
  ];
}

const run = (target: BenchTarget, seconds: number, connections: number) =>
  autocannon({ url: target.baseUrl, requests: mix(target), duration: seconds, connections });

/**
 * Memory under a steady load: a warm-up, the RSS, the measured run, the RSS again. Growth is
 * (after - before) / before; the caches are bounded, so it should stay under the goal.
 */
export async function soak(
  target: BenchTarget,
  pid: number,
  seconds: number,
  connections: number,
  rssAfterStartMb: number,
): Promise<SoakResult> {
  const warmupSeconds = Math.max(10, Math.round(seconds / 10));
  const heapSnapshots: string[] = [];
  await run(target, warmupSeconds, connections);
  const rssAfterWarmupMb = rssMb(pid);
  if (SOAK_HEAP_DIR !== '') heapSnapshots.push(await heapSnapshot(target, pid));
  const result = await run(target, seconds, connections);
  const rssAfterSoakMb = rssMb(pid);
  if (SOAK_HEAP_DIR !== '') heapSnapshots.push(await heapSnapshot(target, pid));
  await sleep(2_000);
  const growth = Math.round(((rssAfterSoakMb - rssAfterWarmupMb) / rssAfterWarmupMb) * 1000) / 1000;
  return {
    seconds,
    warmupSeconds,
    rssAfterStartMb,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    rssAfterWarmupMb,
    rssAfterSoakMb,
    rssIdleMb: rssMb(pid),
    growth,
    met: growth < SOAK_GROWTH_GOAL,
    heapSnapshots,
  };
}
