import { isoTimestamp } from '../../core/clock.js';
import { spell, spellKeys, type Dialect } from '../../core/dialect.js';
import { editionAllows, type Edition } from '../../core/edition.js';
import type { ExecutionMode, StoredVcsRepo } from '../../store/tables.js';
import type { OrganizationRow } from '../auth/principal.js';
import type { WorkspacePermission } from '../auth/workspace-permissions.js';
import type { ResourceObject } from '../jsonapi/types.js';
import type { TagRow } from '../tags/repo.js';
import { DEFAULT_AGENT_POOL_ID } from '../organizations/repo.js';
import { organizationServiceAccount } from '../users/service.js';
import type { WorkspaceRow } from './repo.js';
import { retentionPolicyRelationship } from '../retention-policy.js';

/** What a workspace's wire form needs besides its row; loaded per page, never per row. */
export interface WorkspaceView {
  workspace: WorkspaceRow;
  organization: OrganizationRow;
  /** Tags in the order they were added. */
  tags: readonly TagRow[];
  /** The permissions of the caller the response is for. */
  permissions: Readonly<Record<WorkspacePermission, boolean>>;
  /** The outputs of the current state version, in state order. */
  outputIds: readonly string[];
  /** The workspace's variables, in creation order. */
  variableIds: readonly string[];
  /** Ids of its own tag bindings and of those in force (the project's included), when loaded. */
  tagBindingIds?: { own: readonly string[]; effective: readonly string[] } | undefined;
}

export interface RenderOptions {
  dialect: Dialect;
  /** Hosted-only attributes and relationships appear on the hosted edition only. */
  edition: Edition;
  /** `scheme://host` of the request, for the absolute URLs real responses carry (webhook URL). */
  origin: string;
}

/** The organization's `default-execution-mode`, which workspaces without an override follow. */
export function organizationDefaultMode(organization: OrganizationRow): ExecutionMode {
  const mode = organization.attributes['default-execution-mode'];
  return mode === 'local' || mode === 'agent' ? mode : 'remote';
}

/** Execution mode and agent pool in force: the workspace's own, or the organization's defaults. */
export function effectiveExecution(
  workspace: WorkspaceRow,
  organization: OrganizationRow,
): { mode: ExecutionMode; agentPoolId: string | null } {
  if (workspace.executionMode !== null) return { mode: workspace.executionMode, agentPoolId: workspace.agentPoolId };
  const mode = organizationDefaultMode(organization);
  const pool = organization.attributes[DEFAULT_AGENT_POOL_ID];
  return { mode, agentPoolId: mode === 'agent' && typeof pool === 'string' ? pool : null };
}

/** Azure DevOps identifiers carry `/_git/`; everything else is treated as a GitHub-style `org/repo`. */
function vcsRepoResource(repo: StoredVcsRepo, options: RenderOptions): Record<string, unknown> {
  const azure = repo.identifier.includes('/_git/');
  const rendered: Record<string, unknown> = {
    branch: repo.branch,
    'display-identifier': repo.identifier,
    identifier: repo.identifier,
    'ingress-submodules': repo['ingress-submodules'],
    'oauth-token-id': repo['oauth-token-id'],
    'repository-http-url': azure ? `https://dev.azure.com/${repo.identifier}` : `https://github.com/${repo.identifier}`,
    'service-provider': azure ? 'ado_services' : 'github',
    'tags-regex': repo['tags-regex'],
    'webhook-url': `${options.origin}/webhooks/vcs/${repo['webhook-id']}`,
  };
  if (options.dialect === 'upstream') rendered['github-app-installation-id'] = repo['github-app-installation-id'];
  return rendered;
}

/**
 * The lock holder. A lock taken with an organization token belongs to the organization's service
 * account, a user (`api-org-…`), as the real service shows it; that account has no `/users/:id`.
 */
function lockedByRelationship(workspace: WorkspaceRow, organization: OrganizationRow) {
  const locker = workspace.lockedBy;
  if (!locker) return { data: null };
  if (locker.kind === 'organization') return { data: { id: organizationServiceAccount(organization).id, type: 'users' } };
  const type = locker.kind === 'user' ? 'users' : locker.kind === 'run' ? 'runs' : 'teams';
  return { data: { id: locker.id, type }, links: { related: `/api/v2/${type}/${locker.id}` } };
}

const tagBindingRelationships = (ids: { own: readonly string[]; effective: readonly string[] }, base: string) => ({
  'tag-bindings': { data: ids.own.map((id) => ({ id, type: 'tag-bindings' })), links: { related: `${base}/tag-bindings` } },
  'effective-tag-bindings': {
    data: ids.effective.map((id) => ({ id, type: 'effective-tag-bindings' })),
    links: { related: `${base}/effective-tag-bindings` },
  },
});

const related = (id: string | null, type: string) =>
  id ? { data: { id, type }, links: { related: `/api/v2/${type}/${id}` } } : { data: null };

/**
 * The `workspaces` resource. It is a function of the view alone, so create, show by id or name,
 * list and the consumer list serialize a workspace identically for the same caller (real clients
 * compare them field by field).
 */
