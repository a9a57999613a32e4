import { and, asc, count, eq } from 'drizzle-orm';
import type { DbOrTx } from '../../store/store.js';
import { reservedTagKeys } from '../../store/tables.js';

export type ReservedTagKeyRow = typeof reservedTagKeys.$inferSelect;

export function listKeys(db: DbOrTx, organizationId: string, offset: number, limit: number): { rows: ReservedTagKeyRow[]; total: number } {
  const where = eq(reservedTagKeys.organizationId, organizationId);
  const rows = db
    .select()
    .from(reservedTagKeys)
    .where(where)
    .orderBy(asc(reservedTagKeys.createdAt), asc(reservedTagKeys.id))
    .limit(limit)
    .offset(offset)
    .all();
  return { rows, total: db.select({ n: count() }).from(reservedTagKeys).where(where).get()?.n ?? 0 };
}

export function findKey(db: DbOrTx, id: string): ReservedTagKeyRow | undefined {
  return db.select().from(reservedTagKeys).where(eq(reservedTagKeys.id, id)).get();
}

export function findKeyNamed(db: DbOrTx, organizationId: string, key: string): ReservedTagKeyRow | undefined {
  return db
    .select()
    .from(reservedTagKeys)
    .where(and(eq(reservedTagKeys.organizationId, organizationId), eq(reservedTagKeys.key, key)))
    .get();
}

export function insertKey(db: DbOrTx, row: ReservedTagKeyRow): void {
  db.insert(reservedTagKeys).values(row).run();
}

export function updateKey(
  db: DbOrTx,
  id: string,
  changes: Partial<Pick<ReservedTagKeyRow, 'key' | 'disableOverrides' | 'updatedAt'>>,
): void {
  db.update(reservedTagKeys).set(changes).where(eq(reservedTagKeys.id, id)).run();
}

export function deleteKey(db: DbOrTx, id: string): void {
  db.delete(reservedTagKeys).where(eq(reservedTagKeys.id, id)).run();
}
