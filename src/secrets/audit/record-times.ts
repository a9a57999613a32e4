import { isoTimestamp, type Clock } from '../../core/clock.js';

/**
 * Record times as JSON text, one text per millisecond of the clock: the two records of a request,
 * and requests close together, share it. A new millisecond goes through `isoTimestamp`, which
 * formats each second once and adds the milliseconds (`toISOString` on every one cost about as
 * much as the rest of a record). One per broker, so per server: servers in one process may run
 * different clocks.
 */
export class RecordTimes {
  private ms = Number.NaN;
  private text = '';

  constructor(private readonly clock: Clock) {}

  now(): string {
    const ms = this.clock.nowMs();
    if (this.ms !== ms) {
      this.text = `"${isoTimestamp(ms)}"`;
      this.ms = ms;
    }
    return this.text;
  }
}
