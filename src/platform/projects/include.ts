import type { DbOrTx } from '../../store/store.js';
import { Permissions } from '../auth/permissions.js';
import type { OrganizationRow, Principal } from '../auth/principal.js';
import type { Included } from '../jsonapi/include.js';
import { defaultProjectId, findProjects } from './repo.js';
import { projectResource } from './resource.js';

/** `include=default-project` on organizations: one query for the page. */
export function includeDefaultProjects(
  db: DbOrTx,
  principal: Principal,
  organizations: readonly OrganizationRow[],
  included: Included,
): void {
  const byId = new Map(organizations.map((organization) => [organization.id, organization]));
  const permissions = new Permissions(db);
  for (const project of findProjects(
    db,
    organizations.map((organization) => defaultProjectId(organization.id)),
  )) {
    const organization = byId.get(project.organizationId);
    if (organization) included.add(projectResource(project, organization.name, permissions.organization(principal, organization)));
  }
}

/** `include=project` on workspaces: the projects of the page's workspaces, all of one organization. */
export function includeProjects(
  db: DbOrTx,
  principal: Principal,
  organization: OrganizationRow,
  projectIds: readonly string[],
  included: Included,
): void {
  const grants = new Permissions(db).organization(principal, organization);
  for (const project of findProjects(db, projectIds)) included.add(projectResource(project, organization.name, grants));
}
