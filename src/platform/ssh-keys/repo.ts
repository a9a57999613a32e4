import { asc, count, eq } from 'drizzle-orm';
import type { DbOrTx } from '../../store/store.js';
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

export function insertSshKey(db: DbOrTx, row: SshKeyRow): void {
  db.insert(sshKeys).values(row).run();
}

export function updateSshKey(db: DbOrTx, id: string, changes: Partial<Pick<SshKeyRow, 'name' | 'value' | 'updatedAt'>>): void {
  updateRows(db, sshKeys, changes, eq(sshKeys.id, id));
}

/** Workspaces using the key lose it (the foreign key sets theirs to null). */
export function deleteSshKey(db: DbOrTx, id: string): void {
  db.delete(sshKeys).where(eq(sshKeys.id, id)).run();
}
