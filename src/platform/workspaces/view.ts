import type { Clock } from '../../core/clock.js';
import type { Db, DbOrTx } from '../../store/store.js';
import type { OrganizationRow, Principal } from '../auth/principal.js';
import { Permissions } from '../auth/permissions.js';
import { permissionFlags, WorkspacePermissions, type CallerScope } from '../auth/workspace-permissions.js';
import { Included } from '../jsonapi/include.js';
import type { ResourceObject } from '../jsonapi/types.js';
import { organizationResource } from '../organizations/resource.js';
import { tagsOfWorkspaces } from '../tags/repo.js';
import { findTeam } from '../teams/repo.js';
import { teamResource } from '../teams/resource.js';
import { TeamService } from '../teams/service.js';
import { findUserById } from '../users/repo.js';
import { userResource } from '../users/resource.js';
import { organizationServiceAccount } from '../users/service.js';
import { includeProjects } from '../projects/include.js';
import { defaultProjectId } from '../projects/ids.js';
import { findStateVersions, outputsOf } from '../state-versions/repo.js';
import { renderStateVersions } from '../state-versions/render.js';
import { workspaceOutputResource } from '../state-versions/resource.js';
import { variableIdsOf } from '../variables/repo.js';
import type { WorkspaceRow } from './repo.js';

const currentStateVersionIds = (rows: readonly WorkspaceRow[]) =>
  rows.flatMap((row) => (row.currentStateVersionId ? [row.currentStateVersionId] : []));
import { workspaceResource, type RenderOptions } from './resource.js';

/**
 * `include` values of the workspace GET endpoints: the spec's list plus what the real client
 * sends. Those whose targets do not exist in understudy (runs, configuration versions, readmes,
 * tag bindings) are accepted and include nothing.
 */
export const WORKSPACE_INCLUDES = [
  'organization',
  'current_configuration_version',
  'current_configuration_version.ingress_attributes',
  'current_run',
  'current_run.plan',
  'current_run.configuration_version',
  'current_run.configuration_version.ingress_attributes',
  'locked_by',
  'readme',
  'outputs',
  'effective_tag_bindings',
  'current-state-version',
  'project',
] as const;

/**
 * Renders workspaces of one organization for one caller: tags and access levels are loaded for
 * the whole page in one query each, so a page costs the same whatever its size.
 */
export function renderWorkspaces(
  db: DbOrTx,
  scope: CallerScope,
  organization: OrganizationRow,
  rows: readonly WorkspaceRow[],
  options: RenderOptions,
): ResourceObject[] {
  const ids = rows.map((row) => row.id);
  const tags = tagsOfWorkspaces(db, ids);
  const levels = new WorkspacePermissions(db).levels(scope, ids);
  const outputs = outputsOf(db, currentStateVersionIds(rows));
  const variables = variableIdsOf(db, ids);
  return rows.map((workspace) => {
    const permissions = permissionFlags(levels.get(workspace.id) ?? null, scope.grants);
    const current = workspace.currentStateVersionId;
    const outputIds = (current ? (outputs.get(current) ?? []) : []).map((output) => output.id);
    const variableIds = variables.get(workspace.id) ?? [];
    return workspaceResource({ workspace, organization, tags: tags.get(workspace.id) ?? [], permissions, outputIds, variableIds }, options);
  });
}

/** Adds what `include` asks for to `included`; targets that understudy does not model add nothing. */
export function includeForWorkspaces(
  db: Db,
  clock: Clock,
  principal: Principal,
  organization: OrganizationRow,
  rows: readonly WorkspaceRow[],
  include: ReadonlySet<string>,
  included: Included,
  /** `scheme://host` of the request: included state versions carry absolute download links. */
  origin: string,
): void {
  if (rows.length === 0) return;
  if (include.has('organization')) {
    included.add(organizationResource(organization, new Permissions(db).organization(principal, organization)));
  }
  if (include.has('current-state-version')) {
    const current = findStateVersions(db, currentStateVersionIds(rows));
    included.add(...renderStateVersions(db, clock, origin, organization, current).items);
  }
  if (include.has('outputs')) {
    for (const list of outputsOf(db, currentStateVersionIds(rows)).values()) included.add(...list.map(workspaceOutputResource));
  }
  if (include.has('project')) {
    includeProjects(
      db,
      principal,
      organization,
      rows.map((row) => row.projectId ?? defaultProjectId(organization.id)),
      included,
    );
  }
  if (include.has('locked_by')) {
    for (const { lockedBy } of rows) {
      if (lockedBy?.kind === 'user') {
        const user = findUserById(db, lockedBy.id);
        if (user) included.add(userResource(user));
      } else if (lockedBy?.kind === 'organization') {
        included.add(userResource(organizationServiceAccount(organization)));
      } else if (lockedBy?.kind === 'team') {
        const team = findTeam(db, lockedBy.id);
        const grants = new Permissions(db).grants(principal, organization);
        if (team) included.add(...new TeamService(db, clock).views({ organization, grants }, [team]).map(teamResource));
      }
    }
  }
}
