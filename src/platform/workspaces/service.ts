import type { Clock } from '../../core/clock.js';
import type { Edition } from '../../core/edition.js';
import { spell, type Dialect } from '../../core/dialect.js';
import { conflict, unprocessable } from '../../core/errors.js';
import type { Db, DbOrTx } from '../../store/store.js';
import { refusingDuplicates } from '../db-errors.js';
import { inSlices } from '../sql-slices.js';
import type { OrganizationRow, Principal, TeamRow } from '../auth/principal.js';
import { projectPermissions, projectPermissionsFor } from '../auth/project-permissions.js';
import {
  hasPermission,
  requirePermission,
  WorkspacePermissions,
  type AccessLevel,
  type CallerScope,
  type WorkspacePermission,
} from '../auth/workspace-permissions.js';
import { wireBehaviours } from '../dialect-behaviours.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import type { Page } from '../jsonapi/pagination.js';
import * as organizationsRepo from '../organizations/repo.js';
import { inheritedActivityDuration, projectForWorkspace } from '../projects/service.js';
import { requireSshKeyOf } from '../ssh-keys/service.js';
import { deleteUnusedTags, tagIdsOfWorkspace } from '../tags/repo.js';
import { TagService, type TagReference } from '../tags/service.js';
import type { TagBindingService } from '../tag-bindings/service.js';
import type { TagBindingInput } from '../tag-bindings/rules.js';
import { defaultWorkspaceRow } from './defaults.js';
import type { WorkspaceSettingsInput } from './input.js';
import * as repo from './repo.js';
import type { WorkspaceFilter, WorkspaceRow, WorkspaceSort } from './repo.js';
import { keptPageOfWorkspaces } from './page-cache.js';
import { locateWorkspace, locateWorkspaceByNames, type LocatedRead } from './located-cache.js';
import { organizationDefaultMode } from './resource.js';
import { mergeVcsRepo, resolveExecution, validToolVersion } from './rules.js';
import { LATEST_RELEASE } from '../tool-versions/releases.js';
import { selectableReleases } from '../tool-versions/service.js';

/** A workspace a seed or the control plane makes: its name and the settings that differ from the defaults. */
export type SeededWorkspace = { name: string } & Partial<
  Pick<WorkspaceRow, 'description' | 'executionMode' | 'toolVersion' | 'autoApply' | 'globalRemoteState'>
>;

/** A workspace with its organization and where the caller stands on it. */
export interface Located {
  workspace: WorkspaceRow;
  organization: OrganizationRow;
  scope: CallerScope;
  level: AccessLevel | null;
}

