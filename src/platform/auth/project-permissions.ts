import { and } from 'drizzle-orm';
import type { DbOrTx } from '../../store/store.js';
import type { CustomProjectAccess, CustomProjectWorkspaceAccess } from '../../store/schema/workspaces.js';
import { teamProjects } from '../../store/tables.js';
import { inList } from '../../store/sql-lists.js';
import { Permissions, type OrganizationGrants } from './permissions.js';
import type { Principal } from './principal.js';
import { grantLevel, type AccessLevel } from './workspace-permissions.js';

/**
 * What a caller may do to one project, beyond what it may do to each workspace in it
 * (workspace-permissions.ts turns the same grants into workspace levels):
 *
 * | project permission | who holds it                                                                 |
 * |--------------------|------------------------------------------------------------------------------|
 * | read               | every member of the organization                                             |
 * | update             | Manage Projects; project `admin`; custom `settings` update or delete           |
 * | destroy            | Manage Projects; project `admin`; custom `settings` delete                     |
 * | read-teams         | Manage Projects; project `admin`, `maintain`; custom `teams` read or manage    |
 * | manage-teams       | Manage Projects; project `admin`; custom `teams` manage                        |
 * | create-workspace   | Manage Workspaces or Projects; project `admin`, `maintain`; custom `create`    |
 * | move-workspace     | Manage Workspaces or Projects; project `admin`; custom `move`                  |
 * | delete-workspace   | Manage Workspaces or Projects; project `admin`, `maintain`; custom `delete`    |
 */
export const PROJECT_PERMISSIONS = [
  'read',
  'update',
  'destroy',
  'read-teams',
  'manage-teams',
  'create-workspace',
  'move-workspace',
  'delete-workspace',
] as const;
export type ProjectPermission = (typeof PROJECT_PERMISSIONS)[number];

export type TeamProjectAccess = (typeof teamProjects.$inferSelect)['access'];
export type FixedProjectAccess = Exclude<TeamProjectAccess, 'custom'>;

/** The detailed permissions each fixed level stands for, as the real service reports them. */
export const FIXED_PROJECT_ACCESS: Record<FixedProjectAccess, { project: CustomProjectAccess; workspace: CustomProjectWorkspaceAccess }> = {
  read: {
    project: { settings: 'read', teams: 'none', 'variable-sets': 'none' },
    workspace: workspaceAccess('read', 'none', 'read', 'read', { create: false, locking: false, move: false, delete: false }),
  },
  write: {
    project: { settings: 'read', teams: 'none', 'variable-sets': 'none' },
    workspace: workspaceAccess('apply', 'read', 'write', 'write', { create: false, locking: true, move: false, delete: false }),
  },
  maintain: {
    project: { settings: 'read', teams: 'read', 'variable-sets': 'read' },
    workspace: workspaceAccess('apply', 'read', 'write', 'write', { create: true, locking: true, move: false, delete: true }),
  },
  admin: {
    project: { settings: 'delete', teams: 'manage', 'variable-sets': 'write' },
    workspace: workspaceAccess('apply', 'read', 'write', 'write', { create: true, locking: true, move: true, delete: true }),
  },
};

function workspaceAccess(
  runs: CustomProjectWorkspaceAccess['runs'],
  sentinelMocks: CustomProjectWorkspaceAccess['sentinel-mocks'],
  stateVersions: CustomProjectWorkspaceAccess['state-versions'],
  variables: CustomProjectWorkspaceAccess['variables'],
  flags: Pick<CustomProjectWorkspaceAccess, 'create' | 'locking' | 'move' | 'delete'>,
): CustomProjectWorkspaceAccess {
  const full = flags.delete && flags.create;
  return {
    runs,
    'sentinel-mocks': sentinelMocks,
    'state-versions': stateVersions,
    variables,
    ...flags,
    'run-tasks': full,
    'policy-overrides': false,
  };
}

/** A new custom grant starts here; the body sets what it wants over it. */
export const CUSTOM_PROJECT_DEFAULTS = {
  project: { settings: 'read', teams: 'none', 'variable-sets': 'none' } as CustomProjectAccess,
  workspace: {
    runs: 'read',
    'sentinel-mocks': 'none',
    'state-versions': 'none',
    variables: 'none',
    create: false,
    locking: false,
    move: false,
    delete: false,
    'run-tasks': false,
    'policy-overrides': false,
  } as CustomProjectWorkspaceAccess,
};

