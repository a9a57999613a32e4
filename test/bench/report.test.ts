import { describe, expect, it } from 'vitest';
import { DOC_BASELINE } from '../../bench/goals.js';
import { evaluateGoals, row } from '../../bench/report.js';
import type { Round } from '../../bench/rounds.js';
// Registers the transit goals (among them "encrypt >= 0.8 of the document baseline").
import '../../bench/scenarios/transit.js';

const ENCRYPT = 'POST /v1/transit/encrypt/:name 1 KB';
const GOAL = `${ENCRYPT} vs document baseline`;

const rounds = (perSecond: number[], cpuUs: (number | null)[]): Round[] =>
  perSecond.map((requestsPerSecond, index) => ({
    requestsPerSecond,
    p99Ms: 1,
    non2xx: 0,
    errors: 0,
    serverCpuUs: cpuUs[index] ?? null,
  }));

describe('bench report: the second opinion by server CPU', () => {
  const documentRounds = rounds([1000, 500, 1000], [100, 100, 100]);
  // Round 2 ran on a busy machine: half the throughput on both sides, the CPU per request unchanged.
  const encryptRounds = rounds([700, 350, 700], [125, 130, 120]);

  it('reads a row against its yardstick by CPU per request, round by round', () => {
    const measured = row(ENCRYPT, encryptRounds, documentRounds, documentRounds, null);
    expect(measured.serverCpuUs).toEqual([125, 130, 120]);
    expect(measured.serverCpuUsSpread).toEqual({ median: 125, min: 120, max: 130 });
    // 100/125, 100/130, 100/120: the median is the first round's.
    expect(measured.cpuRatioToBaseline).toEqual({ median: 0.8, min: 0.769, max: 0.833 });
  });

  it('judges a goal on requests per CPU-second beside the req/s figure', () => {
    const rows = [
      row(DOC_BASELINE, documentRounds, documentRounds, null, null),
      row(ENCRYPT, encryptRounds, documentRounds, documentRounds, null),
    ];
    const result = evaluateGoals(rows, 1000, new Map()).find((goal) => goal.goal === GOAL);
    expect(result?.figure).toBeCloseTo(0.7, 6);
    expect(result?.met).toBe(false);
    expect(result?.byServerCpu?.median).toBeCloseTo(0.8, 6);
    expect(result?.byServerCpu?.min).toBeCloseTo(100 / 130, 6);
  });

  it('gives no CPU figure when a row of the goal was not read', () => {
    const unread = rounds([700, 350, 700], [null, null, null]);
    const rows = [
      row(DOC_BASELINE, documentRounds, documentRounds, null, null),
      row(ENCRYPT, unread, documentRounds, documentRounds, null),
    ];
    const result = evaluateGoals(rows, 1000, new Map()).find((goal) => goal.goal === GOAL);
    expect(result?.figure).toBeCloseTo(0.7, 6);
    expect(result?.byServerCpu).toBeNull();
    expect(row(ENCRYPT, unread, documentRounds, documentRounds, null).cpuRatioToBaseline).toBeNull();
  });
});
