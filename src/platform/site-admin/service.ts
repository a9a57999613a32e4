import { unprocessable } from '../../core/errors.js';
import type { Db } from '../../store/store.js';
import { isSiteAdmin, type OrganizationRow, type Principal, type UserRow } from '../auth/principal.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import type { OrganizationService } from '../organizations/service.js';
import type { WorkspaceService } from '../workspaces/service.js';
import type { AdminOrganizationSettings } from './fields.js';
import * as repo from './repo.js';

/**
 * The self-hosted edition's installation-wide administration (`/admin/organizations`,
 * `/admin/workspaces`): every organization and workspace, whoever owns it, for site
 * administrators only; anyone else meets the 404 of a missing resource. Deletions go through the
 * owning domains' services, so they remove what a regular delete removes.
 */
export class SiteAdminService {
  constructor(
    private readonly db: Db,
    private readonly organizations: OrganizationService,
    private readonly workspaces: WorkspaceService,
  ) {}

  requireAdmin(principal: Principal): void {
    if (!isSiteAdmin(principal)) throw NOT_FOUND;
  }

  private organization(principal: Principal, name: string): OrganizationRow {
    this.requireAdmin(principal);
    const organization = this.organizations.byName(name);
    if (!organization) throw NOT_FOUND;
    return organization;
  }

  listOrganizations(principal: Principal, filter: { q?: string; producer?: string }, offset: number, limit: number) {
    this.requireAdmin(principal);
    const consumerIds =
      filter.producer === undefined ? undefined : (this.organizations.byName(filter.producer)?.settings.moduleConsumerIds ?? []);
    return repo.listOrganizations(
      this.db,
      { ...(filter.q ? { q: filter.q } : {}), ...(consumerIds ? { consumerIds } : {}) },
      offset,
      limit,
    );
  }

  ownersOf(organizations: readonly OrganizationRow[]): Map<string, UserRow[]> {
    return repo.ownersOf(
      this.db,
      organizations.map((organization) => organization.id),
    );
  }

  showOrganization(principal: Principal, name: string): OrganizationRow {
    return this.organization(principal, name);
  }

  updateOrganization(principal: Principal, name: string, changes: Partial<AdminOrganizationSettings>): OrganizationRow {
    const organization = this.organization(principal, name);
    if (Object.keys(changes).length === 0) return organization;
    return this.organizations.changeSettings(organization, { admin: { ...organization.settings.admin, ...changes } });
  }

  destroyOrganization(principal: Principal, name: string): void {
    this.organization(principal, name);
    this.organizations.destroy(principal, name);
  }

  /** The organizations allowed to use this one's private modules. */
  moduleConsumers(principal: Principal, name: string): OrganizationRow[] {
    const organization = this.organization(principal, name);
    return repo.organizationsByIds(this.db, organization.settings.moduleConsumerIds ?? []);
  }

  /** Replaces the consumers; every name must be an organization (422 naming the first that is not). */
  setModuleConsumers(principal: Principal, name: string, consumerNames: readonly string[]): void {
    const organization = this.organization(principal, name);
    const found = repo.organizationsByNames(this.db, consumerNames);
    const missing = consumerNames.find((consumer) => !found.some((row) => row.name === consumer));
    if (missing !== undefined) throw unprocessable(`Organization ${missing} not found`, '/data');
    this.organizations.changeSettings(organization, { moduleConsumerIds: found.map((row) => row.id) });
  }

  listWorkspaces(principal: Principal, filter: repo.WorkspaceFilter, sort: repo.AdminWorkspaceSort, offset: number, limit: number) {
    this.requireAdmin(principal);
    const page = repo.listWorkspaces(this.db, filter, sort, offset, limit);
    return { ...page, ...this.workspaceParts(page.rows) };
  }

  /** `/admin/runs`: every run, newest first, with the workspaces and organizations `include` may name. */
  listRuns(principal: Principal, filter: repo.AdminRunFilter, offset: number, limit: number) {
    this.requireAdmin(principal);
    const page = repo.listRuns(this.db, filter, offset, limit);
    const workspaces = repo.findWorkspaces(this.db, [...new Set(page.rows.map((row) => row.workspaceId))]);
    return { ...page, workspaces, ...this.workspaceParts(workspaces) };
  }

  showWorkspace(principal: Principal, id: string) {
    this.requireAdmin(principal);
    const workspace = repo.findWorkspace(this.db, id);
    if (!workspace) throw NOT_FOUND;
    return { workspace, ...this.workspaceParts([workspace]) };
  }

  /** The organizations and current runs a page of workspaces refers to, one query each. */
  private workspaceParts(rows: readonly repo.AdminWorkspaceRow[]) {
    const organizations = new Map(
      repo
        .organizationsByIds(
          this.db,
          rows.map((row) => row.organizationId),
        )
        .map((row) => [row.id, row]),
    );
    const runs = repo.runsByIds(
      this.db,
      rows.flatMap((row) => (row.currentRunId ? [row.currentRunId] : [])),
    );
    return { organizations, runs, owners: this.ownersOf([...organizations.values()]) };
  }

  /** Deletes the workspace as a forced delete would, whatever it still manages. */
  destroyWorkspace(principal: Principal, id: string): void {
    this.requireAdmin(principal);
    this.workspaces.destroy(this.workspaces.locate(principal, id));
  }
}
