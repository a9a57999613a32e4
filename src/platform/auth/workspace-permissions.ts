import { jsonList } from '../../store/sql-lists.js';
import { ApiError } from '../../core/errors.js';
import { preparedSql } from '../../store/prepared.js';
import { sqliteOf, type DbOrTx } from '../../store/store.js';
import type { CustomWorkspaceAccess } from '../../store/schema/workspaces.js';
import { teamProjects } from '../../store/tables.js';
import { defaultProjectId } from '../default-project.js';
import { rowReader } from '../row-reader.js';
import { inSlices } from '../sql-slices.js';
import { Permissions, type OrganizationPermission } from './permissions.js';
import { projectGrantLevel } from './project-permissions.js';
import type { Principal, TeamRow } from './principal.js';

/**
 * Workspace-level permissions: organization grants (owners and site admins are admins everywhere,
 * `manage-workspaces` is admin, `read-workspaces` is read) combined with the access level each of
 * the caller's teams holds on the workspace. The higher level wins. Every workspace route asks
 * this module, and a refusal is the same 404 a missing workspace gets.
 */
export const ACCESS_LEVELS = ['read', 'plan', 'write', 'admin'] as const;
export type AccessLevel = (typeof ACCESS_LEVELS)[number];

const RANK: Record<AccessLevel, number> = { read: 1, plan: 2, write: 3, admin: 4 };

export function atLeast(level: AccessLevel | null, wanted: AccessLevel): boolean {
  return level !== null && RANK[level] >= RANK[wanted];
}

/**
 * The level a team grant counts as. A `custom` grant counts as the highest fixed level all of
 * whose run, variable, state and locking rights it holds (never admin: custom access cannot
 * change settings), so the rest of the permission model stays one ordered scale.
 */
export function grantLevel(access: AccessLevel | 'custom', custom: CustomWorkspaceAccess | null): AccessLevel {
  if (access !== 'custom') return access;
  if (!custom) return 'read';
  const writes =
    custom.runs === 'apply' && custom.variables === 'write' && custom['state-versions'] === 'write' && custom['workspace-locking'];
  if (writes) return 'write';
  return custom.runs === 'read' ? 'read' : 'plan';
}

function higher(a: AccessLevel | null, b: AccessLevel | null): AccessLevel | null {
  if (a === null) return b;
  if (b === null) return a;
  return RANK[a] >= RANK[b] ? a : b;
}

/** The `permissions` object of a workspace, in the spec's order. */
export const WORKSPACE_PERMISSION_NAMES = [
  'can-create-state-versions',
  'can-destroy',
  'can-force-unlock',
  'can-lock',
  'can-manage-run-tasks',
  'can-manage-tags',
  'can-queue-apply',
  'can-queue-destroy',
  'can-queue-run',
  'can-read-settings',
  'can-read-state-versions',
  'can-read-variable',
  'can-unlock',
  'can-update',
  'can-update-variable',
  'can-read-assessment-result',
  'can-force-delete',
] as const;
export type WorkspacePermission = (typeof WORKSPACE_PERMISSION_NAMES)[number];

/** The least access level each permission needs (run-task management has a second route in). */
const NEEDS: Record<WorkspacePermission, AccessLevel> = {
  'can-read-settings': 'read',
  'can-read-state-versions': 'read',
  'can-read-variable': 'read',
  'can-read-assessment-result': 'read',
  'can-queue-run': 'plan',
  'can-queue-apply': 'write',
  'can-queue-destroy': 'write',
  'can-create-state-versions': 'write',
  'can-update-variable': 'write',
  'can-lock': 'write',
  'can-unlock': 'write',
  'can-update': 'admin',
  'can-destroy': 'admin',
  'can-force-unlock': 'admin',
  'can-force-delete': 'admin',
  'can-manage-tags': 'admin',
  'can-manage-run-tasks': 'admin',
};

/** What a caller is in one organization, computed once per request and reused for every workspace. */
export interface CallerScope {
  readonly organizationId: string;
  readonly grants: ReadonlySet<OrganizationPermission>;
  /** Level the organization grants on every workspace, before team access. */
  readonly organizationLevel: AccessLevel | null;
  /** Teams whose workspace access counts for the caller (active members only). */
  readonly teamIds: readonly string[];
}

/**
 * Either every workspace of the organization, or those some team of the caller can access: by a
 * grant on the workspace, or on its project (`projectIds`).
 */
export type ReadableSet = { all: true } | { all: false; teamIds: readonly string[]; projectIds: readonly string[] };

// Every workspace read of a caller below `admin` asks these: raw statements compiled once per
// connection, their lists bound as one JSON array each (store/sql-lists.ts), rather than a drizzle
// query built anew per request.
const TEAM_GRANTS =
  'SELECT workspace_id, access, custom_permissions FROM team_workspaces ' +
  'WHERE team_id IN (SELECT value FROM json_each(?)) AND workspace_id IN (SELECT value FROM json_each(?))';
