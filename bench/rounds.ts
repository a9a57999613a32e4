/**
 * Measuring in alternating rounds: a row and its yardstick are measured A, B, A, B… in short
 * rounds, and a ratio is the median of the per-round ratios. Two figures taken minutes apart move
 * with whatever else the machine does; two taken a second apart move together, so their ratio
 * holds on a busy machine too.
 */
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import type { BenchRequest } from './scenario.js';
import { preflightOverTls, tlsOptionsOf } from './tls-request.js';

/** What one short round of one server measured. */
export interface Round {
  requestsPerSecond: number;
  /** autocannon records latency in whole milliseconds, so 0 means under one. */
  p99Ms: number;
  non2xx: number;
  errors: number;
  /**
   * Microseconds of the server process's CPU (user + system, all its threads) per request of the
   * round, or null when the server is not a process of its own or the system does not say.
   */
  serverCpuUs: number | null;
}

/**
 * CPU time a process has used so far, in microseconds (Linux: utime + stime of /proc/<pid>/stat,
 * in clock ticks of 10 ms), or null where that cannot be read.
 */
export function processCpuUs(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    // The command name (field 2) may hold spaces: the fields counted here follow its closing parenthesis.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks * 10_000 : null;
  } catch {
    return null;
  }
}

/** A median with the smallest and largest value it was taken from. */
export interface Spread {
  median: number;
  min: number;
  max: number;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

export function spread(values: readonly number[]): Spread | null {
  if (values.length === 0) return null;
  return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
}

/** A spread as the A/B tools print it: `median (min–max)`, or `-` when nothing was measured. */
export function spreadText(figure: Spread | null, digits = 0): string {
  return figure === null ? '-' : `${figure.median.toFixed(digits)} (${figure.min.toFixed(digits)}–${figure.max.toFixed(digits)})`;
}

/** Each round's requests per second. */
export const rpsOf = (rounds: readonly Round[]): number[] => rounds.map((one) => one.requestsPerSecond);

/** Each round's server CPU per request (µs), where the round could read it. */
export const cpuOf = (rounds: readonly Round[]): number[] => rounds.flatMap((one) => (one.serverCpuUs === null ? [] : [one.serverCpuUs]));

/** Per-index quotients of two equally long series (rounds measured side by side). */
export function quotients(numerators: readonly number[], denominators: readonly number[]): number[] {
  return numerators.flatMap((value, index) => {
    const under = denominators[index];
    return under === undefined || under === 0 || value === 0 ? [] : [value / under];
  });
}

/** Sends `request` for `seconds` (or its fixed amount) and reports one round (with `pid`'s CPU per request). */
export async function round(
  baseUrl: string,
  request: BenchRequest,
  seconds: number,
  connections: number,
  amountShare = 1,
  pid?: number,
): Promise<Round> {
  const pairs = request.followUp ? 2 : 1;
  const amount =
    request.amountPerRound ?? (request.amount === undefined ? undefined : Math.max(1, Math.ceil(request.amount * amountShare)));
  const length = amount === undefined ? { duration: seconds } : { amount: amount * pairs };
  const cpuBefore = processCpuUs(pid);
  const began = performance.now();
  const result = await autocannon({
    url: baseUrl + request.path,
    method: (request.method ?? 'GET') as autocannon.Request['method'],
    // autocannon lays its default headers under every request of a sequence: a pair's first request
    // names its own, so its follow-up sends only the headers it names (as `preflight` does), never
    // the first one's (an unwrap sent with the wrap's X-Vault-Wrap-TTL wraps its answer again).
    headers: request.followUp ? {} : (request.headers ?? {}),
    ...(request.body === undefined ? {} : { body: request.body }),
    ...(request.followUp ? { requests: followUpRequests(request, request.followUp) } : {}),
    ...tlsOptionsOf(request),
    connections: request.connections ?? connections,
    // autocannon ends a round at its first sample after the duration or the amount: sample often, or a short
    // round runs a full second; a round of a fixed amount (a few hundred ms) is timed to its 10 ms ticks.
    sampleInt: amount === undefined ? 100 : 10,
    ...length,
  });
  // Total over elapsed time: autocannon's per-second average has no sample in a sub-second round,
  // and its own duration is rounded (a whole-run row read 27 or 40 runs/s and nothing between).
  const elapsed = Math.max((performance.now() - began) / 1000, 0.001);
  const cpuAfter = processCpuUs(pid);
  return {
    requestsPerSecond: result.requests.total / elapsed,
    serverCpuUs:
      cpuBefore === null || cpuAfter === null || result.requests.total === 0 ? null : (cpuAfter - cpuBefore) / result.requests.total,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

/** The first request, then the follow-up to the path its response names (per connection). */
function followUpRequests(request: BenchRequest, followUp: NonNullable<BenchRequest['followUp']>): autocannon.Request[] {
  return [
    {
      method: (request.method ?? 'GET') as autocannon.Request['method'],
      path: request.path,
      headers: request.headers ?? {},
      ...(request.body === undefined ? {} : { body: request.body }),
      onResponse: (_status: number, body: string, context: object) => {
        Object.assign(context, { next: followUp.pathFrom(body), nextHeaders: followUp.headersFrom?.(body) ?? {} });
      },
    },
    {
      method: followUp.method as autocannon.Request['method'],
      headers: followUp.headers ?? {},
      body: followUp.body,
      setupRequest: (next: autocannon.Request, context: object) => {
        const { next: path, nextHeaders } = context as { next?: string; nextHeaders?: Record<string, string> };
        return { ...next, path: String(path), headers: { ...next.headers, ...nextHeaders } };
      },
    },
  ];
}

/** One request first: a scenario that answers 4xx/5xx would otherwise post a flattering figure. */
export async function preflight(baseUrl: string, request: BenchRequest): Promise<string | null> {
  if (request.tls) return preflightOverTls(baseUrl, request);
  const response = await fetch(baseUrl + request.path, {
    method: request.method ?? 'GET',
    headers: request.headers ?? {},
    body: (request.body ?? null) as BodyInit | null,
  });
  const text = await response.text();
  if (response.status >= 400) return `preflight answered ${response.status}`;
  if (!request.followUp) return null;
  const { method, headers, body, pathFrom, headersFrom } = request.followUp;
  const second = await fetch(baseUrl + pathFrom(text), {
    method,
    headers: { ...headers, ...headersFrom?.(text) },
    body: new Uint8Array(body),
  });
  await second.arrayBuffer();
  return second.status >= 400 ? `preflight follow-up answered ${second.status}` : null;
}

/** A server to measure in the rounds: where it listens and what to send it. */
export interface Side {
  baseUrl: string;
  request: BenchRequest;
  /** The server's process, when it is one of its own: each round then reads its CPU per request. */
  pid?: number;
  /** A server started for this row: it warms up longer (see `RoundSettings.freshWarmupSeconds`). */
  fresh?: boolean;
}

export interface RoundSettings {
  /** Pairs (or triples) of rounds. */
  rounds: number;
  /** Seconds of one round. */
  seconds: number;
  warmupSeconds: number;
  /**
   * The warm-up of a server started for the row. One second was not enough: a fresh server's
   * first two rounds still paid for V8 compiling its hot code (a transit encrypt 731 µs of CPU
   * in round 1, about 200 from round 3 on), and its median read low.
   */
  freshWarmupSeconds: number;
  connections: number;
}

/**
 * One side's warm-up: a timed row runs for `seconds`; a row of a fixed amount per round (a whole
 * run) repeats its amount until `seconds` have passed, so a fresh server compiles its hot code
 * before the first measured round either way (one round of 40 runs, about a second, left a run
 * with dynamic credentials still compiling its `/v1` calls).
 */
async function warmUp(side: Side, seconds: number, settings: RoundSettings): Promise<void> {
  const until = performance.now() + seconds * 1000;
  do await round(side.baseUrl, side.request, seconds, settings.connections, 1 / settings.rounds);
  while (side.request.amountPerRound !== undefined && performance.now() < until);
}

/**
 * Measures `sides` in turn, `rounds` times over (A, B, A, B…), each for `seconds` (an amount row
 * sends its amount split across the rounds), after one warm-up round of each. Returns each side's
 * rounds in measuring order.
 */
export async function alternate(sides: readonly Side[], settings: RoundSettings): Promise<Round[][]> {
  const { rounds, seconds, warmupSeconds, freshWarmupSeconds, connections } = settings;
  for (const side of sides) await warmUp(side, side.fresh ? freshWarmupSeconds : warmupSeconds, settings);
  const measured: Round[][] = sides.map(() => []);
  for (let index = 0; index < rounds; index += 1) {
    for (const [position, side] of sides.entries()) {
      (measured[position] as Round[]).push(await round(side.baseUrl, side.request, seconds, connections, 1 / rounds, side.pid));
    }
  }
  return measured;
}
