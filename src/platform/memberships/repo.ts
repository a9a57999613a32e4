import { and, asc, count, eq, inArray, or, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../store/store.js';
import { organizationMemberships, teamMembers, teams, users } from '../../store/tables.js';
import type { UserRow } from '../auth/principal.js';
import type { MembershipRow } from '../teams/repo.js';
import { containsIgnoringCase } from '../users/repo.js';

export type MembershipStatus = MembershipRow['status'];

export interface MembershipFilter {
  /** Substring of the username or email, case-insensitive. */
  query?: string;
  status?: MembershipStatus;
  /** Any of these addresses (stored lower-cased). */
  emails?: string[];
}

export type MembershipWithUser = { membership: MembershipRow; user: UserRow };

function conditions(organizationId: string, filter: MembershipFilter, withStatus: boolean): SQL | undefined {
  const parts: (SQL | undefined)[] = [eq(organizationMemberships.organizationId, organizationId)];
  if (filter.query) parts.push(or(containsIgnoringCase(users.username, filter.query), containsIgnoringCase(users.email, filter.query)));
  if (filter.emails && filter.emails.length > 0) parts.push(inArray(users.email, filter.emails.map((email) => email.toLowerCase())));
  if (withStatus && filter.status) parts.push(eq(organizationMemberships.status, filter.status));
  return and(...parts);
}

export function listMemberships(db: DbOrTx, organizationId: string, filter: MembershipFilter, offset: number, limit: number): { rows: MembershipWithUser[]; total: number } {
  const where = conditions(organizationId, filter, true);
  const rows = db
    .select({ membership: organizationMemberships, user: users })
    .from(organizationMemberships)
    .innerJoin(users, eq(users.id, organizationMemberships.userId))
    .where(where)
    .orderBy(asc(organizationMemberships.createdAt), asc(organizationMemberships.id))
    .limit(limit)
    .offset(offset)
    .all();
  const total = db.select({ n: count() }).from(organizationMemberships).innerJoin(users, eq(users.id, organizationMemberships.userId)).where(where).get()?.n ?? 0;
  return { rows, total };
}

/** How many memberships match the filter in each status (the status filter itself is not applied). */
export function statusCounts(db: DbOrTx, organizationId: string, filter: MembershipFilter): { total: number; active: number; invited: number } {
  const rows = db
    .select({ status: organizationMemberships.status, n: count() })
    .from(organizationMemberships)
    .innerJoin(users, eq(users.id, organizationMemberships.userId))
    .where(conditions(organizationId, filter, false))
    .groupBy(organizationMemberships.status)
    .all();
  const active = rows.find((row) => row.status === 'active')?.n ?? 0;
  const invited = rows.find((row) => row.status === 'invited')?.n ?? 0;
  return { total: active + invited, active, invited };
}

export function listMembershipsOfUser(db: DbOrTx, userId: string, offset: number, limit: number): { rows: MembershipRow[]; total: number } {
  const where = eq(organizationMemberships.userId, userId);
  const rows = db.select().from(organizationMemberships).where(where).orderBy(asc(organizationMemberships.createdAt), asc(organizationMemberships.id)).limit(limit).offset(offset).all();
  const total = db.select({ n: count() }).from(organizationMemberships).where(where).get()?.n ?? 0;
  return { rows, total };
}

export function countMemberships(db: DbOrTx, organizationId: string): number {
  return db.select({ n: count() }).from(organizationMemberships).where(eq(organizationMemberships.organizationId, organizationId)).get()?.n ?? 0;
}

export function insertMembership(db: DbOrTx, row: MembershipRow): void {
  db.insert(organizationMemberships).values(row).run();
}

export function setMembershipStatus(db: DbOrTx, id: string, status: MembershipStatus): void {
  db.update(organizationMemberships).set({ status }).where(eq(organizationMemberships.id, id)).run();
}

/** Removes the membership and the user's places in the organization's teams. */
export function deleteMembership(db: DbOrTx, membership: MembershipRow): void {
  const teamIds = db.select({ id: teams.id }).from(teams).where(eq(teams.organizationId, membership.organizationId));
  db.delete(teamMembers).where(and(eq(teamMembers.userId, membership.userId), inArray(teamMembers.teamId, teamIds))).run();
  db.delete(organizationMemberships).where(eq(organizationMemberships.id, membership.id)).run();
}

/** Active members of the organization's owners team. */
export function activeOwnerIds(db: DbOrTx, organizationId: string): string[] {
  return db
    .select({ id: teamMembers.userId })
    .from(teamMembers)
    .innerJoin(teams, eq(teams.id, teamMembers.teamId))
    .innerJoin(
      organizationMemberships,
      and(eq(organizationMemberships.userId, teamMembers.userId), eq(organizationMemberships.organizationId, organizationId)),
    )
    .where(and(eq(teams.organizationId, organizationId), eq(teams.isOwners, true), eq(organizationMemberships.status, 'active')))
    .all()
    .map((row) => row.id);
}