export class WorkspaceService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly dialect: Dialect,
    private readonly edition: Edition,
    private readonly tags: TagService,
    /** The agent-pool domain's check that a pool is the organization's (422 at `pointer` otherwise). */
    private readonly requireAgentPool: (db: Db, organizationId: string, poolId: string, pointer: string) => void,
    private readonly tagBindings: TagBindingService,
  ) {}

  /**
   * Where the caller stands on each of these workspaces of one organization, for a page at once
   * (one query for the rows, one for the levels). Ids of missing workspaces are left out.
   */
  locateAll(organization: OrganizationRow, scope: CallerScope, ids: readonly string[]): Map<string, Located> {
    const rows = repo.findWorkspaces(this.db, [...new Set(ids)]).filter((workspace) => workspace.organizationId === organization.id);
    const levels = new WorkspacePermissions(this.db).levels(
      scope,
      rows.map((workspace) => workspace.id),
    );
    return new Map(rows.map((workspace) => [workspace.id, { workspace, organization, scope, level: levels.get(workspace.id) ?? null }]));
  }

  /** The organization named in a path, if the caller is in it at all; otherwise the 404 of a missing one. */
  organization(principal: Principal, name: string): { organization: OrganizationRow; scope: CallerScope } {
    const organization = organizationsRepo.findOrganizationByName(this.db, name);
    if (!organization) throw NOT_FOUND;
    const scope = new WorkspacePermissions(this.db).scope(principal, organization.id);
    if (!scope.grants.has('read')) throw NOT_FOUND;
    return { organization, scope };
  }

  /** `teamsOfUser`: the user's teams there, when the read of the workspace joined them in. */
  private standing(
    principal: Principal,
    workspace: WorkspaceRow,
    organization: OrganizationRow,
    teamsOfUser?: () => TeamRow[] | null,
  ): Located {
    const permissions = new WorkspacePermissions(this.db);
    const scope = permissions.scope(principal, organization.id, teamsOfUser);
    return { workspace, organization, scope, level: permissions.level(scope, workspace.id) };
  }

  /** `standing` of a kept read (located-cache.ts): a user's teams, when it joined them in, handed over as a copy. */
  private standingOfFound(principal: Principal, found: LocatedRead): Located {
    const { teamsOfUser } = found;
    const joined = teamsOfUser === undefined ? undefined : () => (teamsOfUser === null ? null : [...teamsOfUser]);
    return this.standing(principal, found.workspace, found.organization, joined);
  }

  /** The workspace and the caller's standing, without deciding anything (routes then `require`). */
  locate(principal: Principal, id: string): Located {
    // A user's standing rides on the same read (one statement); tokens of teams and organizations carry theirs.
    const user = principal.kind === 'user' ? principal.user.id : undefined;
    const found = locateWorkspace(this.db, id, user);
    if (!found) throw NOT_FOUND;
    return this.standingOfFound(principal, found);
  }

  /**
   * The workspace `name` of the organization `organizationName` and the caller's standing: the
   * 404 of a missing organization when the caller may not read it, as for a missing workspace.
   */
  locateByName(principal: Principal, organizationName: string, name: string): Located {
    const userId = principal.kind === 'user' ? principal.user.id : undefined;
    const found = locateWorkspaceByNames(this.db, organizationName, name, userId);
    if (!found) throw NOT_FOUND;
    const located = this.standingOfFound(principal, found);
    if (!located.scope.grants.has('read')) throw NOT_FOUND;
    return located;
  }

  /** `located` if the caller holds `permission` on it; a 404 otherwise, as for a missing workspace. */
  require(located: Located, permission: WorkspacePermission = 'can-read-settings'): Located {
    requirePermission(located.scope, located.level, permission);
    return located;
  }

  /** Re-reads the workspace after a change, keeping the caller's standing. */
  reload(located: Located): Located {
    const workspace = repo.findWorkspace(this.db, located.workspace.id);
    if (!workspace) throw NOT_FOUND;
    return { ...located, workspace };
  }

  private checkNameFree(organizationId: string, name: string): void {
    if (repo.findWorkspaceByName(this.db, organizationId, name))
      throw unprocessable('name has already been taken', '/data/attributes/name');
  }

  private checkPool(organizationId: string, poolId: string | null, previous: string | null): void {
    if (poolId !== null && poolId !== previous) this.requireAgentPool(this.db, organizationId, poolId, '/data/attributes/agent-pool-id');
  }

  /**
   * Creation: the owners team, Manage Workspaces, the organization token, or a team whose access to
   * the named project lets it create workspaces there; others get the missing-organization 404.
   */
  creatable(
    principal: Principal,
    organizationName: string,
    projectId?: string | null,
  ): { organization: OrganizationRow; scope: CallerScope } {
    const found = this.organization(principal, organizationName);
    if (found.scope.grants.has('manage-workspaces')) return found;
    if (projectId && projectPermissions(this.db, principal, found.organization.id, projectId).has('create-workspace')) return found;
    throw NOT_FOUND;
  }

  /** `projectId` is `relationships.project`: absent or null puts the workspace in the default project. */
  create(
    principal: Principal,
    organizationName: string,
    settings: WorkspaceSettingsInput,
    tags: TagReference[],
    projectId?: string | null,
    tagBindings: readonly TagBindingInput[] = [],
  ): Located {
    const { organization, scope } = this.creatable(principal, organizationName, projectId);
    if (settings.name === undefined) throw unprocessable('name is required', '/data/attributes/name');
    this.checkNameFree(organization.id, settings.name);
    const project = projectForWorkspace(this.db, organization.id, projectId);
    const execution = resolveExecution({ mode: null, agentPoolId: null }, settings, organizationDefaultMode(organization));
    this.checkPool(organization.id, execution.agentPoolId, null);
    const toolVersionName = spell('tool-version', this.dialect);
    const row: WorkspaceRow = {
      ...defaultWorkspaceRow(this.db, organization.id, settings.name, this.clock.now(), this.edition),
      ...settingColumns(settings),
      ...definedOnly({ assessmentsEnabled: settings.assessmentsEnabled, sourceName: settings.sourceName, sourceUrl: settings.sourceUrl }),
      executionMode: execution.mode,
      agentPoolId: execution.agentPoolId,
      toolVersion:
        settings.toolVersion === undefined
          ? LATEST_RELEASE
          : validToolVersion(settings.toolVersion, toolVersionName, selectableReleases(this.db)),
      vcsRepo: mergeVcsRepo(null, settings.vcsRepo),
      projectId: project,
      // A workspace created in a project with auto-destroy set takes the project's duration unless it names its own.
      autoDestroyActivityDuration:
        settings.autoDestroyActivityDuration === undefined
          ? inheritedActivityDuration(this.db, project)
          : settings.autoDestroyActivityDuration,
    };
    this.db.transaction((tx) => {
      repo.insertWorkspace(tx, row);
      this.tags.add(tx, organization.id, row.id, tags);
      this.tagBindings.replace(tx, { organizationId: organization.id, workspaceId: row.id }, tagBindings, BINDINGS_POINTER);
    });
    const permissions = new WorkspacePermissions(this.db);
    return { workspace: row, organization, scope, level: permissions.level(scope, row.id) };
  }

  /**
   * Many workspaces in one transaction (the control plane's bulk creation, seeds), each with what
   * `create` gives a body that names nothing else: the default project and the duration it passes
   * on; `settings` overrides a default per workspace. A name taken is a 409 and refuses the lot,
   * so nothing is half-created.
   */
  createMany(organization: OrganizationRow, entries: readonly (string | SeededWorkspace)[], db: DbOrTx = this.db): Date {
    const at = this.clock.now();
    const projectId = projectForWorkspace(db, organization.id, null);
    const placed = { projectId, autoDestroyActivityDuration: inheritedActivityDuration(db, projectId) };
    const rows = entries.map((entry) => {
      const { name, ...settings } = typeof entry === 'string' ? { name: entry } : entry;
      return { ...defaultWorkspaceRow(db, organization.id, name, at, this.edition), ...placed, ...settings };
    });
    refusingDuplicates(
      () => db.transaction((tx) => inSlices(rows).forEach((slice) => repo.insertWorkspaces(tx, slice))),
      () => conflict(`workspace ${rows.length === 1 ? rows[0]?.name : 'names'} already exists`),
    );
    return at;
  }

  /**
   * Settings changes need admin access; absent attributes keep their values (with the spec's
   * exceptions). A `projectId` moves the workspace (null: back to the default project); undefined
   * leaves it. `tagBindings`, when given, replaces the workspace's own bindings (an empty list
   * removes them all).
   */
  update(located: Located, settings: WorkspaceSettingsInput, projectId?: string | null, tagBindings?: readonly TagBindingInput[]): Located {
    this.require(located, 'can-update');
    const { workspace, organization } = located;
    const project = projectId === undefined ? undefined : projectForWorkspace(this.db, organization.id, projectId);
    if (settings.name !== undefined && settings.name !== workspace.name) this.checkNameFree(organization.id, settings.name);
    const execution = resolveExecution(
      { mode: workspace.executionMode, agentPoolId: workspace.agentPoolId },
      settings,
      organizationDefaultMode(organization),
    );
    this.checkPool(organization.id, execution.agentPoolId, workspace.agentPoolId);
    const resetAssessments = wireBehaviours(this.dialect).assessmentsResetOnUpdate;
    const at = this.clock.now();
    const changes: Partial<WorkspaceRow> = {
      ...settingColumns(settings),
      ...definedOnly({
        name: settings.name,
        toolVersion:
          settings.toolVersion === undefined
            ? undefined
            : validToolVersion(settings.toolVersion, spell('tool-version', this.dialect), selectableReleases(this.db)),
      }),
      // The spec gives `assessments-enabled` a default of false on update; real clients expect "unchanged".
      assessmentsEnabled: settings.assessmentsEnabled ?? (resetAssessments ? false : workspace.assessmentsEnabled),
      executionMode: execution.mode,
      agentPoolId: execution.agentPoolId,
      vcsRepo: mergeVcsRepo(workspace.vcsRepo, settings.vcsRepo),
      ...(project !== undefined ? { projectId: project } : {}),
      updatedAt: at,
      latestChangeAt: at,
    };
    this.db.transaction((tx) => {
      repo.updateWorkspace(tx, workspace.id, changes);
      if (tagBindings)
        this.tagBindings.replace(tx, { organizationId: organization.id, workspaceId: workspace.id }, tagBindings, BINDINGS_POINTER);
    });
    return this.reload(located);
  }

  list(principal: Principal, organizationName: string, filter: WorkspaceFilter, sort: WorkspaceSort, page: Page) {
    const { organization, scope } = this.organization(principal, organizationName);
    const readable = new WorkspacePermissions(this.db).readable(scope);
    return { organization, scope, ...keptPageOfWorkspaces(this.db, organization.id, readable, filter, sort, page) };
  }

  /** Workspace admins delete, and so does a team whose access to the workspace's project includes deleting its workspaces. */
  private requireDestroy(located: Located): void {
    if (hasPermission(located.scope, located.level, 'can-destroy')) return;
    const { projectId } = located.workspace;
    if (!hasPermission(located.scope, located.level, 'can-read-settings')) throw NOT_FOUND;
    if (
      !projectPermissionsFor(this.db, { permissions: located.scope.grants, teamIds: new Set(located.scope.teamIds) }, projectId).has(
        'delete-workspace',
      )
    )
      throw NOT_FOUND;
  }

  /** Deletes the workspace and whatever hangs off it; tags it alone carried leave the organization. */
  destroy(located: Located): void {
    this.requireDestroy(located);
    this.db.transaction((tx) => {
      const tagIds = tagIdsOfWorkspace(tx, located.workspace.id);
      repo.deleteWorkspace(tx, located.workspace.id);
      deleteUnusedTags(tx, tagIds);
    });
  }

  /** Deletes only a workspace that is unlocked and manages no resources (409s word it as real clients match). */
  safeDestroy(located: Located): void {
    this.requireDestroy(located);
    if (located.workspace.lockedBy) throw conflict('Unable to safe-delete workspace: the workspace is locked');
    if (located.workspace.resourceCount > 0) {
      throw conflict('Unable to safe-delete workspace: it still manages resources; destroy them first or use force delete');
    }
    this.destroy(located);
  }

  /** `PATCH …/relationships/ssh-key`: a key id assigns it, null unassigns. */
  assignSshKey(located: Located, keyId: string | null): Located {
    this.require(located, 'can-update');
    if (keyId !== null) requireSshKeyOf(this.db, located.organization.id, keyId, '/data/attributes/id');
    const at = this.clock.now();
    repo.updateWorkspace(this.db, located.workspace.id, { sshKeyId: keyId, updatedAt: at, latestChangeAt: at });
    return this.reload(located);
  }
}

