/**
 * The checks a run passes between two statuses: a run task stage today, policy checks next. A
 * check answers with a verdict; the engine alone moves the run: to the check's `running` status
 * before asking, to its `completed` status on `proceed`, and to `errored` on `stop`. A new check
 * is its statuses in the lifecycle table (lifecycle.ts) and an entry in the engine's check list.
 */
import type { RunStatus } from './lifecycle.js';
import type { RunRow } from './repo.js';

export type TaskStageName = 'pre_plan' | 'post_plan' | 'pre_apply' | 'post_apply';

/** What a check decided: go on, or stop the run (a mandatory task failed and was not overridden). */
export type StageVerdict = 'proceed' | 'stop';

/**
 * A check's verdict: also `hold`, when the run must wait for someone (a soft-failed policy check):
 * the engine moves it to the check's `held` status and asks `decision` what was decided.
 */
export type CheckVerdict = StageVerdict | 'hold';

export interface CheckContext {
  signal: AbortSignal;
  /** `scheme://host` the API was reached at when the run was created: where callbacks go. */
  origin: string;
  /** The run's plan (task payloads name it). */
  planId: string;
}

/** Where in the lifecycle a check stands. */
export type CheckPoint = 'before_plan' | 'after_plan' | 'before_apply';

export interface RunCheck {
  readonly name: string;
  readonly point: CheckPoint;
  /** The status the run shows while it is checked, and the one once the check passed. */
  readonly running: RunStatus;
  readonly completed: RunStatus;
  /** Whether this run has anything to check here; a run without passes with no status change. */
  applies(run: RunRow): boolean;
  check(run: RunRow, context: CheckContext): Promise<CheckVerdict>;
  /** The status a held run waits in, and the wait for its decision (`stop` discards it). */
  readonly held?: RunStatus;
  decision?(run: RunRow, signal: AbortSignal): Promise<StageVerdict>;
}

/** Runs a run's task stages (task-stages/runner.ts): verdicts only, never a status change. */
export interface StageRunner {
  /** Creates the run's stages from the workspace's run tasks, when the run is created. */
  prepare(run: RunRow): void;
  has(runId: string, stage: TaskStageName): boolean;
  /** `hold`: the stage waits in `awaiting_override` (failed mandatory policies that may be overridden). */
  run(run: RunRow, stage: TaskStageName, context: CheckContext): Promise<CheckVerdict>;
  /** The wait for a held stage's override; `stop` when the run ended first. */
  decision(run: RunRow, stage: TaskStageName, signal: AbortSignal): Promise<StageVerdict>;
  /** Runs a restart ended errored: the stages they left running or held end errored too. */
  interrupted(runIds: readonly string[]): void;
  reset(): void;
}

const STAGE_POINTS = { pre_plan: 'before_plan', post_plan: 'after_plan', pre_apply: 'before_apply' } as const;

/**
 * The three task stages that stand between statuses, as checks (post-apply runs after the run
 * ended). A post-plan stage held for a policy override waits in `post_plan_awaiting_decision`.
 */
export function taskStageChecks(runner: StageRunner): RunCheck[] {
  return (Object.keys(STAGE_POINTS) as (keyof typeof STAGE_POINTS)[]).map((stage) => ({
    name: `${stage} task stage`,
    point: STAGE_POINTS[stage],
    running: `${stage}_running`,
    completed: `${stage}_completed`,
    applies: (run) => runner.has(run.id, stage),
    check: (run, context) => runner.run(run, stage, context),
    ...(stage === 'post_plan'
      ? {
          held: 'post_plan_awaiting_decision' as const,
          decision: (run: RunRow, signal: AbortSignal) => runner.decision(run, stage, signal),
        }
      : {}),
  }));
}
