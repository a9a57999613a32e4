import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import type { BenchTarget } from './scenario.js';

/** The soak's goal (issue 22): RSS growth across the measured run, after the warm-up. */
export const SOAK_GROWTH_GOAL = 0.1;
/** The soak's other goal (issue 31): the highest RSS seen while loaded, as a multiple of the fresh server's. */
export const SOAK_PEAK_GOAL = 2;
/**
 * The warm-up also serves at least this many requests: the request journal keeps the last 10 000
 * (UNDERSTUDY_JOURNAL_SIZE's default), about 1.2 KB each here, so the live heap grows by some 12 MB
 * until its ring is full and then stays (heap statistics after a full collection: 31 -> 43 MB, flat
 * at 30 MB with the journal off). A quiet machine serves that in about 3 s; a loaded one at 270
 * req/s needs 40, and a 10 s warm-up there read the ring filling as growth.
 */
const WARMUP_REQUESTS = 10_000;
/** How often the server's RSS is read while it is loaded. */
const SAMPLE_MS = 250;
/**
 * A phase's RSS is the mean of its readings over its last 5 s: the collector's sawtooth (the young
 * generation alone swings by some 12 MB between two collections) is not growth, and a single reading
 * lands anywhere on it.
 */
const SETTLED_MS = 5_000;

export interface SoakResult {
  seconds: number;
  warmupSeconds: number;
  /** Requests the warm-up served (at least 10 000). */
  warmupRequests: number;
  /** RSS of the freshly started server, before any request of the soak. */
  rssAfterStartMb: number;
  requests: number;
  non2xx: number;
  errors: number;
  /** Mean RSS over the warm-up's last 5 s. */
  rssAfterWarmupMb: number;
  /** Mean RSS over the soak's last 5 s. */
  rssAfterSoakMb: number;
  /** RSS after two idle seconds once the soak is over. */
  rssIdleMb: number;
  /** The highest RSS read (every 250 ms) during the warm-up and the soak. */
  rssPeakMb: number;
  growth: number;
  /** rssPeakMb / rssAfterStartMb. */
  peakRatio: number;
  growthMet: boolean;
  peakMet: boolean;
  /** Both goals. */
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

/**
 * The load for some seconds or requests, reading the server's RSS every 250 ms meanwhile: `peak` keeps the
 * highest, and the answer's `settledMb` is the mean over the last 5 s. Heap snapshots are taken
 * between two runs, so their own RSS never counts.
 */
async function run(
  target: BenchTarget,
  pid: number,
  load: { duration: number } | { amount: number },
  connections: number,
  peak: { mb: number },
) {
  const readings: { atMs: number; mb: number }[] = [];
  const sample = () => {
    const mb = rssMb(pid);
    readings.push({ atMs: performance.now(), mb });
    peak.mb = Math.max(peak.mb, mb);
  };
  const sampler = setInterval(sample, SAMPLE_MS);
  try {
    const result = await autocannon({ url: target.baseUrl, requests: mix(target), ...load, connections });
    sample();
    const since = performance.now() - SETTLED_MS;
    const settled = readings.filter((reading) => reading.atMs >= since);
    const settledMb = Math.round((settled.reduce((sum, reading) => sum + reading.mb, 0) / settled.length) * 10) / 10;
    return { result, settledMb };
  } finally {
    clearInterval(sampler);
  }
}

/**
 * Memory under a steady load: a warm-up, the RSS, the measured run, the RSS again, and the peak
 * read throughout. Growth is (after - before) / before; the caches are bounded and V8 is told to
 * size its heap for memory (src/core/lean-heap.ts), so it should stay under the goal, and the peak
 * under twice the fresh server's RSS.
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
  const peak = { mb: 0 };
  const warmup = await run(target, pid, { duration: warmupSeconds }, connections, peak);
  const short = WARMUP_REQUESTS - warmup.result.requests.total;
  const topUp = short > 0 ? await run(target, pid, { amount: short }, connections, peak) : undefined;
  const rssAfterWarmupMb = (topUp ?? warmup).settledMb;
  const warmupRequests = warmup.result.requests.total + (topUp?.result.requests.total ?? 0);
  if (SOAK_HEAP_DIR !== '') heapSnapshots.push(await heapSnapshot(target, pid));
  const { result, settledMb: rssAfterSoakMb } = await run(target, pid, { duration: seconds }, connections, peak);
  if (SOAK_HEAP_DIR !== '') heapSnapshots.push(await heapSnapshot(target, pid));
  await sleep(2_000);
  const growth = Math.round(((rssAfterSoakMb - rssAfterWarmupMb) / rssAfterWarmupMb) * 1000) / 1000;
  const peakRatio = Math.round((peak.mb / rssAfterStartMb) * 100) / 100;
  const growthMet = growth < SOAK_GROWTH_GOAL;
  const peakMet = peakRatio < SOAK_PEAK_GOAL;
  return {
    seconds,
    warmupSeconds,
    warmupRequests,
    rssAfterStartMb,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    rssAfterWarmupMb,
    rssAfterSoakMb,
    rssIdleMb: rssMb(pid),
    rssPeakMb: peak.mb,
    growth,
    peakRatio,
    growthMet,
    peakMet,
    met: growthMet && peakMet,
    heapSnapshots,
  };
}
