/**
 * The run lifecycle as a table: every status the engine moves a run through, and where it may go
 * next. The engine writes no status this table does not allow; a move it refuses is a programming
 * error (`TransitionRefused`), while the API's actions answer their own 409s (states.ts) before
 * they reach the engine. A new step between two statuses (policy checks, between the post-plan
 * stage and `planned`) is new members of `RunStatus`, their rows here, and a `RunCheck` (checks.ts).
 */

import { isFinal } from './states.js';

/** Statuses a run ends in. */
export type FinalRunStatus = 'applied' | 'planned_and_finished' | 'discarded' | 'canceled' | 'force_canceled' | 'errored';

export type RunStatus =
  | 'pending'
  | 'pre_plan_running'
  | 'pre_plan_completed'
  | 'plan_queued'
  | 'planning'
  | 'post_plan_running'
  | 'post_plan_awaiting_decision'
  | 'post_plan_completed'
  | 'policy_checking'
  | 'policy_override'
  | 'policy_checked'
  | 'planned'
  | 'planned_and_saved'
  | 'confirmed'
  | 'pre_apply_running'
  | 'pre_apply_completed'
  | 'apply_queued'
  | 'applying'
  | FinalRunStatus;

/** How any unfinished run may end early: an error, a cancel, a force-cancel. */
const INTERRUPTED: readonly FinalRunStatus[] = ['errored', 'canceled', 'force_canceled'];

/**
 * Where the plan ends: waiting for a confirmation, done (speculative, or nothing to apply), or
 * saved (a saved-plan run: it waits for the apply action without holding its workspace).
 */
const PLAN_DONE: readonly RunStatus[] = ['planned', 'planned_and_finished', 'planned_and_saved'];

/** Status → the statuses the engine may move it to (besides `INTERRUPTED`, open to every unfinished one). */
const NEXT: Readonly<Record<RunStatus, readonly RunStatus[]>> = {
  pending: ['pre_plan_running', 'plan_queued', 'discarded'],
  pre_plan_running: ['pre_plan_completed'],
  pre_plan_completed: ['plan_queued'],
  plan_queued: ['planning'],
  planning: ['post_plan_running', 'policy_checking', ...PLAN_DONE],
  // Failed mandatory policies that may be overridden hold the post-plan stage: an override or a discard.
  post_plan_running: ['post_plan_completed', 'post_plan_awaiting_decision'],
  post_plan_awaiting_decision: ['post_plan_completed', 'discarded'],
  post_plan_completed: ['policy_checking', ...PLAN_DONE],
  // A soft-failed policy check waits in `policy_override` for an override or a discard.
  policy_checking: ['policy_checked', 'policy_override'],
  policy_override: ['policy_checked', 'discarded'],
  policy_checked: PLAN_DONE,
  planned: ['confirmed', 'discarded'],
  // A saved plan goes stale (discarded) when another run of its workspace applied first.
  planned_and_saved: ['confirmed', 'discarded'],
  // A confirmed saved plan waits here for its workspace, and goes stale as above if another run applied meanwhile.
  confirmed: ['pre_apply_running', 'apply_queued', 'discarded'],
  pre_apply_running: ['pre_apply_completed'],
  pre_apply_completed: ['apply_queued'],
  apply_queued: ['applying'],
  applying: ['applied'],
  applied: [],
  planned_and_finished: [],
  discarded: [],
  canceled: [],
  force_canceled: [],
  errored: [],
};

export function isRunStatus(status: string): status is RunStatus {
  return Object.hasOwn(NEXT, status);
}

export function isFinalRunStatus(status: RunStatus): status is FinalRunStatus {
  return NEXT[status].length === 0;
}

const interrupts = (to: RunStatus) => (INTERRUPTED as readonly string[]).includes(to);

/**
 * Whether the table lets a run in `from` (as stored, so any text) move to `to`. A status the
 * engine never writes (a store from elsewhere) can still end, so a restart can clear it.
 */
export function canMove(from: string, to: RunStatus): boolean {
  if (!isRunStatus(from)) return !isFinal(from) && interrupts(to);
  if (isFinalRunStatus(from)) return false;
  return NEXT[from].includes(to) || interrupts(to);
}

/** A move the table does not allow: a bug in the engine, never an answer to a request. */
export class TransitionRefused extends Error {
  constructor(
    readonly from: string,
    readonly to: RunStatus,
  ) {
    super(`a run cannot move from ${from} to ${to}`);
    this.name = 'TransitionRefused';
  }
}

export function assertMove(from: string, to: RunStatus): void {
  if (!canMove(from, to)) throw new TransitionRefused(from, to);
}

/** The `status-timestamps` key a status is stamped under (`plan_queued` → `plan-queued-at`). */
export const timestampKey = (status: RunStatus) => `${status.replace(/_/g, '-')}-at`;
