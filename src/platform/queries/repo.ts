import { count, desc, eq, notInArray } from 'drizzle-orm';
import type { DbOrTx } from '../../store/store.js';
import { queryRuns } from '../../store/tables.js';
import { updateRows } from '../../store/update.js';

export type QueryRunRow = typeof queryRuns.$inferSelect;

export const findQueryRun = (db: DbOrTx, id: string): QueryRunRow | undefined =>
  db.select().from(queryRuns).where(eq(queryRuns.id, id)).get();

export function insertQueryRun(db: DbOrTx, row: QueryRunRow): void {
  db.insert(queryRuns).values(row).run();
}

export function updateQueryRun(db: DbOrTx, id: string, changes: Partial<QueryRunRow>): void {
  updateRows(db, queryRuns, changes, eq(queryRuns.id, id));
}

/** A workspace's query runs, newest first. */
export function listQueryRuns(db: DbOrTx, workspaceId: string, offset: number, limit: number): { rows: QueryRunRow[]; total: number } {
  const where = eq(queryRuns.workspaceId, workspaceId);
  const rows = db
    .select()
    .from(queryRuns)
    .where(where)
    .orderBy(desc(queryRuns.createdAt), desc(queryRuns.id))
    .limit(limit)
    .offset(offset)
    .all();
  const total = db.select({ n: count() }).from(queryRuns).where(where).get()?.n ?? 0;
  return { rows, total };
}

/** Query runs not yet ended, everywhere (a restart errors them). */
export function unfinishedQueryRuns(db: DbOrTx): QueryRunRow[] {
  return db
    .select()
    .from(queryRuns)
    .where(notInArray(queryRuns.status, ['finished', 'canceled', 'errored']))
    .all();
}