/** Where a create or update body's `tag-bindings` relationship sits, for the 422 of too many. */
const BINDINGS_POINTER = '/data/relationships/tag-bindings/data';

/** The columns that create and update both take straight from their attributes; absent ones stay out. */
function settingColumns(settings: WorkspaceSettingsInput): Partial<WorkspaceRow> {
  return definedOnly({
    description: settings.description,
    autoApply: settings.autoApply,
    autoApplyRunTrigger: settings.autoApplyRunTrigger,
    autoDestroyAt: settings.autoDestroyAt,
    autoDestroyActivityDuration: settings.autoDestroyActivityDuration,
    allowDestroyPlan: settings.allowDestroyPlan,
    fileTriggersEnabled: settings.fileTriggersEnabled,
    globalRemoteState: settings.globalRemoteState,
    queueAllRuns: settings.queueAllRuns,
    speculativeEnabled: settings.speculativeEnabled,
    structuredRunOutputEnabled: settings.structuredRunOutputEnabled,
    triggerPrefixes: settings.triggerPrefixes,
    triggerPatterns: settings.triggerPatterns,
    workingDirectory: settings.workingDirectory,
  });
}

/** The entries of `record` whose value is not undefined (so spreading them keeps defaults). */
function definedOnly<T extends Record<string, unknown>>(record: T): Partial<T> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as Partial<T>;
}
