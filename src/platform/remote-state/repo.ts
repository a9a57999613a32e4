import { and, eq, ne, type SQL } from 'drizzle-orm';
import { inList } from '../../store/sql-lists.js';
import type { DbOrTx } from '../../store/store.js';
import { remoteStateConsumers, workspaces } from '../../store/tables.js';
import { inSlices } from '../sql-slices.js';

/** Which workspaces may read `workspaceId`'s state: every other one when global, else the approved ones. */
export function consumerCondition(db: DbOrTx, workspaceId: string, global: boolean): SQL {
  if (global) return ne(workspaces.id, workspaceId);
  const approved = db
    .select({ id: remoteStateConsumers.consumerId })
    .from(remoteStateConsumers)
    .where(eq(remoteStateConsumers.workspaceId, workspaceId));
  return inList(workspaces.id, approved);
}

export function addConsumers(db: DbOrTx, workspaceId: string, consumerIds: readonly string[]): void {
  for (const slice of inSlices(consumerIds)) {
    db.insert(remoteStateConsumers)
      .values(slice.map((consumerId) => ({ workspaceId, consumerId })))
      .onConflictDoNothing()
      .run();
  }
}

export function removeConsumers(db: DbOrTx, workspaceId: string, consumerIds: readonly string[]): void {
  for (const slice of inSlices(consumerIds)) {
    db.delete(remoteStateConsumers)
      .where(and(eq(remoteStateConsumers.workspaceId, workspaceId), inList(remoteStateConsumers.consumerId, slice)))
      .run();
  }
}

export function clearConsumers(db: DbOrTx, workspaceId: string): void {
  db.delete(remoteStateConsumers).where(eq(remoteStateConsumers.workspaceId, workspaceId)).run();
}