/** One grant's detailed permissions: a fixed level's, or a custom grant's over the defaults. */
export function detailsOf(grant: Pick<typeof teamProjects.$inferSelect, 'access' | 'projectAccess' | 'workspaceAccess'>): {
  project: CustomProjectAccess;
  workspace: CustomProjectWorkspaceAccess;
} {
  if (grant.access !== 'custom') return FIXED_PROJECT_ACCESS[grant.access];
  return {
    project: { ...CUSTOM_PROJECT_DEFAULTS.project, ...grant.projectAccess },
    workspace: { ...CUSTOM_PROJECT_DEFAULTS.workspace, ...grant.workspaceAccess },
  };
}

/**
 * The workspace level a project grant gives on each workspace of the project. Fixed levels map
 * as before (maintain is admin there); a custom grant counts as the highest fixed level all of
 * whose run, variable, state and locking rights it holds, as custom workspace access does.
 */
export function projectGrantLevel(
  grant: Pick<typeof teamProjects.$inferSelect, 'access' | 'projectAccess' | 'workspaceAccess'>,
): AccessLevel {
  switch (grant.access) {
    case 'read':
      return 'read';
    case 'write':
      return 'write';
    case 'maintain':
    case 'admin':
      return 'admin';
    case 'custom': {
      const workspace = detailsOf(grant).workspace;
      return grantLevel('custom', {
        runs: workspace.runs,
        variables: workspace.variables,
        'state-versions': workspace['state-versions'],
        'sentinel-mocks': workspace['sentinel-mocks'],
        'workspace-locking': workspace.locking,
        'run-tasks': workspace['run-tasks'],
      });
    }
  }
}

/** What one grant's details allow on the project itself. */
function rightsOf(details: ReturnType<typeof detailsOf>): ProjectPermission[] {
  const { project, workspace } = details;
  const rights: ProjectPermission[] = [];
  if (project.settings !== 'read') rights.push('update');
  if (project.settings === 'delete') rights.push('destroy');
  if (project.teams !== 'none') rights.push('read-teams');
  if (project.teams === 'manage') rights.push('manage-teams');
  if (workspace.create) rights.push('create-workspace');
  if (workspace.move) rights.push('move-workspace');
  if (workspace.delete) rights.push('delete-workspace');
  return rights;
}

/** A team project grant's level and custom settings, as `detailsOf` and `projectGrantLevel` read them. */
export const TEAM_PROJECT_ACCESS_COLUMNS = {
  projectId: teamProjects.projectId,
  access: teamProjects.access,
  projectAccess: teamProjects.projectAccess,
  workspaceAccess: teamProjects.workspaceAccess,
};

/** What `grants` (a caller's standing in the projects' organization) allows on each of `projectIds`, in one query. */
export function projectPermissionsForMany(
  db: DbOrTx,
  grants: Pick<OrganizationGrants, 'permissions' | 'teamIds'>,
  projectIds: readonly string[],
): Map<string, Set<ProjectPermission>> {
  const base = new Set<ProjectPermission>();
  if (grants.permissions.has('read')) base.add('read');
  if (grants.permissions.has('manage-projects')) for (const right of PROJECT_PERMISSIONS) base.add(right);
  if (grants.permissions.has('read') && grants.permissions.has('manage-workspaces')) {
    for (const right of ['create-workspace', 'move-workspace', 'delete-workspace'] as const) base.add(right);
  }
  const result = new Map(projectIds.map((id) => [id, new Set(base)]));
  if (!base.has('read') || grants.teamIds.size === 0 || projectIds.length === 0) return result;
  const rows = db
    .select(TEAM_PROJECT_ACCESS_COLUMNS)
    .from(teamProjects)
    .where(and(inList(teamProjects.projectId, [...new Set(projectIds)]), inList(teamProjects.teamId, [...grants.teamIds])))
    .all();
  for (const row of rows) for (const right of rightsOf(detailsOf(row))) result.get(row.projectId)?.add(right);
  return result;
}

/** What `grants` allows on the project `projectId`. */
export function projectPermissionsFor(
  db: DbOrTx,
  grants: Pick<OrganizationGrants, 'permissions' | 'teamIds'>,
  projectId: string,
): Set<ProjectPermission> {
  return projectPermissionsForMany(db, grants, [projectId]).get(projectId) ?? new Set();
}

/** What `principal` may do to the project `projectId` of organization `organizationId`. */
export function projectPermissions(db: DbOrTx, principal: Principal, organizationId: string, projectId: string): Set<ProjectPermission> {
  return projectPermissionsFor(db, new Permissions(db).grants(principal, { id: organizationId }), projectId);
}
