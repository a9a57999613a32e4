/**
 * The one clock every timestamp, TTL, expiry and schedule reads. It follows the system clock
 * plus an offset, so `/_emulator/clock` can move time forward (and tests of a 24-hour TTL take
 * milliseconds) without ever freezing the process.
 */
export interface Clock {
  now(): Date;
  nowMs(): number;
}

export class ClockMovedBackwardsError extends Error {}

export class ControllableClock implements Clock {
  private offsetMs = 0;
  /** Told the new offset whenever it changes (the app keeps it with the store). */
  onChange: ((offsetMs: number) => void) | undefined;

  constructor(private readonly source: () => number = Date.now) {}

  nowMs(): number {
    return this.source() + this.offsetMs;
  }

  now(): Date {
    return new Date(this.nowMs());
  }

  /** Moves time forward by `ms` milliseconds. */
  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new ClockMovedBackwardsError('the clock only moves forward');
    this.offsetMs += ms;
    this.onChange?.(this.offsetMs);
  }

  /** Jumps to `target`; moving backwards needs `force`, because due work may already have run. */
  set(target: Date, force = false): void {
    const delta = target.getTime() - this.nowMs();
    if (delta < 0 && !force) throw new ClockMovedBackwardsError('the clock only moves forward unless forced');
    this.offsetMs += delta;
    this.onChange?.(this.offsetMs);
  }

  /** Back to the system clock. */
  reset(): void {
    this.offsetMs = 0;
    this.onChange?.(0);
  }

  /** Takes up an offset kept from an earlier run of the server, without telling `onChange`. */
  resume(offsetMs: number): void {
    this.offsetMs = offsetMs;
  }

  get offset(): number {
    return this.offsetMs;
  }
}

/**
 * The instant `isoTimestamp` formatted last, and its text. A workspace page formats 60 timestamps
 * (created, updated and latest change of 20 rows), mostly one instant over and over, and
 * `toISOString` was 5.6% of the page's server CPU. NaN (an invalid date) never matches, so it
 * still throws as `toISOString` does.
 */
let lastFormattedMs = Number.NaN;
let lastFormattedText = '';
/**
 * The second `toISOString` formatted last (whole seconds since the epoch) and its text up to the
 * milliseconds (`2026-01-02T03:04:05.`): instants made one after another (a wrapping token's
 * creation time, every wrap) share it, and writing three digits after it is far cheaper than
 * `toISOString` (about a microsecond, a C++ call).
 */
let formattedSecond = Number.NaN;
let secondText = '';

/** The largest instant a Date holds (ECMAScript's time value range): beyond it `toISOString` throws. */
const MAX_TIME_MS = 8.64e15;

/** ISO 8601 UTC with milliseconds and a literal `Z`, the only timestamp form real clients parse. */
export function isoTimestamp(value: Date | number): string {
  const ms = typeof value === 'number' ? value : value.getTime();
  if (ms === lastFormattedMs) return lastFormattedText;
  const second = Math.floor(ms / 1000);
  let text: string;
  // Only whole milliseconds within a Date's range use the kept second: anything else (a fraction
  // a Date would truncate, NaN, an instant past the range) goes to toISOString as before.
  if (second === formattedSecond && Number.isInteger(ms) && Math.abs(ms) <= MAX_TIME_MS) {
    const milli = ms - second * 1000;
    text = `${secondText}${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
  } else {
    // A row's timestamps arrive as Dates already: formatting them needs no copy.
    text = (typeof value === 'number' ? new Date(value) : value).toISOString();
    if (Number.isInteger(ms)) {
      formattedSecond = second;
      secondText = text.slice(0, -4);
    }
  }
  lastFormattedMs = ms;
  lastFormattedText = text;
  return text;
}
