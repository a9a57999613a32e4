import type { DbOrTx } from '../../store/store.js';
import { Permissions, type OrganizationPermission } from '../auth/permissions.js';
import type { OrganizationRow, Principal } from '../auth/principal.js';
import { defaultProjectId, findProjects, type ProjectRow } from './repo.js';
import { projectResource } from './resource.js';
import { IncludeRegistry, type Included } from '../jsonapi/include.js';
import type { ResourceObject } from '../jsonapi/types.js';
import type { OrganizationPage } from '../organizations/view.js';
import { effectiveTagBindingResource, type EffectiveBinding } from '../tag-bindings/resource.js';
import type { TagBindingService } from '../tag-bindings/service.js';
import type { ProjectService } from './service.js';

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

/** What the project include loaders get: the effective bindings the page already loaded, by project id. */
interface ProjectPage {
  effective: ReadonlyMap<string, readonly EffectiveBinding[]>;
}

/** `include` values of the project endpoints (the real client's `ProjectEffectiveTagBindings`). */
export const projectIncludes = new IncludeRegistry<ProjectPage>({
  effective_tag_bindings: ({ effective }) => [...effective.values()].flat().map(effectiveTagBindingResource),
});

/** Projects as wire objects, with the caller's rights, their counts and tag-binding relationships, and their includes. */
export class ProjectViews {
  constructor(
    private readonly projects: Pick<ProjectService, 'details'>,
    private readonly tagBindings: Pick<TagBindingService, 'projectEffectiveOf'>,
  ) {}

  render(
    principal: Principal,
    rows: readonly ProjectRow[],
    organization: OrganizationRow,
    grants: ReadonlySet<OrganizationPermission>,
    wanted: ReadonlySet<string>,
  ): { items: ResourceObject[]; included: Included } {
    const details = this.projects.details(principal, organization, rows);
    const effective = this.tagBindings.projectEffectiveOf(rows.map((row) => row.id));
    const items = rows.map((row) =>
      projectResource(
        row,
        organization.name,
        grants,
        details.get(row.id),
        (effective.get(row.id) ?? []).map((entry) => entry.binding.id),
      ),
    );
    return { items, included: projectIncludes.collect(wanted, { effective }) };
  }
}
