import { count, desc, eq, getTableColumns, max, sql } from 'drizzle-orm';
import { inList } from '../../store/sql-lists.js';
import { prepared } from '../../store/prepared.js';
import { insertRows } from '../../store/sql-lists.js';
import type { DbOrTx } from '../../store/store.js';
import { stateVersionOutputs, stateVersions } from '../../store/tables.js';
import { updateRows } from '../../store/update.js';

export type StateVersionRow = typeof stateVersions.$inferSelect;
export type StateVersionOutputRow = typeof stateVersionOutputs.$inferSelect;
/** A version without its (large) state blobs: what every read but a download needs. */
export type StateVersionMeta = Omit<StateVersionRow, 'state' | 'jsonState'> & { hasJsonState: boolean };

const { state: _state, jsonState: _jsonState, ...metaColumns } = getTableColumns(stateVersions);
const META = { ...metaColumns, hasJsonState: sql<boolean>`${stateVersions.jsonState} IS NOT NULL`.mapWith(Boolean) };

const byId = prepared((db) =>
  db
    .select(META)
    .from(stateVersions)
    .where(eq(stateVersions.id, sql.placeholder('id')))
    .prepare(),
);

export function findStateVersion(db: DbOrTx, id: string): StateVersionMeta | undefined {
  return byId(db).get({ id });
}

export function findStateVersions(db: DbOrTx, ids: readonly string[]): StateVersionMeta[] {
  return ids.length === 0
    ? []
    : db
        .select(META)
        .from(stateVersions)
        .where(inList(stateVersions.id, [...new Set(ids)]))
        .all();
}

/** The raw state or the JSON state of a version, for downloads and rollback. */
export function stateData(db: DbOrTx, id: string, kind: 'state' | 'json'): Buffer | null {
  const column = kind === 'state' ? stateVersions.state : stateVersions.jsonState;
  return db.select({ data: column }).from(stateVersions).where(eq(stateVersions.id, id)).get()?.data ?? null;
}

export function insertStateVersion(db: DbOrTx, row: StateVersionRow): void {
  db.insert(stateVersions).values(row).run();
}

export function updateStateVersion(db: DbOrTx, id: string, changes: Partial<StateVersionRow>): void {
  updateRows(db, stateVersions, changes, eq(stateVersions.id, id));
}

/** The next creation sequence number of a workspace's state versions. */
export function nextSequence(db: DbOrTx, workspaceId: string): number {
  return (
    (db
      .select({ n: max(stateVersions.sequence) })
      .from(stateVersions)
      .where(eq(stateVersions.workspaceId, workspaceId))
      .get()?.n ?? 0) + 1
  );
}

/** Whether the workspace's newest version still waits for its upload (the lock then stays). */
export function latestIsPending(db: DbOrTx, workspaceId: string): boolean {
  const latest = db
    .select({ status: stateVersions.status })
    .from(stateVersions)
    .where(eq(stateVersions.workspaceId, workspaceId))
    .orderBy(desc(stateVersions.sequence))
    .limit(1)
    .get();
  return latest?.status === 'pending';
}

/** One page of a workspace's versions, newest first, and the total. */
export function listStateVersions(
  db: DbOrTx,
  workspaceId: string,
  offset: number,
  limit: number,
): { rows: StateVersionMeta[]; total: number } {
  const where = eq(stateVersions.workspaceId, workspaceId);
  const rows = db.select(META).from(stateVersions).where(where).orderBy(desc(stateVersions.sequence)).limit(limit).offset(offset).all();
  const total = db.select({ n: count() }).from(stateVersions).where(where).get()?.n ?? 0;
  return { rows, total };
}

export function insertOutputs(db: DbOrTx, rows: StateVersionOutputRow[]): void {
  insertRows(db, stateVersionOutputs, rows);
}

export function findOutput(db: DbOrTx, id: string): StateVersionOutputRow | undefined {
  return db.select().from(stateVersionOutputs).where(eq(stateVersionOutputs.id, id)).get();
}

/** The outputs of each of `stateVersionIds`, in state order (one query for a page). */
export function outputsOf(db: DbOrTx, stateVersionIds: readonly string[]): Map<string, StateVersionOutputRow[]> {
  const result = new Map<string, StateVersionOutputRow[]>(stateVersionIds.map((id) => [id, []]));
  if (stateVersionIds.length === 0) return result;
  const rows = db
    .select()
    .from(stateVersionOutputs)
    .where(inList(stateVersionOutputs.stateVersionId, [...new Set(stateVersionIds)]))
    .orderBy(stateVersionOutputs.stateVersionId, stateVersionOutputs.position)
    .all();
  for (const row of rows) result.get(row.stateVersionId)?.push(row);
  return result;
}
