import type { Clock } from '../../core/clock.js';
import { sha256Hex } from '../../core/crypto.js';
import { ApiError, badRequest, unprocessable } from '../../core/errors.js';
import { editionAllows, type Edition } from '../../core/edition.js';
import { newId, secretToken } from '../../core/ids.js';
import type { Db, DbOrTx } from '../../store/store.js';
import { Permissions } from '../auth/permissions.js';
import type { OrganizationRow, Principal } from '../auth/principal.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import type { Page } from '../jsonapi/pagination.js';
import { findOrganizationById, findOrganizationByName } from '../organizations/repo.js';
import { findTeam } from '../teams/repo.js';
import { findUserById } from '../users/repo.js';
import * as repo from './repo.js';
import type { TokenOwner, TokenRow } from './repo.js';

const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
const LATEST_EXPIRY = Date.parse('9999-12-31T23:59:59.999Z');

export interface TokenInput {
  description?: string | null;
  expiredAt?: Date | null;
}

/** A freshly issued token: the stored row and the secret, which exists only in this response. */
export interface IssuedToken {
  row: TokenRow;
  secret: string;
}

/**
 * User, team and organization API tokens. A user has any number of tokens; a team and an
 * organization have one each, and issuing a new one revokes the old (the legacy single-token
 * endpoints real clients call). Only the SHA-256 of a secret is stored.
 */
export class TokenService {
  private readonly permissions: Permissions;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {
    this.permissions = new Permissions(db);
  }

  /** The user whose tokens the caller manages: themselves, or anyone for a site administrator. */
  tokenUser(principal: Principal, userId: string): string {
    if (!this.permissions.canManageUserTokens(principal, userId) || !findUserById(this.db, userId)) throw NOT_FOUND;
    return userId;
  }

  createUserToken(principal: Principal, userId: string, input: TokenInput): IssuedToken {
    this.tokenUser(principal, userId);
    return this.issue(principal, { kind: 'user', userId, teamId: null, organizationId: null }, input);
  }

  listUserTokens(principal: Principal, userId: string, page: Page): { rows: TokenRow[]; total: number } {
    this.tokenUser(principal, userId);
    return repo.listUserTokens(this.db, userId, page.offset, page.size);
  }

  /** A token of any kind, if the caller could manage it; otherwise the missing-resource 404. */
  manageable(principal: Principal, tokenId: string): TokenRow {
    const row = repo.findToken(this.db, tokenId);
    if (!row || !this.mayManage(principal, row)) throw NOT_FOUND;
    return row;
  }

  revoke(principal: Principal, tokenId: string): void {
    repo.deleteToken(this.db, this.manageable(principal, tokenId).id);
  }

  /** The organization whose token the caller manages (owners, site administrators, the owners team token, the organization token). */
  tokenOrganization(principal: Principal, organizationName: string): OrganizationRow {
    const organization = findOrganizationByName(this.db, organizationName);
    if (!organization || !this.permissions.can(principal, organization, 'manage-organization-token')) throw NOT_FOUND;
    return organization;
  }

  /**
   * One more token of a team, beside the legacy one: its description (which may be empty) is
   * unique in the team, and without `expired-at` it expires two years on, as the real service sets.
   */
  createTeamToken(principal: Principal, teamId: string, input: TokenInput): IssuedToken {
    const description = input.description ?? null;
    if (description !== null && repo.findTeamTokenByDescription(this.db, teamId, description)) {
      throw new ApiError(422, 'Validation failed: Description has already been taken', {
        title: 'invalid attributes',
        pointer: '/data/attributes/description',
      });
    }
    const now = this.clock.now();
    const twoYearsOn = new Date(now);
    twoYearsOn.setUTCFullYear(now.getUTCFullYear() + 2);
    const expiredAt = input.expiredAt ?? twoYearsOn;
    return this.issue(principal, { kind: 'team', userId: null, teamId, organizationId: null }, { description, expiredAt });
  }

  /** Team tokens of an organization's teams the caller may manage tokens of (`GET /organizations/:org/team-tokens`). */
  organizationTeamTokens(principal: Principal, organizationName: string, filter: Omit<repo.TeamTokenFilter, 'teamIds'>, page: Page) {
    const organization = findOrganizationByName(this.db, organizationName);
    if (!organization) throw NOT_FOUND;
    this.permissions.require(principal, organization, 'read');
    const teamIds = repo
      .teamsOfOrganization(this.db, organization.id)
      .filter((team) => this.permissions.team(principal, team).has('update-api-token'))
      .map((team) => team.id);
    return repo.listTeamTokens(this.db, { ...filter, teamIds }, page.offset, page.size);
  }

