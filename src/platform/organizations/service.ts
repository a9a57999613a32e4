import type { Clock } from '../../core/clock.js';
import { ApiError, unprocessable } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { Db, DbOrTx } from '../../store/store.js';
import type { OrganizationSettings } from '../../store/tables.js';
import { organizationCreationLimited } from '../admin-settings/service.js';
import { isSiteAdmin, type OrganizationRow, type Principal, type UserRow } from '../auth/principal.js';
import { Permissions, type OrganizationPermission } from '../auth/permissions.js';
import * as repo from './repo.js';

export const NAME_PATTERN = /^[A-Za-z0-9_-]+$/;
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export const ORGANIZATION_DEFAULTS = {
  'default-execution-mode': 'remote',
  'cost-estimation-enabled': false,
  'collaborator-auth-policy': 'password',
  'session-timeout': null,
  'session-remember': null,
  'assessments-enforced': false,
  'allow-force-delete-workspaces': false,
  'send-passing-statuses-for-untriggered-speculative-plans': false,
  'aggregated-commit-status-enabled': false,
  'speculative-plan-management-enabled': true,
} as const;

/**
 * The real service's limit: its clients' own test organizations (`tst-` and a 36-character UUID)
 * are exactly this long.
 */
export const NAME_MAX_LENGTH = 40;

const DEFAULT_AGENT_POOL_POINTER = '/data/relationships/default-agent-pool';

export interface UpdateOrganization {
  name?: string;
  email?: string;
  attributes?: Record<string, unknown>;
  /** A pool id to set, null to clear, undefined to leave as it is. */
  defaultAgentPoolId?: string | null;
}

export interface CreateOrganization {
  name: string;
  email: string;
  attributes?: Record<string, unknown>;
  settings?: OrganizationSettings;
}

/** An organization together with the caller's permissions on it. */
export interface Granted {
  organization: OrganizationRow;
  granted: ReadonlySet<OrganizationPermission>;
}

/** What other domains own about an organization: the door passes them in. */
export interface OrganizationParts {
  /** Refuses (422 at `pointer`) a pool that is not the organization's. */
  requireAgentPool(db: DbOrTx, organizationId: string, poolId: string, pointer: string): void;
  /** Rows a new organization starts with (its default project), written in its creation's transaction. */
  onCreate(tx: DbOrTx, organizationId: string, at: Date): void;
}

