import { isoTimestamp } from '../../core/clock.js';
import { spell, spellKeys, type Dialect } from '../../core/dialect.js';
import type { PrincipalLocker } from '../../store/tables.js';
import type { OrganizationRow } from '../auth/principal.js';
import { hasPermission } from '../auth/workspace-permissions.js';
import type { ResourceObject } from '../jsonapi/types.js';
import { organizationServiceAccount } from '../users/service.js';
import type { Located } from '../workspaces/service.js';
import type { PhaseRow, RunRow } from './repo.js';
import { actionFlags } from './states.js';

export interface RunRenderContext {
  dialect: Dialect;
  nowMs: number;
  located: Located;
  plan: PhaseRow | undefined;
  apply: PhaseRow | undefined;
  taskStageIds: string[];
  commentIds: string[];
  positionInQueue: number;
  /** Whether the caller holds Manage Policy Overrides in the run's organization. */
  canOverridePolicyCheck?: boolean;
}

/** A principal as a `users` relationship: teams have none; an organization token acts as its service account. */
export function actorRelationship(actor: PrincipalLocker | null, organization: OrganizationRow) {
  if (!actor || actor.kind === 'team') return { data: null };
  const id = actor.kind === 'user' ? actor.id : organizationServiceAccount(organization).id;
  return { data: { id, type: 'users' }, links: { related: `/api/v2/users/${id}` } };
}

/** The `runs` resource: attributes as the Go client reads them, actions and permissions for this caller. */
export function runResource(run: RunRow, context: RunRenderContext): ResourceObject {
  const { located } = context;
  const can = (permission: 'can-queue-apply' | 'can-queue-run') => hasPermission(located.scope, located.level, permission);
  const base = `/api/v2/runs/${run.id}`;
  const attributes = spellKeys<unknown>(
    {
      actions: actionFlags(run, context.nowMs),
      'allow-config-generation': false,
      'allow-empty-apply': run.allowEmptyApply,
      'auto-apply': run.autoApply,
      'canceled-at': run.statusTimestamps['canceled-at'] ?? null,
      'created-at': isoTimestamp(run.createdAt),
      'force-cancel-available-at': run.forceCancelAvailableAt ? isoTimestamp(run.forceCancelAvailableAt) : null,
      'has-changes': run.hasChanges,
      'is-destroy': run.isDestroy,
      message: run.message,
      permissions: {
        'can-apply': can('can-queue-apply'),
        'can-cancel': can('can-queue-run'),
        'can-comment': can('can-queue-run'),
        'can-discard': can('can-queue-run'),
        'can-force-cancel': can('can-queue-run'),
        'can-force-execute': can('can-queue-run'),
        'can-override-policy-check': context.canOverridePolicyCheck ?? false,
      },
      'plan-only': run.planOnly,
      'policy-paths': run.policyPaths,
      'position-in-queue': context.positionInQueue,
      refresh: run.refresh,
      'refresh-only': run.refreshOnly,
      'replace-addrs': run.replaceAddrs,
      'save-plan': run.savePlan,
      source: spell(run.source, context.dialect),
      status: run.status,
      'status-timestamps': run.statusTimestamps,
      'target-addrs': run.targetAddrs,
      'tool-version': run.terraformVersion,
      'trigger-reason': run.triggerReason,
      variables: run.variables,
    },
    context.dialect,
  );
  const to = (id: string | undefined, type: string) => ({
    data: id ? { id, type } : null,
    ...(id ? { links: { related: `/api/v2/${type}/${id}` } } : {}),
  });
  return {
    id: run.id,
    type: 'runs',
    attributes,
    relationships: {
      workspace: { data: { id: run.workspaceId, type: 'workspaces' } },
      apply: to(context.apply?.id, 'applies'),
      plan: to(context.plan?.id, 'plans'),
      'configuration-version': to(run.configurationVersionId, 'configuration-versions'),
      'cost-estimate': { data: null },
      'created-by': actorRelationship(run.createdBy, located.organization),
      'confirmed-by': actorRelationship(run.confirmedBy, located.organization),
      'policy-checks': { data: [], links: { related: `${base}/policy-checks` } },
      'task-stages': { data: context.taskStageIds.map((id) => ({ id, type: 'task-stages' })), links: { related: `${base}/task-stages` } },
      comments: { data: context.commentIds.map((id) => ({ id, type: 'comments' })), links: { related: `${base}/comments` } },
      'run-events': { links: { related: `${base}/run-events` } },
    },
    links: { self: base },
  };
}

/** The `plans` or `applies` resource; `logReadUrl` is absolute and self-authorizing. */
export function phaseResource(phase: PhaseRow, logReadUrl: string): ResourceObject {
  const type = phase.kind === 'plan' ? 'plans' : 'applies';
  const base = `/api/v2/${type}/${phase.id}`;
  const attributes: Record<string, unknown> = {
    'execution-details': phase.executionDetails ?? { mode: 'remote' },
    'log-read-url': logReadUrl,
    'resource-additions': phase.resourceAdditions,
    'resource-changes': phase.resourceChanges,
    'resource-destructions': phase.resourceDestructions,
    'resource-imports': phase.resourceImports,
    status: phase.status,
    'status-timestamps': phase.statusTimestamps,
  };
  if (phase.kind === 'plan') {
    attributes['has-changes'] = phase.hasChanges;
    attributes['generated-configuration'] = false;
  }
  return {
    id: phase.id,
    type,
    attributes,
    relationships: phase.kind === 'plan' ? { exports: { data: [] } } : { 'state-versions': { data: [] } },
    links: {
      self: base,
      ...(phase.kind === 'plan' ? { 'json-output': `${base}/json-output`, 'json-output-redacted': `${base}/json-output-redacted` } : {}),
    },
  };
}