const PROJECTS_OF = 'SELECT id, project_id FROM workspaces WHERE id IN (SELECT value FROM json_each(?))';
const projectGrantRows = rowReader(teamProjects);
const PROJECT_GRANTS = `SELECT ${projectGrantRows.columns('p')} FROM team_projects p WHERE p.team_id IN (SELECT value FROM json_each(?))`;

export class WorkspacePermissions {
  constructor(private readonly db: DbOrTx) {}

  /** `teamsOfUser`: a user's active teams in the organization when the caller's own read joined them in (`CALLER_MEMBERSHIP`). */
  scope(principal: Principal, organizationId: string, teamsOfUser?: () => TeamRow[] | null): CallerScope {
    const permissions = new Permissions(this.db);
    const organization = { id: organizationId };
    const { permissions: grants, teamIds } = teamsOfUser
      ? permissions.grantsGiven(principal, organization, teamsOfUser)
      : permissions.grants(principal, organization);
    const organizationLevel: AccessLevel | null = grants.has('manage-workspaces') ? 'admin' : grants.has('read-workspaces') ? 'read' : null;
    return { organizationId, grants, organizationLevel, teamIds: [...teamIds] };
  }

  /** The caller's level on each of `workspaceIds` (one query per 500 workspaces, whatever the number). */
  levels(scope: CallerScope, workspaceIds: readonly string[]): Map<string, AccessLevel | null> {
    const result = new Map<string, AccessLevel | null>(workspaceIds.map((id) => [id, scope.organizationLevel]));
    if (scope.organizationLevel === 'admin' || scope.teamIds.length === 0 || workspaceIds.length === 0) return result;
    const sqlite = sqliteOf(this.db);
    const teamIds = jsonList(scope.teamIds);
    // A request body may name any number of workspaces; slices keep each statement within SQLite's limits.
    for (const slice of inSlices([...result.keys()])) {
      type Grant = [workspaceId: string, access: AccessLevel | 'custom', custom: string | null];
      const rows = preparedSql(sqlite, TEAM_GRANTS).raw().all(teamIds, jsonList(slice)) as Grant[];
      for (const [workspaceId, access, custom] of rows) {
        const level = grantLevel(access, custom === null ? null : (JSON.parse(custom) as CustomWorkspaceAccess));
        result.set(workspaceId, higher(result.get(workspaceId) ?? null, level));
      }
    }
    const byProject = this.projectLevels(scope);
    if (byProject.size === 0) return result;
    const fallback = defaultProjectId(scope.organizationId);
    for (const slice of inSlices([...result.keys()])) {
      const rows = preparedSql(sqlite, PROJECTS_OF).raw().all(jsonList(slice)) as [string, string | null][];
      for (const [id, projectId] of rows) result.set(id, higher(result.get(id) ?? null, byProject.get(projectId ?? fallback) ?? null));
    }
    return result;
  }

  /** The level each project the caller's teams hold access on gives (none: an empty map, and no query beyond this one). */
  private projectLevels(scope: CallerScope): Map<string, AccessLevel> {
    const levels = new Map<string, AccessLevel>();
    if (scope.teamIds.length === 0) return levels;
    const rows = preparedSql(sqliteOf(this.db), PROJECT_GRANTS).raw().all(jsonList(scope.teamIds)) as unknown[][];
    for (const values of rows) {
      const grant = projectGrantRows.read(values);
      const level = projectGrantLevel(grant);
      levels.set(grant.projectId, higher(levels.get(grant.projectId) ?? null, level) ?? level);
    }
    return levels;
  }

  level(scope: CallerScope, workspaceId: string): AccessLevel | null {
    return this.levels(scope, [workspaceId]).get(workspaceId) ?? null;
  }

  /** Which workspaces of the organization the caller may list, for SQL filters. */
  readable(scope: CallerScope): ReadableSet {
    if (scope.organizationLevel !== null) return { all: true };
    return { all: false, teamIds: scope.teamIds, projectIds: [...this.projectLevels(scope).keys()] };
  }
}

/** The permission booleans a level (plus organization grants) gives. */
export function permissionFlags(
  level: AccessLevel | null,
  grants: ReadonlySet<OrganizationPermission>,
): Record<WorkspacePermission, boolean> {
  const flags = {} as Record<WorkspacePermission, boolean>;
  for (const name of WORKSPACE_PERMISSION_NAMES) flags[name] = atLeast(level, NEEDS[name]);
  // Managing a workspace's run tasks: workspace admins, or the organization's Manage Run Tasks.
  flags['can-manage-run-tasks'] = atLeast(level, 'admin') || grants.has('manage-run-tasks');
  return flags;
}

export function hasPermission(scope: CallerScope, level: AccessLevel | null, permission: WorkspacePermission): boolean {
  return permissionFlags(level, scope.grants)[permission];
}

/** Throws the 404 a missing workspace gets unless the caller holds `permission`. */
export function requirePermission(scope: CallerScope, level: AccessLevel | null, permission: WorkspacePermission): void {
  if (!hasPermission(scope, level, permission)) throw new ApiError(404, 'not found');
}
