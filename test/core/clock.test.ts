import { describe, expect, it } from 'vitest';
import { ClockMovedBackwardsError, ControllableClock, isoTimestamp } from '../../src/core/clock.js';

describe('ControllableClock', () => {
  const fixed = () => Date.UTC(2026, 0, 1);

  it('follows its source plus an offset that only grows', () => {
    const clock = new ControllableClock(fixed);
    expect(clock.now().toISOString()).toBe('2026-01-01T00:00:00.000Z');
    clock.advance(36 * 3600_000);
    expect(clock.now().toISOString()).toBe('2026-01-02T12:00:00.000Z');
    expect(() => clock.advance(-1)).toThrow(ClockMovedBackwardsError);
  });

  it('jumps forward with set, and backwards only when forced', () => {
    const clock = new ControllableClock(fixed);
    clock.set(new Date('2026-03-01T00:00:00Z'));
    expect(clock.now().toISOString()).toBe('2026-03-01T00:00:00.000Z');
    expect(() => clock.set(new Date('2026-02-01T00:00:00Z'))).toThrow(ClockMovedBackwardsError);
    clock.set(new Date('2026-02-01T00:00:00Z'), true);
    expect(clock.now().toISOString()).toBe('2026-02-01T00:00:00.000Z');
    clock.reset();
    expect(clock.nowMs()).toBe(fixed());
  });

  it('formats timestamps with milliseconds and a literal Z', () => {
    expect(isoTimestamp(Date.UTC(2025, 0, 1, 0, 0, 0, 7))).toBe('2025-01-01T00:00:00.007Z');
  });

  it('formats each instant as its own, whether it repeats, alternates or arrives as a Date or a number', () => {
    const first = Date.UTC(2025, 0, 1, 0, 0, 0, 7);
    const second = Date.UTC(2026, 5, 30, 23, 59, 59, 999);
    const sequence = [first, first, new Date(first), second, new Date(second), first, second, new Date(first)];
    expect(sequence.map((value) => isoTimestamp(value))).toEqual(
      sequence.map((value) => (typeof value === 'number' ? new Date(value) : value).toISOString()),
    );
  });

  it('formats every millisecond of a second it formatted before as toISOString does, and only those', () => {
    const start = Date.UTC(2026, 10, 29, 4, 59, 59, 0);
    const instants = [start + 5, start + 6, start + 42, start + 999, start + 1000, start + 1001, start - 1, start + 0, start + 100];
    const extremes = [-1, -999, -1000, 0, 8.64e15 - 1, 8.64e15, -8.64e15, -8.64e15 + 1];
    extremes.push(Date.UTC(-5, 0, 1, 0, 0, 0, 3), Date.UTC(12000, 0, 1, 0, 0, 0, 30));
    for (const value of [...instants, ...extremes, ...instants.map((ms) => new Date(ms))]) {
      expect(isoTimestamp(value)).toBe((typeof value === 'number' ? new Date(value) : value).toISOString());
    }
    // A fraction is truncated as a Date truncates it, and past the range still throws.
    isoTimestamp(start + 7);
    expect(isoTimestamp(start + 7.9)).toBe(new Date(start + 7.9).toISOString());
    isoTimestamp(8.64e15);
    expect(() => isoTimestamp(8.64e15 + 1)).toThrow(RangeError);
  });

  it('still refuses an invalid date, even right after formatting a valid one', () => {
    isoTimestamp(Date.UTC(2025, 0, 1));
    expect(() => isoTimestamp(new Date(Number.NaN))).toThrow(RangeError);
    expect(() => isoTimestamp(Number.NaN)).toThrow(RangeError);
  });
});
