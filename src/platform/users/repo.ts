import { and, asc, count, eq, or, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { DbOrTx } from '../../store/store.js';
import { organizationMemberships, organizations, users } from '../../store/tables.js';
import { inList } from '../../store/sql-lists.js';
import type { UserRow } from '../auth/principal.js';
import { updateRows } from '../../store/update.js';

export function findUserById(db: DbOrTx, id: string): UserRow | undefined {
  return db.select().from(users).where(eq(users.id, id)).get();
}

export function findUserByUsername(db: DbOrTx, username: string): UserRow | undefined {
  return db.select().from(users).where(eq(users.username, username)).get();
}

/** Emails are stored lower-cased, so this lookup is case-insensitive. */
export function findUserByEmail(db: DbOrTx, email: string): UserRow | undefined {
  return db.select().from(users).where(eq(users.email, email.toLowerCase())).get();
}

/** At most a slice of rows (see sql-slices.ts). */
export function insertUsers(db: DbOrTx, rows: UserRow[]): void {
  db.insert(users).values(rows).run();
}

export function insertUser(db: DbOrTx, row: UserRow): void {
  db.insert(users)
    .values({ ...row, email: row.email.toLowerCase() })
    .run();
}

export function updateUser(db: DbOrTx, id: string, changes: Partial<Pick<UserRow, 'username' | 'email'>>): void {
  updateRows(db, users, { ...changes, ...(changes.email !== undefined ? { email: changes.email.toLowerCase() } : {}) }, eq(users.id, id));
}

/** A site administrator's switches on a user: suspension and administrator rights. */
export function setUserFlags(db: DbOrTx, id: string, changes: Partial<Pick<UserRow, 'isSuspended' | 'isSiteAdmin'>>): void {
  updateRows(db, users, changes, eq(users.id, id));
}

export function deleteUser(db: DbOrTx, id: string): void {
  db.delete(users).where(eq(users.id, id)).run();
}

export interface UserFilter {
  /** Substring of the username or email, case-insensitive. */
  query?: string;
  siteAdmin?: boolean;
  suspended?: boolean;
}

export function listUsers(db: DbOrTx, filter: UserFilter, offset: number, limit: number): { rows: UserRow[]; total: number } {
  const conditions: SQL[] = [];
  if (filter.query) {
    const matches = or(containsIgnoringCase(users.username, filter.query), containsIgnoringCase(users.email, filter.query));
    if (matches) conditions.push(matches);
  }
  if (filter.siteAdmin !== undefined) conditions.push(eq(users.isSiteAdmin, filter.siteAdmin));
  if (filter.suspended !== undefined) conditions.push(eq(users.isSuspended, filter.suspended));
  // Service accounts behind team and organization tokens are not stored, so every row here is a person.
  const where = conditions.length > 0 ? and(...conditions) : undefined;
  const rows = db.select().from(users).where(where).orderBy(asc(users.username)).limit(limit).offset(offset).all();
  const total = db.select({ n: count() }).from(users).where(where).get()?.n ?? 0;
  return { rows, total };
}

/** `column` contains `text`, ignoring case; unlike LIKE, `%` and `_` in `text` match only themselves. */
export function containsIgnoringCase(column: SQLWrapper, text: string): SQL {
  return sql`instr(lower(${column}), ${text.toLowerCase()}) > 0`;
}

export interface UserOrganization {
  id: string;
  name: string;
  email: string;
}

/** The organizations each of `userIds` is a member of (invited or active), in one query. */
export function organizationsOfUsers(db: DbOrTx, userIds: readonly string[]): Map<string, UserOrganization[]> {
  const result = new Map<string, UserOrganization[]>(userIds.map((id) => [id, []]));
  if (userIds.length === 0) return result;
  const rows = db
    .select({ userId: organizationMemberships.userId, id: organizations.id, name: organizations.name, email: organizations.email })
    .from(organizationMemberships)
    .innerJoin(organizations, eq(organizations.id, organizationMemberships.organizationId))
    .where(inList(organizationMemberships.userId, [...userIds]))
    .orderBy(asc(organizations.name))
    .all();
  for (const { userId, ...organization } of rows) result.get(userId)?.push(organization);
  return result;
}
