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

/** Parses a duration to milliseconds; a bare number (or numeric string) means seconds. */
export function parseDurationMs(input: unknown): number {
  if (typeof input === 'number') {
    if (!Number.isFinite(input) || input < 0) throw new DurationError(`invalid duration ${input}`);
    return input * 1000;
  }
  if (typeof input !== 'string') throw new DurationError('a duration must be a string or a number');
  const text = input.trim();
  if (text === '') throw new DurationError('empty duration');
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  PART.lastIndex = 0;
  let total = 0;
  let consumed = 0;
  for (let match = PART.exec(text); match; match = PART.exec(text)) {
    total += Number(match[1]) * (UNIT_MS[match[2] as string] as number);
    consumed = PART.lastIndex;
  }
  if (consumed !== text.length) throw new DurationError(`invalid duration "${input}"`);
  return total;
}

export function parseDurationSeconds(input: unknown): number {
  return Math.floor(parseDurationMs(input) / 1000);
}
