import { describe, expect, it } from 'vitest';
import { RecordTimes } from '../../../src/secrets/audit/record-times.js';

/** A clock that reads whatever instant the test set last. */
function timesAt(): { times: RecordTimes; set: (ms: number) => void } {
  let now = 0;
  return { times: new RecordTimes({ nowMs: () => now, now: () => new Date(now) }), set: (ms) => (now = ms) };
}

describe('audit record times', () => {
  it('writes every instant as JSON of its toISOString, in any order', () => {
    const { times, set } = timesAt();
    const instants = [0, -0, 1, 999, 1000, 1001, -1, -999, -1000, -1001, 1.5, -1.5, 0.2, 999.9, 1_732_850_000_123];
    // Year 9999's last millisecond and the first of year 10000 (a longer year), the ends of Date's range.
    instants.push(253_402_300_799_999, 253_402_300_800_000, 8.64e15, -8.64e15, -62_198_755_200_001);
    // Steps of a millisecond across second boundaries, as a busy server reads the clock.
    for (let ms = 1_732_850_000_990; ms < 1_732_850_001_020; ms++) instants.push(ms, ms);
    let seed = 7;
    for (let index = 0; index < 2000; index++) {
      seed = (seed * 48_271) % 2_147_483_647;
      instants.push((seed - 1_000_000_000) * 4_000_000 + (seed % 1000) / 1000);
    }
    for (const ms of instants) {
      set(ms);
      expect(times.now()).toBe(JSON.stringify(new Date(ms).toISOString()));
    }
  });

  it('throws where toISOString throws, even inside the last second of the range', () => {
    const { times, set } = timesAt();
    for (const ms of [Number.NaN, 8.64e15 + 1, 8.64e15 + 999, -8.64e15 - 1, Number.POSITIVE_INFINITY]) {
      set(8.64e15);
      times.now();
      set(ms);
      expect(() => new Date(ms).toISOString()).toThrow(RangeError);
      expect(() => times.now()).toThrow(RangeError);
    }
  });
});
