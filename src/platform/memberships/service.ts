import type { Clock } from '../../core/clock.js';
import type { Dialect } from '../../core/dialect.js';
import { ApiError, badRequest, conflict, forbidden, unprocessable } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { Db, DbOrTx } from '../../store/store.js';
import { Permissions } from '../auth/permissions.js';
import type { OrganizationRow, Principal, UserRow } from '../auth/principal.js';
import { wireBehaviours } from '../dialect-behaviours.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import type { Page } from '../jsonapi/pagination.js';
import * as organizationsRepo from '../organizations/repo.js';
import { addTeamMembers, findTeam } from '../teams/repo.js';
import { findUserByEmail, findUserById, findUserByUsername } from '../users/repo.js';
import { EMAIL_PATTERN, UserService } from '../users/service.js';
import { inSlices } from '../sql-slices.js';
import * as repo from './repo.js';
import { findMembership, findMembershipById, type MembershipRow } from './repo.js';

/** A username for someone invited by email alone: the address's local part, made unique. */
function usernameFor(db: DbOrTx, email: string): string {
  const base = (email.split('@')[0] ?? '').replace(/[^A-Za-z0-9._-]/g, '-').replace(/^[^A-Za-z0-9]+/, '') || 'user';
  let candidate = base;
  for (let suffix = 2; findUserByUsername(db, candidate); suffix++) candidate = `${base}-${suffix}`;
  return candidate;
}

/**
 * Organization memberships. Inviting and removing need a membership-management permission
 * (owners, the organization token, teams that manage membership); any member may list them.
 * An invitation becomes active when accepted (the control plane, or the organization's
 * `auto-accept-invitations` seed option); until then its teams grant nothing.
 */
