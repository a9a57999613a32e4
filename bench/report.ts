/**
 * The bench's rows and goals: per-round figures turned into medians with spreads, the goals of
 * bench/goals.ts judged round by round, and the tables printed at the end.
 */
import { allGoals, type Figures, type Goal } from './goals.js';
import { median, quotients, spread, type Round, type Spread } from './rounds.js';

export interface Row {
  scenario: string;
  /** Median of the rounds' requests per second. */
  requestsPerSecond: number;
  requestsPerSecondSpread: Spread | null;
  /** Median of the rounds' p99 latency (whole milliseconds, so 0 means under one). */
  p99Ms: number;
  /** Per-round throughput over its yardstick's (the document baseline, or the scenario's own) in the same round. */
  ratioToBaseline: Spread | null;
  /** The same against the bare primary-key baseline, the row earlier runs compared with. */
  ratioToKvBaseline: Spread | null;
  non2xx: number;
  errors: number;
  /** Set when the scenario could not be measured; the other figures are then zero. */
  failure?: string;
  /** Requests per second of each round, and of the document baseline measured beside it. */
  rounds: number[];
  documentBeside: number[];
  /**
   * The server process's CPU per request in each round (µs; null where it was not read), the
   * second opinion on a busy machine: it moves far less than req/s with what else the machine does.
   */
  serverCpuUs: (number | null)[];
  serverCpuUsSpread: Spread | null;
  /** Per-round yardstick CPU per request over the row's: like `ratioToBaseline`, above 1 is cheaper. */
  cpuRatioToBaseline: Spread | null;
}

/** What the rows are compared with: the document baseline's median and the KV baseline in its units. */
export interface Yardsticks {
  documentMedian: number;
  /** Median over the opening rounds of KV baseline / document baseline. */
  kvPerDocument: number;
}

export function row(
  scenario: string,
  rounds: readonly Round[],
  documentBeside: readonly Round[],
  yardstick: readonly Round[] | null,
  yardsticks: Yardsticks | null,
): Row {
  const perSecond = rounds.map((one) => one.requestsPerSecond);
  const beside = documentBeside.map((one) => one.requestsPerSecond);
  const rounded = (value: Spread | null) => value && { median: round3(value.median), min: round3(value.min), max: round3(value.max) };
  const ratioToBaseline =
    yardstick === null
      ? null
      : spread(
          quotients(
            perSecond,
            yardstick.map((one) => one.requestsPerSecond),
          ),
        );
  const toKv = yardsticks === null ? null : spread(quotients(perSecond, beside).map((ratio) => ratio / yardsticks.kvPerDocument));
  const rps = spread(perSecond);
  const cpu = rounds.map((one) => one.serverCpuUs);
  // Yardstick over row, like req/s row over yardstick; a round not read (null, as 0) has no quotient.
  const cpuRatio =
    yardstick === null
      ? null
      : spread(
          quotients(
            yardstick.map((one) => one.serverCpuUs ?? 0),
            cpu.map((value) => value ?? 0),
          ),
        );
  const measuredCpu = spread(cpu.flatMap((value) => (value === null ? [] : [value])));
  return {
    scenario,
    requestsPerSecond: Math.round(rps?.median ?? 0),
    requestsPerSecondSpread: rps && { median: Math.round(rps.median), min: Math.round(rps.min), max: Math.round(rps.max) },
    p99Ms: median(rounds.map((one) => one.p99Ms)),
    ratioToBaseline: rounded(ratioToBaseline),
    ratioToKvBaseline: rounded(toKv),
    non2xx: sum(rounds.map((one) => one.non2xx)),
    errors: sum(rounds.map((one) => one.errors)),
    rounds: perSecond.map(Math.round),
    documentBeside: beside.map(Math.round),
    serverCpuUs: cpu.map((value) => (value === null ? null : Math.round(value))),
    serverCpuUsSpread: measuredCpu && {
      median: Math.round(measuredCpu.median),
      min: Math.round(measuredCpu.min),
      max: Math.round(measuredCpu.max),
    },
    cpuRatioToBaseline: rounded(cpuRatio),
  };
}

