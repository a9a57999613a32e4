import { and, asc, count, eq } from 'drizzle-orm';
import type { DbOrTx } from '../../store/store.js';
import { platformTokens } from '../../store/tables.js';

export type TokenRow = typeof platformTokens.$inferSelect;

export function findToken(db: DbOrTx, id: string): TokenRow | undefined {
  return db.select().from(platformTokens).where(eq(platformTokens.id, id)).get();
}

export function insertToken(db: DbOrTx, row: TokenRow): void {
  db.insert(platformTokens).values(row).run();
}

export function deleteToken(db: DbOrTx, id: string): void {
  db.delete(platformTokens).where(eq(platformTokens.id, id)).run();
}

export function listUserTokens(db: DbOrTx, userId: string, offset: number, limit: number): { rows: TokenRow[]; total: number } {
  const where = and(eq(platformTokens.kind, 'user'), eq(platformTokens.userId, userId));
  const rows = db
    .select()
    .from(platformTokens)
    .where(where)
    .orderBy(asc(platformTokens.createdAt), asc(platformTokens.id))
    .limit(limit)
    .offset(offset)
    .all();
  const total = db.select({ n: count() }).from(platformTokens).where(where).get()?.n ?? 0;
  return { rows, total };
}

/** The token of a team, of an organization, or an organization's audit-trail token (each has at most one). */
export type TokenOwner = { kind: 'team'; teamId: string } | { kind: 'organization' | 'audit-trails'; organizationId: string };

function ownedBy(owner: TokenOwner) {
  return owner.kind === 'team'
    ? and(eq(platformTokens.kind, 'team'), eq(platformTokens.teamId, owner.teamId))
    : and(eq(platformTokens.kind, owner.kind), eq(platformTokens.organizationId, owner.organizationId));
}

export function findOwnedToken(db: DbOrTx, owner: TokenOwner): TokenRow | undefined {
  return db.select().from(platformTokens).where(ownedBy(owner)).get();
}

export function deleteOwnedTokens(db: DbOrTx, owner: TokenOwner): number {
  return db.delete(platformTokens).where(ownedBy(owner)).run().changes;
}
