import { describe, expect, it } from 'vitest';
import { DurationError, parseDurationMs, parseDurationSeconds } from '../../src/core/duration.js';

describe('durations', () => {
  it.each([
    ['36h', 36 * 3600_000],
    ['1h30m', 5400_000],
    ['90s', 90_000],
    ['768h', 2764800_000],
    ['1.5h', 5400_000],
    ['250ms', 250],
    ['1500µs', 1.5],
    ['2d', 172800_000],
    ['3600', 3600_000],
    [60, 60_000],
  ])('%s is %d ms', (input, expected) => {
    expect(parseDurationMs(input)).toBe(expected);
  });

  it.each(['', 'h', '10x', '5 h', '1h-', '-1s', null, {}])('rejects %j', (input) => {
    expect(() => parseDurationMs(input)).toThrow(DurationError);
  });

  it("refuses what Go's time.Duration cannot hold (about 292 years)", () => {
    expect(parseDurationSeconds(9223372036)).toBe(9223372036);
    for (const input of [9223372037, '99999999999999999999', 1e308, '2562048h', '106752d']) {
      expect(() => parseDurationMs(input)).toThrow(/out of range/);
    }
  });

  it('rounds down to whole seconds', () => {
    expect(parseDurationSeconds('1500ms')).toBe(1);
  });
});
