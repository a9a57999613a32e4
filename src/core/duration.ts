/**
 * Durations as the secrets API and the control plane accept them: integer seconds, or Go-style
 * strings such as `90s`, `1h30m`, `768h`, plus the `d` suffix the secrets API also allows.
 */
const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

const PART = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h|d)/gy;

export class DurationError extends Error {}

/**
 * The longest duration the real secrets service can hold: Go's time.Duration, a signed 64-bit
 * count of nanoseconds (about 292 years). Anything longer is refused rather than overflowing into
 * a date no later step can compute.
 */
export const MAX_DURATION_MS = 9_223_372_036_854;

function inRange(ms: number, input: unknown): number {
  if (!(ms <= MAX_DURATION_MS))
    throw new DurationError(`duration ${JSON.stringify(input)} is out of range (at most ${MAX_DURATION_MS / 1000}s)`);
  return ms;
}

/** Parses a duration to milliseconds; a bare number (or numeric string) means seconds. */
export function parseDurationMs(input: unknown): number {
  if (typeof input === 'number') {
    if (!Number.isFinite(input) || input < 0) throw new DurationError(`invalid duration ${input}`);
    return inRange(input * 1000, input);
  }
  if (typeof input !== 'string') throw new DurationError('a duration must be a string or a number');
  const text = input.trim();
  if (text === '') throw new DurationError('empty duration');
  if (/^\d+$/.test(text)) return inRange(Number(text) * 1000, input);
  PART.lastIndex = 0;
  let total = 0;
  let consumed = 0;
  for (let match = PART.exec(text); match; match = PART.exec(text)) {
    total += Number(match[1]) * (UNIT_MS[match[2] as string] as number);
    consumed = PART.lastIndex;
  }
  if (consumed !== text.length) throw new DurationError(`invalid duration "${input}"`);
  return inRange(total, input);
}

export function parseDurationSeconds(input: unknown): number {
  return Math.floor(parseDurationMs(input) / 1000);
}
