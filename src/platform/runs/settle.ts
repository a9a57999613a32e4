import type { PlanJob, PreparedApply } from '../../adapters/executor/index.js';
import type { Gate } from './progression.js';

const MAX_SETTLE_WAIT_MS = 120_000;

/** A run the engine is working on (or holding between its plan and its apply). */
export interface ActiveRun {
  workspaceId: string;
  controller: AbortController;
  /** Set once the plan finished and the run waits for (or goes on to) its apply. */
  prepared?: PreparedApply;
  /** The job the plan ran (its apply carries it out). */
  job?: PlanJob;
  /** Resolvers of callers waiting for this run to stop moving (next gate, awaiting a decision, or the end). */
  settled: (() => void)[];
  /** The gate the run waits at, under the manual or clock progression. */
  gate?: Gate;
  force?: boolean;
  /** A confirmed saved plan waiting for its workspace's queue to hand it over (then it applies). */
  awaitingWorkspace?: boolean;
}

/**
 * The runs in progress, and waiting for one to stop moving: a test or the control plane asks to
 * be told once the run waits at a gate, waits for a decision, or has ended (`whenSettled`), and
 * the engine says so (`notify`) whenever one of those happens.
 */
export class ActiveRuns {
  private readonly runs = new Map<string, ActiveRun>();

  get(runId: string): ActiveRun | undefined {
    return this.runs.get(runId);
  }

  entries(): IterableIterator<[string, ActiveRun]> {
    return this.runs.entries();
  }

  begin(runId: string, workspaceId: string): ActiveRun {
    const entry: ActiveRun = { workspaceId, controller: new AbortController(), settled: [] };
    this.runs.set(runId, entry);
    return entry;
  }

  /** The run's work is over (ended, or wiped by a reset): stop it, free its plan, wake its waiters. */
  end(runId: string): void {
    const entry = this.runs.get(runId);
    if (!entry) return;
    this.runs.delete(runId);
    stop(entry);
  }

  /** Everything stops (reset, shutdown). */
  clear(): void {
    for (const entry of this.runs.values()) stop(entry);
    this.runs.clear();
  }

  /** Resolves at the run's next stop (at most `MAX_SETTLE_WAIT_MS`, so a stuck run cannot hang a caller). */
  settled(entry: ActiveRun): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, MAX_SETTLE_WAIT_MS);
      timer.unref();
      entry.settled.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  notify(entry: ActiveRun): void {
    for (const resolve of entry.settled.splice(0)) resolve();
  }
}

function stop(entry: ActiveRun): void {
  entry.controller.abort();
  entry.gate?.resolve();
  void entry.prepared?.dispose();
  for (const resolve of entry.settled.splice(0)) resolve();
}
