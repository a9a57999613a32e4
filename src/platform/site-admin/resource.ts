import { isoTimestamp } from '../../core/clock.js';
import type { OrganizationRow, UserRow } from '../auth/principal.js';
import type { ResourceObject } from '../jsonapi/types.js';
import { ADMIN_ORGANIZATION_DEFAULTS } from './fields.js';
import type { AdminRunRow, AdminWorkspaceRow, RunSummary } from './repo.js';

/** The settings a site administrator set over the defaults. */
export function adminSettingsOf(organization: OrganizationRow): typeof ADMIN_ORGANIZATION_DEFAULTS {
  return { ...ADMIN_ORGANIZATION_DEFAULTS, ...(organization.settings.admin as Partial<typeof ADMIN_ORGANIZATION_DEFAULTS> | undefined) };
}

/** An organization as the admin API shows it (type `organizations`, id the name), with its owners when known. */
export function adminOrganizationResource(organization: OrganizationRow, owners?: readonly UserRow[]): ResourceObject {
  const self = `/api/v2/admin/organizations/${encodeURIComponent(organization.name)}`;
  return {
    id: organization.name,
    type: 'organizations',
    attributes: {
      name: organization.name,
      'created-at': isoTimestamp(organization.createdAt),
      'external-id': organization.id,
      'notification-email': organization.email,
      'sso-enabled': false,
      ...adminSettingsOf(organization),
    },
    relationships: {
      owners: owners ? { data: owners.map((user) => ({ id: user.id, type: 'users' })) } : { links: { related: `${self}/owners` } },
      'module-consumers': { links: { related: `${self}/relationships/module-consumers` } },
    },
    links: { self },
  };
}

/** A workspace as the admin API shows it: name, lock, VCS identifier, organization and current run. */
export function adminWorkspaceResource(workspace: AdminWorkspaceRow, organizationName: string): ResourceObject {
  return {
    id: workspace.id,
    type: 'workspaces',
    attributes: {
      name: workspace.name,
      locked: workspace.lockedBy !== null,
      'vcs-repo': workspace.vcsRepo ? { identifier: workspace.vcsRepo.identifier } : null,
    },
    relationships: {
      organization: { data: { id: organizationName, type: 'organizations' } },
      'current-run': { data: workspace.currentRunId ? { id: workspace.currentRunId, type: 'runs' } : null },
    },
    links: { self: `/api/v2/admin/workspaces/${workspace.id}` },
  };
}

/** `include=current_run`: the run's status and creation time, which is what admin listings sort and filter on. */
export function runSummaryResource(run: RunSummary): ResourceObject {
  return {
    id: run.id,
    type: 'runs',
    attributes: { status: run.status, 'created-at': isoTimestamp(run.createdAt) },
    relationships: { workspace: { data: { id: run.workspaceId, type: 'workspaces' } } },
    links: { self: `/api/v2/runs/${run.id}` },
  };
}

/** A run as `/admin/runs` lists it (go-tfe's AdminRun). */
export function adminRunResource(run: AdminRunRow): ResourceObject {
  return {
    id: run.id,
    type: 'runs',
    attributes: {
      'created-at': isoTimestamp(run.createdAt),
      'has-changes': run.hasChanges,
      status: run.status,
      'status-timestamps': run.statusTimestamps,
    },
    relationships: { workspace: { data: { id: run.workspaceId, type: 'workspaces' } } },
    links: { self: `/api/v2/runs/${run.id}` },
  };
}
