import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import type { BenchTarget } from './scenario.js';

/** The soak's goal (issue 22): RSS growth across the measured run, after the warm-up. */
export const SOAK_GROWTH_GOAL = 0.1;

export interface SoakResult {
  seconds: number;
  warmupSeconds: number;
  requests: number;
  non2xx: number;
  errors: number;
  rssAfterWarmupMb: number;
  rssAfterSoakMb: number;
  /** RSS after two idle seconds once the soak is over. */
  rssIdleMb: number;
  growth: number;
  met: boolean;
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
export async function soak(target: BenchTarget, pid: number, seconds: number, connections: number): Promise<SoakResult> {
  const warmupSeconds = Math.max(10, Math.round(seconds / 10));
  await run(target, warmupSeconds, connections);
  const rssAfterWarmupMb = rssMb(pid);
  const result = await run(target, seconds, connections);
  const rssAfterSoakMb = rssMb(pid);
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const growth = Math.round(((rssAfterSoakMb - rssAfterWarmupMb) / rssAfterWarmupMb) * 1000) / 1000;
  return {
    seconds,
    warmupSeconds,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    rssAfterWarmupMb,
    rssAfterSoakMb,
    rssIdleMb: rssMb(pid),
    growth,
    met: growth < SOAK_GROWTH_GOAL,
  };
}