export class MembershipService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly dialect: Dialect,
    private readonly users: UserService,
  ) {}

  organization(principal: Principal, name: string, manage: boolean): OrganizationRow {
    const organization = organizationsRepo.findOrganizationByName(this.db, name);
    if (!organization) throw NOT_FOUND;
    new Permissions(this.db).require(principal, organization, manage ? 'manage-membership' : 'read');
    return organization;
  }

  /** A membership the caller may see: their own, or any in an organization they are a member of. */
  visible(principal: Principal, id: string): { membership: MembershipRow; organization: OrganizationRow; user: UserRow } {
    const membership = findMembershipById(this.db, id);
    const organization = membership && organizationsRepo.findOrganizationById(this.db, membership.organizationId);
    const user = membership && findUserById(this.db, membership.userId);
    if (!membership || !organization || !user) throw NOT_FOUND;
    const own = principal.kind === 'user' && principal.user.id === membership.userId;
    if (!own) new Permissions(this.db).require(principal, organization, 'read');
    return { membership, organization, user };
  }

  invite(organization: OrganizationRow, email: string, teamIds: readonly string[]): { membership: MembershipRow; user: UserRow } {
    if (!EMAIL_PATTERN.test(email)) throw unprocessable('email is invalid', '/data/attributes/email');
    if (teamIds.length === 0 && wireBehaviours(this.dialect).invitationRequiresTeam) {
      throw unprocessable('an invitation needs at least one team', '/data/relationships/teams');
    }
    teamIds.forEach((teamId, index) => {
      const team = findTeam(this.db, teamId);
      if (!team || team.organizationId !== organization.id) {
        throw unprocessable(`team ${teamId} does not exist in this organization`, `/data/relationships/teams/data/${index}/id`);
      }
    });
    const existing = findUserByEmail(this.db, email);
    if (existing && findMembership(this.db, organization.id, existing.id)) {
      throw unprocessable('email already belongs to a member (or invitee) of this organization', '/data/attributes/email');
    }
    const limit = organization.settings.membershipLimit;
    if (typeof limit === 'number' && repo.countMemberships(this.db, organization.id) >= limit) {
      throw badRequest(`the organization has reached its limit of ${limit} memberships`, { title: 'organization limit reached' });
    }
    const at = this.clock.now();
    return this.db.transaction((tx) => {
      const user = existing ?? this.users.create({ username: usernameFor(tx, email), email }, tx);
      const membership: MembershipRow = {
        id: newId('ou'),
        organizationId: organization.id,
        userId: user.id,
        status: organization.settings.autoAcceptInvitations === true ? 'active' : 'invited',
        createdAt: at,
      };
      repo.insertMembership(tx, membership);
      // The invite's teams are recorded now; permissions ignore them until the membership is active.
      // Team places are listed in join order, so each is stamped a millisecond after the previous
      // one: the membership then lists its teams in the order the invitation gave them.
      [...new Set(teamIds)].forEach((teamId, index) => addTeamMembers(tx, teamId, [user.id], new Date(at.getTime() + index)));
      return { membership, user };
    });
  }

  /** One page of an organization's memberships (the caller already passed `organization`), with status counts. */
  list(organization: OrganizationRow, filter: repo.MembershipFilter, page: Page) {
    // The counts per status already hold the filtered total, so a text search runs its index lookup once less.
    const statusCounts = repo.statusCounts(this.db, organization.id, filter);
    const total = filter.status === undefined ? statusCounts.total : statusCounts[filter.status];
    const { rows } = repo.listMemberships(this.db, organization.id, filter, page.offset, page.size, total);
    return { rows, total, statusCounts };
  }

  /** One page of a user's own memberships, each with its organization. */
  ofUser(user: UserRow, page: Page): { rows: { membership: MembershipRow; organization: OrganizationRow }[]; total: number } {
    const { rows, total } = repo.listMembershipsOfUser(this.db, user.id, page.offset, page.size);
    const found = rows.flatMap((membership) => {
      const organization = organizationsRepo.findOrganizationById(this.db, membership.organizationId);
      return organization ? [{ membership, organization }] : [];
    });
    return { rows: found, total };
  }

  /**
   * Many new users, each an active member of the organization, in one transaction (the control
   * plane's bulk creation); a username or email already taken is a 409 and makes nothing.
   */
  addActiveMany(organizationId: string, people: readonly { username: string; email: string }[]): void {
    const at = this.clock.now();
    this.db.transaction((tx) => {
      const made = this.users.createMany(people, tx);
      const rows = made.map((user): MembershipRow => ({
        id: newId('ou'),
        organizationId,
        userId: user.id,
        status: 'active',
        createdAt: at,
      }));
      for (const slice of inSlices(rows)) repo.insertMemberships(tx, slice);
    });
  }

  /**
   * Makes a user an active member of the organization and of one of its teams, keeping what is
   * already there (the seed's team members; it runs at every start).
   */
  addToTeam(organizationId: string, userId: string, teamId: string, db: DbOrTx = this.db): void {
    organizationsRepo.addActiveMember(db, { membershipId: newId('ou'), organizationId, userId, teamId, at: this.clock.now() });
  }

  /** The same for the organization's owners team (the seed's `owners`). */
  addOwner(organizationId: string, userId: string, db: DbOrTx = this.db): void {
    const owners = organizationsRepo.findOwnersTeam(db, organizationId);
    if (owners) this.addToTeam(organizationId, userId, owners.id, db);
  }

  /**
   * Removing a member: 403 for owners removing themselves (the spec's rule), and never the
   * organization's last active owner, whoever asks.
   */
  remove(principal: Principal, id: string): void {
    const { membership, organization } = this.visible(principal, id);
    new Permissions(this.db).require(principal, organization, 'manage-membership');
    const owners = repo.activeOwnerIds(this.db, organization.id);
    const self = principal.kind === 'user' && principal.user.id === membership.userId;
    if (self && owners.includes(membership.userId)) {
      throw forbidden('you cannot remove yourself from an organization you own', { title: 'forbidden' });
    }
    if (owners.length === 1 && owners[0] === membership.userId) {
      throw unprocessable('the last owner of an organization cannot be removed');
    }
    this.db.transaction((tx) => repo.deleteMembership(tx, membership));
  }

  /** The control plane's stand-in for the invitee following the invitation link. */
  accept(id: string): MembershipRow {
    const membership = findMembershipById(this.db, id);
    if (!membership) throw new ApiError(404, `no organization membership ${id}`);
    if (membership.status === 'active') throw conflict(`organization membership ${id} is already active`);
    repo.setMembershipStatus(this.db, id, 'active');
    return { ...membership, status: 'active' };
  }
}