export class OrganizationService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly parts: OrganizationParts,
  ) {}

  /**
   * Creates an organization with its owners team. The creating user (when there is one) joins the
   * owners team with an active membership, so the organization is never ownerless.
   */
  create(input: CreateOrganization, owner: UserRow | null, db: DbOrTx = this.db): OrganizationRow {
    validateName(input.name);
    if (!EMAIL_PATTERN.test(input.email)) throw unprocessable('email is invalid', '/data/attributes/email');
    if (repo.findOrganizationByName(db, input.name)) throw unprocessable('name has already been taken', '/data/attributes/name');
    const at = this.clock.now();
    const row: OrganizationRow = {
      id: newId('org'),
      name: input.name,
      email: input.email,
      settings: input.settings ?? {},
      attributes: { ...ORGANIZATION_DEFAULTS, ...input.attributes },
      dataRetentionPolicy: null,
      createdAt: at,
      updatedAt: at,
    };
    const ownersTeamId = newId('team');
    const write = (tx: DbOrTx) => {
      repo.insertOrganization(tx, row);
      repo.insertOwnersTeam(tx, { id: ownersTeamId, organizationId: row.id, createdAt: at });
      this.parts.onCreate(tx, row.id, at);
      if (owner)
        repo.addActiveMember(tx, { membershipId: newId('ou'), organizationId: row.id, userId: owner.id, teamId: ownersTeamId, at });
    };
    if (db === this.db) this.db.transaction(write);
    else write(db);
    return row;
  }

  /**
   * Users create organizations through the API: site administrators always, other users only
   * while the `limit-user-organization-creation` admin setting is off. Team and organization
   * tokens never do.
   */
  createAs(principal: Principal, input: CreateOrganization): OrganizationRow {
    if (principal.kind !== 'user' || (!isSiteAdmin(principal) && organizationCreationLimited(this.db)))
      throw new ApiError(404, 'not found');
    return this.create(input, principal.user);
  }

  /**
   * The organization and what `principal` may do there, if it may at least read it; otherwise the
   * same 404 as a missing one. Callers that render the organization reuse `granted` for its
   * `permissions` instead of asking the permissions module a second time.
   */
  readable(principal: Principal, name: string): Granted {
    const organization = repo.findOrganizationByName(this.db, name);
    if (!organization) throw new ApiError(404, 'not found');
    const granted = new Permissions(this.db).organization(principal, organization);
    if (!granted.has('read')) throw new ApiError(404, 'not found');
    return { organization, granted };
  }

  /** The organization, if `principal` may at least read it; otherwise the same 404 as a missing one. */
  visible(principal: Principal, name: string): OrganizationRow {
    return this.readable(principal, name).organization;
  }

  list(principal: Principal, offset: number, limit: number): { rows: OrganizationRow[]; total: number } {
    if (isSiteAdmin(principal)) return repo.listOrganizations(this.db, 'all', offset, limit);
    const permissions = new Permissions(this.db);
    const candidates =
      principal.kind === 'user'
        ? repo.organizationIdsOfUser(this.db, principal.user.id)
        : [principal.kind === 'team' ? principal.team.organizationId : principal.organization.id];
    const readable = candidates.filter((id) => permissions.can(principal, { id }, 'read'));
    return repo.listOrganizations(this.db, readable, offset, limit);
  }

  update(principal: Principal, name: string, changes: UpdateOrganization): Granted {
    const { organization, granted } = this.readable(principal, name);
    if (!granted.has('update')) throw new ApiError(404, 'not found');
    if (changes.name !== undefined && changes.name !== organization.name) {
      validateName(changes.name);
      if (repo.findOrganizationByName(this.db, changes.name)) throw unprocessable('name has already been taken', '/data/attributes/name');
    }
    if (changes.email !== undefined && !EMAIL_PATTERN.test(changes.email))
      throw unprocessable('email is invalid', '/data/attributes/email');
    const updated: OrganizationRow = {
      ...organization,
      name: changes.name ?? organization.name,
      email: changes.email ?? organization.email,
      attributes: this.withDefaultAgentPool(
        organization,
        { ...organization.attributes, ...changes.attributes },
        changes.defaultAgentPoolId,
      ),
      updatedAt: this.clock.now(),
    };
    repo.updateOrganization(this.db, organization.id, updated);
    return { organization: updated, granted };
  }

  /**
   * Applies a default agent pool change to the merged attributes. A pool only makes sense in
   * agent mode, so naming one in another mode is refused, and leaving agent mode drops it.
   */
  private withDefaultAgentPool(
    organization: OrganizationRow,
    attributes: Record<string, unknown>,
    poolId: string | null | undefined,
  ): Record<string, unknown> {
    const agentMode = attributes['default-execution-mode'] === 'agent';
    if (typeof poolId === 'string') {
      if (!agentMode)
        throw unprocessable("Default agent pool must not be specified unless using 'agent' execution mode", DEFAULT_AGENT_POOL_POINTER);
      this.parts.requireAgentPool(this.db, organization.id, poolId, DEFAULT_AGENT_POOL_POINTER);
    }
    const kept = poolId === undefined ? (attributes[repo.DEFAULT_AGENT_POOL_ID] ?? null) : poolId;
    return { ...attributes, [repo.DEFAULT_AGENT_POOL_ID]: agentMode ? kept : null };
  }

  /** An organization by name for the control plane, which acts with no principal. */
  byName(name: string): OrganizationRow | undefined {
    return repo.findOrganizationByName(this.db, name);
  }

  /** Settings that have no API (membership limit, entitlements, auto-accept); the control plane sets them. */
  changeSettings(organization: OrganizationRow, changes: OrganizationRow['settings']): OrganizationRow {
    const settings = { ...organization.settings, ...changes };
    repo.updateOrganization(this.db, organization.id, { settings, updatedAt: this.clock.now() });
    return { ...organization, settings };
  }

  destroy(principal: Principal, name: string): void {
    const { organization, granted } = this.readable(principal, name);
    if (!granted.has('destroy')) throw new ApiError(404, 'not found');
    repo.deleteOrganization(this.db, organization.id);
  }
}

function validateName(name: string): void {
  if (name.length > NAME_MAX_LENGTH)
    throw unprocessable(`name is too long (maximum is ${NAME_MAX_LENGTH} characters)`, '/data/attributes/name');
  if (!NAME_PATTERN.test(name)) {
    throw unprocessable('name is invalid: use only letters, numbers, "-" and "_"', '/data/attributes/name');
  }
}
