import { conflict } from '../../core/errors.js';

/** Statuses a run ends in: nothing more happens to it. */
export const FINAL_STATUSES = new Set(['applied', 'planned_and_finished', 'discarded', 'canceled', 'force_canceled', 'errored']);

/**
 * Statuses in which the run is paused, waiting for someone: a confirmation or a task-stage override.
 * `planned_and_saved` is a saved-plan run's: it waits for the apply action (or a discard) without
 * holding its workspace, and so is not final.
 */
const AWAITING = new Set([
  'planned',
  'planned_and_saved',
  'cost_estimated',
  'policy_checked',
  'policy_override',
  'post_plan_awaiting_decision',
  'pre_apply_awaiting_decision',
]);

/** Statuses in which work is going on (or queued for it), so a cancel has something to stop. */
const WORKING = new Set([
  'pending',
  'fetching',
  'fetching_completed',
  'queuing',
  'plan_queued',
  'pre_plan_running',
  'pre_plan_completed',
  'planning',
  'post_plan_running',
  'post_plan_completed',
  'policy_checking',
  'confirmed',
  'queuing_apply',
  'pre_apply_running',
  'pre_apply_completed',
  'apply_queued',
  'applying',
  'post_apply_running',
]);

export const isFinal = (status: string) => FINAL_STATUSES.has(status);

/** The statuses the apply action confirms: a plan waiting for it, or a saved plan. */
export const APPLIABLE = new Set(['planned', 'planned_and_saved']);

export interface RunActionFlags {
  'is-cancelable': boolean;
  'is-confirmable': boolean;
  'is-discardable': boolean;
  'is-force-cancelable': boolean;
}

export function actionFlags(
  run: { status: string; planOnly: boolean; forceCancelAvailableAt: Date | null },
  nowMs: number,
): RunActionFlags {
  const confirmable =
    !run.planOnly &&
    AWAITING.has(run.status) &&
    run.status !== 'post_plan_awaiting_decision' &&
    run.status !== 'policy_override' &&
    run.status !== 'pre_apply_awaiting_decision';
  return {
    'is-cancelable': WORKING.has(run.status),
    'is-confirmable': confirmable,
    'is-discardable': run.status === 'pending' || AWAITING.has(run.status),
    'is-force-cancelable': WORKING.has(run.status) && run.forceCancelAvailableAt !== null && run.forceCancelAvailableAt.getTime() <= nowMs,
  };
}

/** The 409s of the run actions, in the words of the real API's documentation. */
export const TRANSITION_REFUSED = {
  apply: () => conflict('Run was not paused for confirmation or priority; apply not allowed', { title: 'transition not allowed' }),
  discard: () => conflict('Run was not paused for confirmation or priority; discard not allowed', { title: 'transition not allowed' }),
  cancel: () => conflict('Run was not planning or applying; cancel not allowed', { title: 'transition not allowed' }),
  forceCancel: () =>
    conflict('Run was not planning or applying, has not been canceled non-forcefully, or the cool-off period has not yet passed', {
      title: 'transition not allowed',
    }),
  forceExecute: () =>
    conflict("The run is not pending, its workspace was not locked by its workspace's current run, or the workspace is locked by a user", {
      title: 'transition not allowed',
    }),
};

/** How long after a cancel request a force-cancel becomes available (the real service's cool-off). */
export const FORCE_CANCEL_COOL_OFF_MS = 60 * 60 * 1000;

/** `plan_and_apply` and the other operations `filter[operation]` selects. */
export function operationOf(run: {
  planOnly: boolean;
  isDestroy: boolean;
  refreshOnly: boolean;
  savePlan: boolean;
  allowEmptyApply: boolean;
}): string {
  if (run.planOnly) return 'plan_only';
  if (run.refreshOnly) return 'refresh_only';
  if (run.isDestroy) return 'destroy';
  if (run.savePlan) return 'save_plan';
  if (run.allowEmptyApply) return 'empty_apply';
  return 'plan_and_apply';
}
