import type { OrganizationRow, UserRow } from '../auth/principal.js';
import { IncludeRegistry, type Included } from '../jsonapi/include.js';
import type { ResourceObject } from '../jsonapi/types.js';
import { userResource } from '../users/resource.js';
import type { AdminRunRow, AdminWorkspaceRow, RunSummary } from './repo.js';
import { adminOrganizationResource, adminRunResource, adminWorkspaceResource, runSummaryResource } from './resource.js';

/** What the admin include loaders get: a page's rows and what the service loaded for it, one query each. */
interface AdminPage {
  workspaces: readonly AdminWorkspaceRow[];
  organizations: ReadonlyMap<string, OrganizationRow>;
  owners: ReadonlyMap<string, UserRow[]>;
  runs: readonly RunSummary[];
}

/** The organizations of the page's workspaces, with their owners' relationship. */
const organizationsOf = ({ workspaces, organizations, owners }: AdminPage) =>
  [...new Set(workspaces.map((workspace) => workspace.organizationId))].flatMap((id) => {
    const organization = organizations.get(id);
    return organization ? [adminOrganizationResource(organization, owners.get(id) ?? [])] : [];
  });
const ownersOf = (page: AdminPage) =>
  [...new Set(page.workspaces.map((workspace) => workspace.organizationId))].flatMap((id) => (page.owners.get(id) ?? []).map(userResource));

/** What `/admin/organizations` can include. */
export const adminOrganizationIncludes = new IncludeRegistry<Pick<AdminPage, 'organizations' | 'owners'>>({
  owners: ({ organizations, owners }) => [...organizations.keys()].flatMap((id) => (owners.get(id) ?? []).map(userResource)),
});

/** What `/admin/workspaces` can include. */
export const adminWorkspaceIncludes = new IncludeRegistry<AdminPage>({
  organization: organizationsOf,
  current_run: ({ runs }) => runs.map(runSummaryResource),
  'organization.owners': (page) => [...organizationsOf(page), ...ownersOf(page)],
});

/** What `/admin/runs` can include. */
const workspacesOf = ({ workspaces, organizations }: AdminPage) =>
  workspaces.map((workspace) => adminWorkspaceResource(workspace, organizations.get(workspace.organizationId)?.name ?? ''));
export const adminRunIncludes = new IncludeRegistry<AdminPage>({
  workspace: workspacesOf,
  'workspace.organization': (page) => [...workspacesOf(page), ...organizationsOf(page)],
});

/** A page of organizations with their owners' relationship, and what `wanted` includes. */
export function adminOrganizationView(
  rows: readonly OrganizationRow[],
  owners: ReadonlyMap<string, UserRow[]>,
  wanted: ReadonlySet<string>,
): { items: ResourceObject[]; included: Included } {
  const items = rows.map((row) => adminOrganizationResource(row, owners.get(row.id) ?? []));
  const organizations = new Map(rows.map((row) => [row.id, row]));
  return { items, included: adminOrganizationIncludes.collect(wanted, { organizations, owners }) };
}

/** A page of workspaces, and what `wanted` includes. */
export function adminWorkspaceView(page: AdminPage, wanted: ReadonlySet<string>): { items: ResourceObject[]; included: Included } {
  const items = page.workspaces.map((row) => adminWorkspaceResource(row, page.organizations.get(row.organizationId)?.name ?? ''));
  return { items, included: adminWorkspaceIncludes.collect(wanted, page) };
}

/** A page of runs, and what `wanted` includes of their workspaces and organizations. */
export function adminRunView(rows: readonly AdminRunRow[], page: AdminPage, wanted: ReadonlySet<string>) {
  return { items: rows.map(adminRunResource), included: adminRunIncludes.collect(wanted, page) };
}
