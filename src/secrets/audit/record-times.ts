import type { Clock } from '../../core/clock.js';

/** The milliseconds of a second as ISO 8601 writes them, `000` to `999`. */
const MILLIS = Array.from({ length: 1000 }, (_, ms) => String(ms).padStart(3, '0'));

/** The farthest instant from 1970 a Date holds, either way (ECMAScript's time range). */
const LAST_INSTANT_MS = 8.64e15;

/**
 * Record times as JSON text, one text per millisecond of the clock: the two records of a request,
 * and requests close together, share it. Requests further apart than a millisecond each need a new
 * text, and `toISOString` costs about as much as the rest of a record, so the text up to the
 * seconds is formatted once a second and only the milliseconds are added each time. One per
 * broker, so per server: servers in one process may run different clocks.
 */
export class RecordTimes {
  private ms = Number.NaN;
  private text = '';
  private second = Number.NaN;
  /** `"` and the ISO text of `second` up to and with its `.` (the fraction follows). */
  private secondText = '';

  constructor(private readonly clock: Clock) {}

  now(): string {
    const ms = this.clock.nowMs();
    if (this.ms !== ms) {
      // A Date drops a fraction of a millisecond (an offset need not be whole) toward zero.
      const instant = Math.trunc(ms);
      // What `toISOString` throws for an instant out of range (or NaN): its second may be in range.
      if (!(Math.abs(instant) <= LAST_INSTANT_MS)) throw new RangeError('Invalid time value');
      const second = Math.floor(instant / 1000);
      if (this.second !== second) {
        const whole = new Date(second * 1000).toISOString();
        // Always `.000Z` at the end (years past 9999 only lengthen the front).
        this.secondText = `"${whole.slice(0, -4)}`;
        this.second = second;
      }
      this.ms = ms;
      this.text = `${this.secondText}${MILLIS[instant - second * 1000]}Z"`;
    }
    return this.text;
  }
}
