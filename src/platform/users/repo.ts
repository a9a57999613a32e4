import { and, asc, count, eq, or, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { DbOrTx } from '../../store/store.js';
import { users } from '../../store/tables.js';
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

export function deleteUser(db: DbOrTx, id: string): void {
  db.delete(users).where(eq(users.id, id)).run();
}

export interface UserFilter {
  /** Substring of the username or email, case-insensitive. */
  query?: string;
  siteAdmin?: boolean;
}

export function listUsers(db: DbOrTx, filter: UserFilter, offset: number, limit: number): { rows: UserRow[]; total: number } {
  const conditions: SQL[] = [];
  if (filter.query) {
    const matches = or(containsIgnoringCase(users.username, filter.query), containsIgnoringCase(users.email, filter.query));
    if (matches) conditions.push(matches);
  }
  if (filter.siteAdmin !== undefined) conditions.push(eq(users.isSiteAdmin, filter.siteAdmin));
  const where = conditions.length > 0 ? and(...conditions) : undefined;
  const rows = db.select().from(users).where(where).orderBy(asc(users.username)).limit(limit).offset(offset).all();
  const total = db.select({ n: count() }).from(users).where(where).get()?.n ?? 0;
  return { rows, total };
}

/** `column` contains `text`, ignoring case; unlike LIKE, `%` and `_` in `text` match only themselves. */
export function containsIgnoringCase(column: SQLWrapper, text: string): SQL {
  return sql`instr(lower(${column}), ${text.toLowerCase()}) > 0`;
}
