import type { DbOrTx } from '../../store/store.js';
import { Permissions } from '../auth/permissions.js';
import type { OrganizationRow, Principal } from '../auth/principal.js';
import { defaultProjectId, findProjects } from './repo.js';
import { projectResource } from './resource.js';
import type { ResourceObject } from '../jsonapi/types.js';
import type { OrganizationPage } from '../organizations/resource.js';

/** `include=default-project` on organizations: one query for the page. */
export function defaultProjectInclude(db: DbOrTx): (page: OrganizationPage) => ResourceObject[] {
  return ({ principal, organizations }) => {
    const byId = new Map(organizations.map((organization) => [organization.id, organization]));
    const permissions = new Permissions(db);
    return findProjects(
      db,
      organizations.map((organization) => defaultProjectId(organization.id)),
    ).flatMap((project) => {
      const organization = byId.get(project.organizationId);
      return organization ? [projectResource(project, organization.name, permissions.organization(principal, organization))] : [];
    });
  };
}

/** `include=project` on workspaces: the projects of the page's workspaces, all of one organization. */
export function projectWorkspaceInclude(
  db: DbOrTx,
): (page: { principal: Principal; organization: OrganizationRow; rows: readonly { projectId: string }[] }) => ResourceObject[] {
  return ({ principal, organization, rows }) => {
    const grants = new Permissions(db).organization(principal, organization);
    const ids = rows.map((row) => row.projectId);
    return findProjects(db, ids).map((project) => projectResource(project, organization.name, grants));
  };
}
