import { and, asc, count, eq } from 'drizzle-orm';
import { inList } from '../../store/sql-lists.js';
import { preparedSql } from '../../store/prepared.js';
import { rowReader } from '../row-reader.js';
import { sqliteOf, type DbOrTx } from '../../store/store.js';
import { organizationMemberships, organizations, teamMembers, teams } from '../../store/tables.js';
import type { OrganizationRow } from '../auth/principal.js';
import { updateRows } from '../../store/update.js';

/**
 * The organization's default agent pool is kept in its attributes under this key. Responses show
 * it as the `default-agent-pool` relationship instead; workspaces that follow the organization's
 * execution mode read it from here.
 */
export const DEFAULT_AGENT_POOL_ID = 'default-agent-pool-id';

// Every platform request reads an organization by name or id: raw statements compiled once,
// rows mapped by row-reader.ts (drizzle's generic per-cell mapping cost more than the read).
export const organizationRows = rowReader(organizations);
const BY_NAME = `SELECT ${organizationRows.columns('o')} FROM organizations o WHERE o.name = ?`;
const BY_ID = `SELECT ${organizationRows.columns('o')} FROM organizations o WHERE o.id = ?`;

const one = (values: unknown) => (values === undefined ? undefined : organizationRows.read(values as unknown[]));

export function findOrganizationByName(db: DbOrTx, name: string): OrganizationRow | undefined {
  return one(preparedSql(sqliteOf(db), BY_NAME).raw().get(name));
}

export function findOrganizationById(db: DbOrTx, id: string): OrganizationRow | undefined {
  return one(preparedSql(sqliteOf(db), BY_ID).raw().get(id));
}

export function listOrganizations(
  db: DbOrTx,
  ids: string[] | 'all',
  offset: number,
  limit: number,
): { rows: OrganizationRow[]; total: number } {
  const where = ids === 'all' ? undefined : inList(organizations.id, ids);
  const rows = db.select().from(organizations).where(where).orderBy(asc(organizations.name)).limit(limit).offset(offset).all();
  const total = db.select({ n: count() }).from(organizations).where(where).get()?.n ?? 0;
  return { rows, total };
}

/** Ids of the organizations a user belongs to (any status; the permission module filters further). */
export function organizationIdsOfUser(db: DbOrTx, userId: string): string[] {
  return db
    .select({ id: organizationMemberships.organizationId })
    .from(organizationMemberships)
    .where(eq(organizationMemberships.userId, userId))
    .all()
    .map((row) => row.id);
}

export function insertOrganization(db: DbOrTx, row: typeof organizations.$inferInsert): void {
  db.insert(organizations).values(row).run();
}

export function insertOwnersTeam(db: DbOrTx, row: Omit<typeof teams.$inferInsert, 'isOwners' | 'name'>): void {
  db.insert(teams)
    .values({ ...row, name: 'owners', isOwners: true, visibility: 'secret' })
    .run();
}

/** The organization's owners team (every organization has one, made with it). */
export function findOwnersTeam(db: DbOrTx, organizationId: string): typeof teams.$inferSelect | undefined {
  return db
    .select()
    .from(teams)
    .where(and(eq(teams.organizationId, organizationId), eq(teams.isOwners, true)))
    .get();
}

export function addActiveMember(
  db: DbOrTx,
  args: { membershipId: string; organizationId: string; userId: string; teamId: string; at: Date },
): void {
  db.insert(organizationMemberships)
    .values({ id: args.membershipId, organizationId: args.organizationId, userId: args.userId, status: 'active', createdAt: args.at })
    .onConflictDoUpdate({ target: [organizationMemberships.organizationId, organizationMemberships.userId], set: { status: 'active' } })
    .run();
  db.insert(teamMembers).values({ teamId: args.teamId, userId: args.userId, createdAt: args.at }).onConflictDoNothing().run();
}

export function updateOrganization(db: DbOrTx, id: string, changes: Partial<typeof organizations.$inferInsert>): void {
  updateRows(db, organizations, changes, eq(organizations.id, id));
}

export function deleteOrganization(db: DbOrTx, id: string): void {
  db.delete(organizations).where(eq(organizations.id, id)).run();
}