export function failedRow(scenario: string, failure: string): Row {
  return {
    scenario,
    requestsPerSecond: 0,
    requestsPerSecondSpread: null,
    p99Ms: 0,
    ratioToBaseline: null,
    ratioToKvBaseline: null,
    non2xx: 0,
    errors: 0,
    failure,
    rounds: [],
    documentBeside: [],
    serverCpuUs: [],
    serverCpuUsSpread: null,
    cpuRatioToBaseline: null,
  };
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
const round3 = (value: number) => Math.round(value * 1000) / 1000;

export interface GoalResult {
  goal: string;
  target: string;
  /** Median of the per-round figures; the goal is judged on it. */
  figure: number | null;
  spread: Spread | null;
  rounds: number;
  met: boolean | null;
  /**
   * The same goal on the servers' CPU per request instead of req/s (each row read as requests per
   * CPU-second), where every row it needs ran in a process of its own; null otherwise.
   */
  byServerCpu: Spread | null;
}

/**
 * Judges every goal once per round, on that round's figures: each row's req/s scaled by the
 * document baseline's median over the document baseline measured beside it, so rounds measured
 * minutes apart (two rows of a goal) compare as if measured together.
 */
export function evaluateGoals(rows: readonly Row[], documentMedian: number, startRounds: ReadonlyMap<string, number[]>): GoalResult[] {
  const measured = rows.filter((one) => !one.failure);
  const count = Math.max(0, ...measured.map((one) => one.rounds.length), ...[...startRounds.values()].map((one) => one.length));
  const perRound: Figures[] = Array.from({ length: count }, (_, index) => ({
    rps: new Map(
      measured.flatMap((one) => {
        const value = one.rounds[index];
        const beside = one.documentBeside[index];
        return value === undefined || beside === undefined || beside === 0 ? [] : [[one.scenario, (value * documentMedian) / beside]];
      }),
    ),
    startMs: new Map([...startRounds].flatMap(([command, samples]) => (samples[index] === undefined ? [] : [[command, samples[index]]]))),
  }));
  // Requests per CPU-second need no drift correction: a busy machine slows a request, not its CPU.
  const perRoundByCpu: Figures[] = Array.from({ length: count }, (_, index) => ({
    rps: new Map(
      measured.flatMap((one) => {
        const cpuUs = one.serverCpuUs[index];
        return cpuUs === undefined || cpuUs === null || cpuUs === 0 ? [] : [[one.scenario, 1_000_000 / cpuUs]];
      }),
    ),
    startMs: new Map(),
  }));
  return allGoals().map((goal) => {
    const figures = figuresOf(goal, perRound);
    const found = spread(figures);
    return {
      goal: goal.label,
      target: goal.target,
      figure: found?.median ?? null,
      spread: found,
      rounds: figures.length,
      met: found === null ? null : goal.met(found.median),
      byServerCpu: spread(figuresOf(goal, perRoundByCpu)),
    };
  });
}

/** A goal's figure in every round that has what it needs. */
function figuresOf(goal: Goal, rounds: readonly Figures[]): number[] {
  return rounds.flatMap((figures) => {
    const figure = goal.figure(figures);
    return figure === undefined ? [] : [figure];
  });
}

function showSpread(value: Spread | null, digits: number): string {
  if (value === null) return '-';
  const show = (figure: number) => (digits === 0 || figure >= 10 ? figure.toFixed(0) : figure.toFixed(digits));
  return `${show(value.median)} (${show(value.min)}-${show(value.max)})`;
}

export function printTable(rows: readonly Row[]): void {
  const header = [
    'scenario',
    'req/s median (min-max)',
    'p99 ms',
    'x doc baseline median (min-max)',
    'x kv baseline',
    'server µs/req',
    'same by CPU',
    'non-2xx',
  ];
  const lines = rows.map((one) =>
    one.failure
      ? [one.scenario, '-', '-', '-', '-', '-', '-', one.failure]
      : [
          one.scenario,
          showSpread(one.requestsPerSecondSpread, 0),
          one.p99Ms === 0 ? '<1' : String(one.p99Ms),
          one.ratioToBaseline === null ? '(baseline)' : showSpread(one.ratioToBaseline, 3),
          one.ratioToKvBaseline === null ? '(baseline)' : one.ratioToKvBaseline.median.toFixed(3),
          one.serverCpuUsSpread === null ? '-' : String(one.serverCpuUsSpread.median),
          one.cpuRatioToBaseline === null ? '-' : one.cpuRatioToBaseline.median.toFixed(3),
          String(one.non2xx + one.errors),
        ],
  );
  printColumns(header, lines);
}

export function printGoals(results: readonly GoalResult[]): void {
  const lines = results.map((result) => [
    result.goal,
    result.target,
    showSpread(result.spread, 2),
    String(result.rounds),
    result.met === null ? 'not measured' : result.met ? 'met' : 'NOT MET',
    showSpread(result.byServerCpu, 2),
  ]);
  printColumns(['goal', 'target', 'median (min-max)', 'rounds', 'status', 'by server CPU'], lines);
}

export function printColumns(header: string[], lines: string[][]): void {
  const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => (line[column] as string).length)));
  const format = (cells: string[]) =>
    cells
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column] as number) : cell.padStart(widths[column] as number)))
      .join('  ');
  console.log(format(header));
  console.log(widths.map((width) => '-'.repeat(width)).join('  '));
  for (const line of lines) console.log(format(line));
}