export function workspaceResource(view: WorkspaceView, options: RenderOptions): ResourceObject {
  const { workspace, organization } = view;
  const execution = effectiveExecution(workspace, organization);
  const overridden = workspace.executionMode !== null;
  const orgName = encodeURIComponent(organization.name);
  const wsName = encodeURIComponent(workspace.name);
  const base = `/api/v2/workspaces/${workspace.id}`;
  const attributes = spellKeys<unknown>(
    {
      name: workspace.name,
      description: workspace.description,
      environment: 'default',
      'execution-mode': execution.mode,
      operations: execution.mode !== 'local',
      'auto-apply': workspace.autoApply,
      'auto-apply-run-trigger': workspace.autoApplyRunTrigger,
      'auto-destroy-at': workspace.autoDestroyAt ? isoTimestamp(workspace.autoDestroyAt) : null,
      'auto-destroy-activity-duration': workspace.autoDestroyActivityDuration,
      'allow-destroy-plan': workspace.allowDestroyPlan,
      'file-triggers-enabled': workspace.fileTriggersEnabled,
      'global-remote-state': workspace.globalRemoteState,
      'queue-all-runs': workspace.queueAllRuns,
      'speculative-enabled': workspace.speculativeEnabled,
      'structured-run-output-enabled': workspace.structuredRunOutputEnabled,
      'tool-version': workspace.toolVersion,
      'trigger-prefixes': workspace.triggerPrefixes,
      'trigger-patterns': workspace.triggerPatterns,
      'working-directory': workspace.workingDirectory,
      'vcs-repo': workspace.vcsRepo ? vcsRepoResource(workspace.vcsRepo, options) : null,
      'vcs-repo-identifier': workspace.vcsRepo?.identifier ?? null,
      source: spell(workspace.source, options.dialect),
      'source-name': workspace.sourceName,
      'source-url': workspace.sourceUrl,
      locked: workspace.lockedBy !== null,
      'created-at': isoTimestamp(workspace.createdAt),
      'updated-at': isoTimestamp(workspace.updatedAt),
      'latest-change-at': isoTimestamp(workspace.latestChangeAt),
      'resource-count': workspace.resourceCount,
      // Milliseconds, as the real service reports them; null until a plan or apply was timed.
      'apply-duration-average': workspace.appliesTimed > 0 ? Math.round(workspace.applyDurationTotalMs / workspace.appliesTimed) : null,
      'plan-duration-average': workspace.plansTimed > 0 ? Math.round(workspace.planDurationTotalMs / workspace.plansTimed) : null,
      'policy-check-failures': null,
      'run-failures': workspace.runsCount > 0 ? workspace.runFailures : null,
      'workspace-kpis-runs-count': workspace.runsCount > 0 ? workspace.runsCount : null,
      actions: { 'is-destroyable': true },
      permissions: view.permissions,
      'tag-names': view.tags.map((tag) => tag.name),
      'setting-overwrites': { 'execution-mode': overridden, 'agent-pool': overridden },
      'can-queue-destroy-plan': view.permissions['can-queue-destroy'] && workspace.allowDestroyPlan,
      'hyok-enabled': false,
    },
    options.dialect,
  );
  const hosted = editionAllows.hostedOnlyAttributes(options.edition);
  // `last-assessment-result-at` is hosted-only too, and present only once assessments ran: never here.
  if (hosted) attributes['assessments-enabled'] = workspace.assessmentsEnabled;
  return {
    id: workspace.id,
    type: 'workspaces',
    attributes,
    relationships: {
      organization: { data: { id: organization.name, type: 'organizations' } },
      'agent-pool': { data: execution.agentPoolId ? { id: execution.agentPoolId, type: 'agent-pools' } : null },
      'current-configuration-version': related(workspace.currentConfigurationVersionId, 'configuration-versions'),
      'current-run': related(workspace.currentRunId, 'runs'),
      'latest-run': related(workspace.latestRunId, 'runs'),
      'current-state-version': {
        data: workspace.currentStateVersionId ? { id: workspace.currentStateVersionId, type: 'state-versions' } : null,
        links: { related: `${base}/current-state-version` },
      },
      outputs: {
        data: view.outputIds.map((id) => ({ id, type: 'workspace-outputs' })),
        links: { related: `${base}/current-state-version-outputs` },
      },
      vars: { data: view.variableIds.map((id) => ({ id, type: 'vars' })), links: { related: `${base}/vars` } },
      readme: { data: null },
      'remote-state-consumers': { links: { related: `${base}/relationships/remote-state-consumers` } },
      ...(workspace.sshKeyId
        ? {
            'ssh-key': { data: { id: workspace.sshKeyId, type: 'ssh-keys' }, links: { related: `/api/v2/ssh-keys/${workspace.sshKeyId}` } },
          }
        : {}),
      'locked-by': lockedByRelationship(workspace, organization),
      project: { data: { id: workspace.projectId, type: 'projects' } },
      tags: { data: view.tags.map((tag) => ({ id: tag.id, type: 'tags' })) },
      ...(view.tagBindingIds ? tagBindingRelationships(view.tagBindingIds, base) : {}),
      ...(hosted ? { 'current-assessment-result': { data: null } } : {}),
      ...retentionPolicyRelationship(workspace.dataRetentionPolicy, base),
    },
    links: {
      self: `/api/v2/organizations/${orgName}/workspaces/${wsName}`,
      'self-html': `/app/${orgName}/workspaces/${wsName}`,
    },
  };
}
