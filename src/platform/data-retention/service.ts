import { newId } from '../../core/ids.js';
import type { Db } from '../../store/store.js';
import type { StoredRetentionPolicy } from '../../store/tables.js';
import type { OrganizationRow, Principal } from '../auth/principal.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import { updateOrganization } from '../organizations/repo.js';
import type { OrganizationService } from '../organizations/service.js';
import { updateWorkspace } from '../workspaces/repo.js';
import type { WorkspaceService } from '../workspaces/service.js';

/** What a POST asks for: delete data older than some days, or keep everything. */
export type RetentionChoice = { kind: 'delete-older'; deleteOlderThanNDays: number } | { kind: 'dont-delete' };

/** A policy and the path of what it belongs to (for the resource's links). */
export interface OwnedPolicy {
  policy: StoredRetentionPolicy | null;
  ownerPath: string;
}

/**
 * Data retention policies of organizations and workspaces (self-hosted edition). A policy is kept
 * on its owner's row and shows as the owner's `data-retention-policy` relationship; setting the
 * same kind again keeps its id, another kind replaces it. The retention sweep (sweep.ts) applies
 * `delete-older` policies as the clock moves. Reading takes read access (organization membership, a workspace's settings);
 * setting and deleting take the owners' rights on an organization and admin on a workspace.
 */
export class DataRetentionService {
  constructor(
    private readonly db: Db,
    private readonly organizations: OrganizationService,
    private readonly workspaces: WorkspaceService,
    /** Told after a policy is set or removed (the retention sweep looks again). */
    private readonly policiesChanged: () => void = () => undefined,
  ) {}

  private organization(principal: Principal, name: string, write: boolean): OrganizationRow {
    const { organization, granted } = this.organizations.readable(principal, name);
    if (write && !granted.has('update')) throw NOT_FOUND;
    return organization;
  }

  organizationPolicy(principal: Principal, name: string): OwnedPolicy {
    const organization = this.organization(principal, name, false);
    return { policy: organization.dataRetentionPolicy, ownerPath: organizationPath(organization) };
  }

  setOrganizationPolicy(principal: Principal, name: string, choice: RetentionChoice): OwnedPolicy {
    const organization = this.organization(principal, name, true);
    const policy = nextPolicy(organization.dataRetentionPolicy, choice);
    updateOrganization(this.db, organization.id, { dataRetentionPolicy: policy });
    this.policiesChanged();
    return { policy, ownerPath: organizationPath(organization) };
  }

  deleteOrganizationPolicy(principal: Principal, name: string): void {
    const organization = this.organization(principal, name, true);
    updateOrganization(this.db, organization.id, { dataRetentionPolicy: null });
    this.policiesChanged();
  }

  workspacePolicy(principal: Principal, id: string): OwnedPolicy {
    const { workspace } = this.workspaces.require(this.workspaces.locate(principal, id), 'can-read-settings');
    return { policy: workspace.dataRetentionPolicy, ownerPath: `/api/v2/workspaces/${workspace.id}` };
  }

  setWorkspacePolicy(principal: Principal, id: string, choice: RetentionChoice): OwnedPolicy {
    const { workspace } = this.workspaces.require(this.workspaces.locate(principal, id), 'can-update');
    const policy = nextPolicy(workspace.dataRetentionPolicy, choice);
    updateWorkspace(this.db, workspace.id, { dataRetentionPolicy: policy });
    this.policiesChanged();
    return { policy, ownerPath: `/api/v2/workspaces/${workspace.id}` };
  }

  deleteWorkspacePolicy(principal: Principal, id: string): void {
    const { workspace } = this.workspaces.require(this.workspaces.locate(principal, id), 'can-update');
    updateWorkspace(this.db, workspace.id, { dataRetentionPolicy: null });
    this.policiesChanged();
  }
}

const organizationPath = (organization: OrganizationRow) => `/api/v2/organizations/${encodeURIComponent(organization.name)}`;

/** The policy after `choice`: the same id while the kind stays, a new one when it changes. */
function nextPolicy(current: StoredRetentionPolicy | null, choice: RetentionChoice): StoredRetentionPolicy {
  const id = current?.kind === choice.kind ? current.id : newId('drp');
  return choice.kind === 'delete-older'
    ? { id, kind: 'delete-older', deleteOlderThanNDays: choice.deleteOlderThanNDays }
    : { id, kind: 'dont-delete' };
}
