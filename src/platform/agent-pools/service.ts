import type { Clock } from '../../core/clock.js';
import { unprocessable } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { Db, DbOrTx } from '../../store/store.js';
import { Permissions } from '../auth/permissions.js';
import type { OrganizationRow, Principal } from '../auth/principal.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import * as organizationsRepo from '../organizations/repo.js';
import { findWorkspaces } from '../workspaces/repo.js';
import { OrganizationService } from '../organizations/service.js';
import * as repo from './repo.js';
import type { AgentPoolRow } from './repo.js';

/** The pool's workspace lists a create or update may set; undefined leaves a list as it is. */
export interface PoolWorkspaceLists {
  allowedWorkspaces?: string[];
  excludedWorkspaces?: string[];
}

/**
 * Agent pools exist here so that `agent` execution mode has something to point at; no agent
 * ever connects. Any member sees them; changing them needs Manage Agent Pools.
 */
export class AgentPoolService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly organizations: OrganizationService,
  ) {}

  private organization(principal: Principal, name: string): OrganizationRow {
    return this.organizations.visible(principal, name);
  }

  /** A pool the caller can see, with its organization. */
  visible(principal: Principal, id: string): { pool: AgentPoolRow; organization: OrganizationRow } {
    const pool = repo.findAgentPool(this.db, id);
    const organization = pool && organizationsRepo.findOrganizationById(this.db, pool.organizationId);
    if (!pool || !organization) throw NOT_FOUND;
    new Permissions(this.db).require(principal, organization, 'read');
    return { pool, organization };
  }

  list(principal: Principal, organizationName: string, filter: repo.AgentPoolFilter, offset: number, limit: number) {
    const organization = this.organization(principal, organizationName);
    return { organization, ...repo.listAgentPools(this.db, organization.id, filter, offset, limit) };
  }

  /** Every named workspace must be one of the organization's, or the request changes nothing. */
  private checkWorkspaces(organization: OrganizationRow, lists: PoolWorkspaceLists): void {
    for (const [key, ids] of [
      ['allowed-workspaces', lists.allowedWorkspaces],
      ['excluded-workspaces', lists.excludedWorkspaces],
    ] as const) {
      if (!ids) continue;
      const found = new Set(
        findWorkspaces(this.db, ids)
          .filter((row) => row.organizationId === organization.id)
          .map((row) => row.id),
      );
      const index = ids.findIndex((id) => !found.has(id));
      if (index !== -1)
        throw unprocessable(`workspace ${ids[index]} does not exist in this organization`, `/data/relationships/${key}/data/${index}/id`);
    }
  }

  private writeWorkspaces(db: DbOrTx, poolId: string, lists: PoolWorkspaceLists): void {
    if (lists.allowedWorkspaces) repo.setPoolWorkspaces(db, poolId, 'allowed', lists.allowedWorkspaces);
    if (lists.excludedWorkspaces) repo.setPoolWorkspaces(db, poolId, 'excluded', lists.excludedWorkspaces);
  }

  create(principal: Principal, organizationName: string, input: { name: string; organizationScoped?: boolean } & PoolWorkspaceLists) {
    const organization = this.organization(principal, organizationName);
    new Permissions(this.db).require(principal, organization, 'manage-agent-pools');
    if (repo.findAgentPoolByName(this.db, organization.id, input.name))
      throw unprocessable('name has already been taken', '/data/attributes/name');
    this.checkWorkspaces(organization, input);
    const pool: AgentPoolRow = {
      id: newId('apool'),
      organizationId: organization.id,
      name: input.name,
      organizationScoped: input.organizationScoped ?? true,
      createdAt: this.clock.now(),
    };
    this.db.transaction((tx) => {
      repo.insertAgentPool(tx, pool);
      this.writeWorkspaces(tx, pool.id, input);
    });
    return { pool, organization };
  }

  update(principal: Principal, id: string, changes: { name?: string; organizationScoped?: boolean }, lists: PoolWorkspaceLists = {}) {
    const { pool, organization } = this.visible(principal, id);
    new Permissions(this.db).require(principal, organization, 'manage-agent-pools');
    if (changes.name !== undefined && changes.name !== pool.name && repo.findAgentPoolByName(this.db, organization.id, changes.name)) {
      throw unprocessable('name has already been taken', '/data/attributes/name');
    }
    this.checkWorkspaces(organization, lists);
    this.db.transaction((tx) => {
      repo.updateAgentPool(tx, id, changes);
      this.writeWorkspaces(tx, id, lists);
    });
    return { pool: { ...pool, ...changes }, organization };
  }

  /** Refused while a workspace runs on the pool: deleting it would leave `agent` mode without one. */
  destroy(principal: Principal, id: string): void {
    const { pool, organization } = this.visible(principal, id);
    new Permissions(this.db).require(principal, organization, 'manage-agent-pools');
    if ((repo.workspaceIdsByPool(this.db, [pool.id]).get(pool.id) ?? []).length > 0) {
      throw unprocessable('the agent pool is still used by workspaces; move them to another pool or execution mode first');
    }
    this.db.transaction((tx) => {
      // An organization whose default pool goes away keeps agent mode but no longer names a pool.
      if (organization.attributes[organizationsRepo.DEFAULT_AGENT_POOL_ID] === pool.id) {
        const { [organizationsRepo.DEFAULT_AGENT_POOL_ID]: _removed, ...attributes } = organization.attributes;
        organizationsRepo.updateOrganization(tx, organization.id, { attributes });
      }
      repo.deleteAgentPool(tx, id);
    });
  }
}