  teamTokens(teamId: string, page: Page) {
    return repo.listTokensOfTeam(this.db, teamId, page.offset, page.size);
  }

  /**
   * Which of an organization's tokens `?token=` names: the organization token (absent or
   * `organization`) or, on the hosted edition, its audit-trail token. Anything else is a 422, so
   * a mistyped value never replaces the organization token.
   */
  organizationTokenKind(value: unknown, edition: Edition): 'organization' | 'audit-trails' {
    if (value === undefined || value === '' || value === 'organization') return 'organization';
    if (value === 'audit-trails' || value === 'audit_trails') {
      if (editionAllows.auditTrails(edition)) return 'audit-trails';
      throw badRequest('audit-trail tokens exist on the hosted edition only', { title: 'bad request', parameter: 'token' });
    }
    throw unprocessable(`token must be "organization" or "audit-trails", not ${JSON.stringify(value)}`);
  }

  /** Issues a team or organization token, revoking the one it had. */
  replaceOwnedToken(principal: Principal, owner: TokenOwner, input: TokenInput): IssuedToken {
    return this.db.transaction((tx) => {
      repo.deleteOwnedTokens(tx, owner);
      const columns =
        owner.kind === 'team'
          ? { kind: 'team' as const, userId: null, teamId: owner.teamId, organizationId: null }
          : { kind: owner.kind, userId: null, teamId: null, organizationId: owner.organizationId };
      return this.issue(principal, columns, input, tx);
    });
  }

  ownedToken(owner: TokenOwner): TokenRow {
    const row = repo.findOwnedToken(this.db, owner);
    if (!row) throw NOT_FOUND;
    return row;
  }

  revokeOwnedToken(owner: TokenOwner): void {
    if (repo.deleteOwnedTokens(this.db, owner) === 0) throw NOT_FOUND;
  }

  /** A user token with a secret given in advance (the seed's tokens, the admin token); a secret already stored stays as it is. */
  ensureUserToken(userId: string, secret: string, description: string, db: DbOrTx = this.db): void {
    const tokenHash = sha256Hex(secret);
    if (repo.findTokenByHash(db, tokenHash)) return;
    repo.insertToken(db, {
      id: newId('at'),
      kind: 'user',
      userId,
      teamId: null,
      organizationId: null,
      tokenHash,
      description,
      createdById: null,
      createdAt: this.clock.now(),
      lastUsedAt: null,
      expiredAt: null,
    });
  }

  /**
   * Checks a requested expiry: an ISO 8601 timestamp with a zone, before year 10000 (clients parse
   * four-digit years only), and in the future by the emulator's clock.
   */
  expiry(value: string | null | undefined): Date | null | undefined {
    if (value === undefined || value === null) return value;
    const at = ISO_TIMESTAMP.test(value) ? Date.parse(value) : Number.NaN;
    if (Number.isNaN(at) || at > LATEST_EXPIRY)
      throw unprocessable('expired-at must be an ISO 8601 timestamp such as 2030-01-01T00:00:00Z', '/data/attributes/expired-at');
    if (at <= this.clock.nowMs()) throw unprocessable('expired-at must be in the future', '/data/attributes/expired-at');
    return new Date(at);
  }

  private issue(
    principal: Principal,
    columns: Pick<TokenRow, 'kind' | 'userId' | 'teamId' | 'organizationId'>,
    input: TokenInput,
    db: DbOrTx = this.db,
  ): IssuedToken {
    const secret = secretToken();
    const row: TokenRow = {
      id: newId('at'),
      ...columns,
      tokenHash: sha256Hex(secret),
      description: input.description ?? null,
      createdById: principal.kind === 'user' ? principal.user.id : null,
      createdAt: this.clock.now(),
      lastUsedAt: null,
      expiredAt: input.expiredAt ?? null,
    };
    repo.insertToken(db, row);
    return { row, secret };
  }

  private mayManage(principal: Principal, row: TokenRow): boolean {
    if (row.kind === 'user') return row.userId !== null && this.permissions.canManageUserTokens(principal, row.userId);
    if (row.kind === 'team') {
      const team = row.teamId ? findTeam(this.db, row.teamId) : undefined;
      return team !== undefined && this.permissions.team(principal, team).has('update-api-token');
    }
    const organization = row.organizationId ? findOrganizationById(this.db, row.organizationId) : undefined;
    return organization !== undefined && this.permissions.can(principal, organization, 'manage-organization-token');
  }
}
