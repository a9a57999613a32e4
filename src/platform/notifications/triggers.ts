import type { NotificationDestination } from '../../store/tables.js';

/** What a configuration belongs to; the wire's polymorphic `subscribable`. */
export type SubscribableKind = 'workspaces' | 'teams' | 'projects';

export const DESTINATIONS: readonly NotificationDestination[] = ['generic', 'email', 'slack', 'microsoft-teams'];

/** Destinations that post to a URL (email goes through the mail outbox instead). */
export const URL_DESTINATIONS: ReadonlySet<NotificationDestination> = new Set(['generic', 'slack', 'microsoft-teams']);

/** The triggers a workspace (or project) configuration may name, exactly as the API spells them. */
export const WORKSPACE_TRIGGERS = [
  'run:created',
  'run:planning',
  'run:needs_attention',
  'run:applying',
  'run:completed',
  'run:errored',
  'assessment:drifted',
  'assessment:failed',
  'assessment:check_failure',
  'workspace:auto_destroy_reminder',
  'workspace:auto_destroy_run_results',
] as const;

/** A team configuration's only trigger. */
export const TEAM_TRIGGERS = ['change_request:created'] as const;

export function triggersFor(kind: SubscribableKind): readonly string[] {
  return kind === 'teams' ? TEAM_TRIGGERS : WORKSPACE_TRIGGERS;
}

/** Statuses a run pauses in for someone (a confirmation, a policy override, a task decision). */
const NEEDS_ATTENTION = new Set([
  'planned',
  'cost_estimated',
  'policy_checked',
  'policy_override',
  'policy_soft_failed',
  'post_plan_awaiting_decision',
  'pre_apply_awaiting_decision',
]);

const ERRORED_MESSAGES: Record<string, string> = {
  canceled: 'Run Canceled',
  force_canceled: 'Run Canceled',
  discarded: 'Run Discarded',
  errored: 'Run Errored',
};

/**
 * The trigger a run entering `status` fires, with the notification's message, or null when the
 * status is not one anyone subscribes to. A run that pauses where it would go on by itself
 * (auto-apply) does not need attention.
 */
export function runTrigger(status: string, autoApply: boolean): { trigger: string; message: string } | null {
  if (status === 'pending') return { trigger: 'run:created', message: 'Run Created' };
  if (status === 'planning') return { trigger: 'run:planning', message: 'Run Planning' };
  if (NEEDS_ATTENTION.has(status)) {
    if (autoApply && (status === 'planned' || status === 'policy_checked' || status === 'cost_estimated')) return null;
    return { trigger: 'run:needs_attention', message: 'Run Needs Attention' };
  }
  if (status === 'applying') return { trigger: 'run:applying', message: 'Run Applying' };
  if (status === 'applied' || status === 'planned_and_finished') return { trigger: 'run:completed', message: 'Run Completed' };
  const errored = ERRORED_MESSAGES[status];
  return errored ? { trigger: 'run:errored', message: errored } : null;
}
