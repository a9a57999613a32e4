/**
 * The performance goals of issue 7, each a ratio between two figures of the same run (never a
 * wall-clock threshold, so they mean the same on any machine). The runner evaluates every goal
 * once per round (bench/rounds.ts) and judges it on the median of those figures, printed with
 * their spread after the table; a goal that is not met is reported, not failed: the bench exits
 * non-zero only when it could not run.
 */
export interface Figures {
  /**
   * Requests per second of each row in one round, by scenario name, corrected for the machine's
   * drift: scaled by how the document baseline measured beside that round compares with its median.
   */
  rps: ReadonlyMap<string, number>;
  /** Start-to-ready milliseconds of one round, by start command. */
  startMs: ReadonlyMap<string, number>;
}

export interface Goal {
  label: string;
  /** The goal as the table prints it, e.g. `>= 0.8`. */
  target: string;
  /** undefined when a row it needs failed or was not run. */
  figure(figures: Figures): number | undefined;
  met(figure: number): boolean;
}

export const DOC_BASELINE = 'baseline: token lookup + 2 KB document';
export const KV_BASELINE = 'baseline: fastify + sqlite pk select';
export const START_NODE = 'node dist/main.js';
export const START_NPM = 'npm start';
export const START_BARE = 'bare node:http server';

/** Throughput of `row` as a fraction of `reference`'s. */
export function throughput(label: string, row: string, reference: string, min: number): Goal {
  return {
    label,
    target: `>= ${min}`,
    figure: ({ rps }) => quotient(rps.get(row), rps.get(reference)),
    met: (figure) => figure >= min,
  };
}

/** What `row` costs per request, in requests of `reference` (how many times slower). */
export function cost(label: string, row: string, reference: string, max: number): Goal {
  return {
    label,
    target: `<= ${max}x`,
    figure: ({ rps }) => quotient(rps.get(reference), rps.get(row)),
    met: (figure) => figure <= max,
  };
}

/**
 * What one iteration of a paired row (a request and its follow-up, both counted in its req/s)
 * costs, in requests of `reference`.
 */
export function pairCost(label: string, pairRow: string, reference: string, max: number): Goal {
  return {
    label,
    target: `<= ${max}x`,
    figure: ({ rps }) => quotient(rps.get(reference), (rps.get(pairRow) ?? 0) / 2),
    met: (figure) => figure <= max,
  };
}

/**
 * Milliseconds one iteration of `row` takes (requests run one at a time on the server's one
 * thread): one request, or a pair of a paired row (`requestsPerIteration` 2).
 */
export function millisecondsPer(label: string, row: string, maxMs: number, requestsPerIteration = 1): Goal {
  return {
    label,
    target: `<= ${maxMs} ms`,
    figure: ({ rps }) => {
      const perSecond = rps.get(row);
      return perSecond === undefined || perSecond === 0 ? undefined : (1000 * requestsPerIteration) / perSecond;
    },
    met: (figure) => figure <= maxMs,
  };
}

/** Spawn-to-ready of `command` in spawns of the bare Node HTTP server measured in the same round. */
function startCost(command: string, max: number): Goal {
  return {
    label: `spawn to ready, ${command} vs ${START_BARE}`,
    target: `<= ${max}x`,
    figure: ({ startMs }) => quotient(startMs.get(command), startMs.get(START_BARE)),
    met: (figure) => figure <= max,
  };
}

function quotient(numerator: number | undefined, denominator: number | undefined): number | undefined {
  if (numerator === undefined || denominator === undefined || numerator === 0 || denominator === 0) return undefined;
  return numerator / denominator;
}

export const POINT_READS = [
  'GET /api/v2/workspaces/:id',
  'GET /api/v2/organizations/:org',
  'GET /v1/cubbyhole/:path',
  'GET /v1/auth/token/lookup-self',
];

/** A list at two store sizes: the big one costs at most 1.3 times the small one. */
export function flat(label: string, small: string, big: string): Goal {
  return cost(`${label} flat (big vs small store)`, big, small, 1.3);
}

const goals: Goal[] = [
  ...POINT_READS.map((name) => throughput(`${name} vs document baseline`, name, DOC_BASELINE, 0.8)),
  startCost(START_NODE, 3),
];

/** Scenario files add the goals about their own rows. */
export function addGoals(...more: Goal[]): void {
  goals.push(...more);
}

export function allGoals(): readonly Goal[] {
  return goals;
}
