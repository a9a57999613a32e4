import type { Clock } from '../../core/clock.js';
import { conflict, unprocessable } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { DbOrTx } from '../../store/store.js';
import { isSiteAdmin, type OrganizationRow, type Principal, type UserRow } from '../auth/principal.js';
import { Permissions } from '../auth/permissions.js';
import { refusingDuplicates } from '../db-errors.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import { organizationIdsOfUser } from '../organizations/repo.js';
import { inSlices } from '../sql-slices.js';
import * as repo from './repo.js';

export const USERNAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Email domain of the synthetic service accounts behind team and organization tokens. */
const SERVICE_ACCOUNT_DOMAIN = 'service-accounts.understudy.test';

/**
 * The account a team or organization token speaks for. The real service answers
 * `GET /account/details` for such tokens with a service-account user (`api-team_…`, `api-org-…`);
 * understudy derives one from the team or organization instead of storing it, so it has a stable
 * id but is not reachable through `GET /users/:id`.
 */
export function serviceAccount(principal: Exclude<Principal, { kind: 'user' }>): UserRow {
  const username =
    principal.kind === 'team' ? `api-team_${principal.team.id.replace(/^team-/, '')}` : `api-org-${principal.organization.name}`;
  const owner = principal.kind === 'team' ? principal.team.id : principal.organization.id;
  return {
    id: `user-svc-${owner}`,
    username,
    email: `${username.toLowerCase()}@${SERVICE_ACCOUNT_DOMAIN}`,
    isSiteAdmin: false,
    isServiceAccount: true,
    isSuspended: false,
    createdAt: principal.kind === 'team' ? principal.team.createdAt : principal.organization.createdAt,
  };
}

/** The service account behind an organization's token, without the token (locks remember only the organization). */
export function organizationServiceAccount(organization: OrganizationRow): UserRow {
  return serviceAccount({ kind: 'organization', tokenId: '', organization });
}

export interface CreateUser {
  username: string;
  email: string;
  siteAdmin?: boolean;
}

export class UserService {
  constructor(
    private readonly db: DbOrTx,
    private readonly clock: Clock,
  ) {}

  /** The caller's own account: the user, or the service account behind a team or organization token. */
  current(principal: Principal): UserRow {
    return principal.kind === 'user' ? principal.user : serviceAccount(principal);
  }

  /**
   * A user the caller may see: themselves, anyone for a site administrator, otherwise someone
   * with a membership (invited or active) in an organization the caller can read.
   */
  visible(principal: Principal, id: string): UserRow {
    const user = repo.findUserById(this.db, id);
    if (!user) throw NOT_FOUND;
    if (isSiteAdmin(principal) || (principal.kind === 'user' && principal.user.id === id)) return user;
    const permissions = new Permissions(this.db);
    const shared = organizationIdsOfUser(this.db, user.id).some((organizationId) =>
      permissions.can(principal, { id: organizationId }, 'read'),
    );
    if (!shared) throw NOT_FOUND;
    return user;
  }

  /**
   * Changes the caller's username or email. The real service keeps a new email unconfirmed until
   * the user follows a link; understudy has no mail loop for that, so the change applies at once.
   */
  updateAccount(principal: Principal, changes: { username?: string; email?: string }): UserRow {
    if (principal.kind !== 'user') throw NOT_FOUND;
    const user = principal.user;
    if (changes.username !== undefined && changes.username !== user.username) this.checkUsername(changes.username);
    if (changes.email !== undefined && changes.email.toLowerCase() !== user.email) this.checkEmail(changes.email);
    repo.updateUser(this.db, user.id, changes);
    return repo.findUserById(this.db, user.id) ?? user;
  }

  /** User management through the API is for site administrators; anyone else sees nothing there. */
  requireSiteAdmin(principal: Principal): void {
    if (!isSiteAdmin(principal)) throw NOT_FOUND;
  }

  /** Creates a user (site administrators only through the API; invitations and seeds call `create`). */
  createAs(principal: Principal, input: CreateUser): UserRow {
    this.requireSiteAdmin(principal);
    return this.create(input);
  }

  create(input: CreateUser, db: DbOrTx = this.db): UserRow {
    this.checkUsername(input.username, db);
    this.checkEmail(input.email, db);
    const row = newUserRow(input, this.clock.now());
    repo.insertUser(db, row);
    return row;
  }

  /** Many users in slices, inside the caller's transaction; a name or address taken is a 409 for the lot. */
  createMany(inputs: readonly CreateUser[], db: DbOrTx = this.db): UserRow[] {
    const at = this.clock.now();
    const rows = inputs.map((input) => newUserRow(input, at));
    refusingDuplicates(
      () => inSlices(rows).forEach((slice) => repo.insertUsers(db, slice)),
      () => conflict('some usernames or emails are already taken'),
    );
    return rows;
  }

  list(principal: Principal, filter: repo.UserFilter, offset: number, limit: number): { rows: UserRow[]; total: number } {
    this.requireSiteAdmin(principal);
    return repo.listUsers(this.db, filter, offset, limit);
  }

  /** The organizations of each listed user (`include=organizations` on the admin list). */
  organizationsOf(userIds: readonly string[]): Map<string, repo.UserOrganization[]> {
    return repo.organizationsOfUsers(this.db, userIds);
  }

  /** A site administrator's change to another user (`/admin/users/:id/actions/…`); the user, changed. */
  setFlags(principal: Principal, id: string, changes: Partial<Pick<UserRow, 'isSuspended' | 'isSiteAdmin'>>): UserRow {
    this.requireSiteAdmin(principal);
    const user = repo.findUserById(this.db, id);
    if (!user) throw NOT_FOUND;
    repo.setUserFlags(this.db, id, changes);
    return { ...user, ...changes };
  }

  /** Deletes a user with their tokens, memberships and team places (site administrators only). */
  destroyAs(principal: Principal, id: string): void {
    this.requireSiteAdmin(principal);
    if (!repo.findUserById(this.db, id)) throw NOT_FOUND;
    repo.deleteUser(this.db, id);
  }

  private checkUsername(username: string, db: DbOrTx = this.db): void {
    if (!USERNAME_PATTERN.test(username)) {
      throw unprocessable(
        'username is invalid: use letters, numbers, ".", "-" and "_", starting with a letter or number',
        '/data/attributes/username',
      );
    }
    if (repo.findUserByUsername(db, username)) throw unprocessable('username has already been taken', '/data/attributes/username');
  }

  private checkEmail(email: string, db: DbOrTx = this.db): void {
    if (!EMAIL_PATTERN.test(email)) throw unprocessable('email is invalid', '/data/attributes/email');
    if (repo.findUserByEmail(db, email)) throw unprocessable('email has already been taken', '/data/attributes/email');
  }
}

function newUserRow(input: CreateUser, at: Date): UserRow {
  return {
    id: newId('user'),
    username: input.username,
    email: input.email.toLowerCase(),
    isSiteAdmin: input.siteAdmin ?? false,
    isServiceAccount: false,
    isSuspended: false,
    createdAt: at,
  };
}
