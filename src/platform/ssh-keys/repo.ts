import { asc, count, eq } from 'drizzle-orm';
import { storeAtRest } from '../../store/entry-barrier.js';
import { sqliteOf, type DbOrTx } from '../../store/store.js';
import { sshKeys } from '../../store/tables.js';
import { updateRows } from '../../store/update.js';

export type SshKeyRow = typeof sshKeys.$inferSelect;

export function findSshKey(db: DbOrTx, id: string): SshKeyRow | undefined {
  return db.select().from(sshKeys).where(eq(sshKeys.id, id)).get();
}

export function listSshKeys(db: DbOrTx, organizationId: string, offset: number, limit: number): { rows: SshKeyRow[]; total: number } {
  const where = eq(sshKeys.organizationId, organizationId);
  const rows = db.select().from(sshKeys).where(where).orderBy(asc(sshKeys.name), asc(sshKeys.id)).limit(limit).offset(offset).all();
  const total = db.select({ n: count() }).from(sshKeys).where(where).get()?.n ?? 0;
  return { rows, total };
}

/**
 * A key's `value` (a private key) is sealed at rest as it is written. Nothing reads it back: it is
 * write-only on the wire and no run uses it, so rows carry the sealed form.
 */
const sealed = (db: DbOrTx, value: string) => storeAtRest(sqliteOf(db)).sealMarked(value);

export function insertSshKey(db: DbOrTx, row: SshKeyRow): void {
  db.insert(sshKeys)
    .values({ ...row, value: sealed(db, row.value) })
    .run();
}

/** `value`, when given, is the new key in clear. */
export function updateSshKey(db: DbOrTx, id: string, changes: Partial<Pick<SshKeyRow, 'name' | 'value' | 'updatedAt'>>): void {
  const stored = changes.value === undefined ? changes : { ...changes, value: sealed(db, changes.value) };
  updateRows(db, sshKeys, stored, eq(sshKeys.id, id));
}

/** Workspaces using the key lose it (the foreign key sets theirs to null). */
export function deleteSshKey(db: DbOrTx, id: string): void {
  db.delete(sshKeys).where(eq(sshKeys.id, id)).run();
}
