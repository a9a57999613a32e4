import { and, asc, count, eq, sql } from 'drizzle-orm';
import { jsonList } from '../../store/sql-lists.js';
import { preparedSql } from '../../store/prepared.js';
import { sqliteOf, type DbOrTx } from '../../store/store.js';
import { workspaceVariables } from '../../store/tables.js';
import { updateRows } from '../../store/update.js';
import { storedChanges, storedRow } from '../sensitive-values.js';

export type VariableRow = typeof workspaceVariables.$inferSelect;
export type VariableCategory = VariableRow['category'];

export function findVariable(db: DbOrTx, id: string): VariableRow | undefined {
  return db.select().from(workspaceVariables).where(eq(workspaceVariables.id, id)).get();
}

export function findVariableByKey(db: DbOrTx, workspaceId: string, category: VariableCategory, key: string): VariableRow | undefined {
  return db
    .select()
    .from(workspaceVariables)
    .where(and(eq(workspaceVariables.workspaceId, workspaceId), eq(workspaceVariables.category, category), eq(workspaceVariables.key, key)))
    .get();
}

/** Rows hold a sensitive value sealed (sensitive-values.ts); the caller's row stays in clear. */
export function insertVariable(db: DbOrTx, row: VariableRow): void {
  db.insert(workspaceVariables).values(storedRow(db, row)).run();
}

export function updateVariable(db: DbOrTx, id: string, changes: Partial<VariableRow>): void {
  updateRows(
    db,
    workspaceVariables,
    storedChanges(db, changes, () => findVariable(db, id)),
    eq(workspaceVariables.id, id),
  );
}

export function deleteVariable(db: DbOrTx, id: string): void {
  db.delete(workspaceVariables).where(eq(workspaceVariables.id, id)).run();
}

/** One page of a workspace's variables in creation order, and the total. */
export function listVariables(db: DbOrTx, workspaceId: string, offset: number, limit: number): { rows: VariableRow[]; total: number } {
  const where = eq(workspaceVariables.workspaceId, workspaceId);
  const rows = db
    .select()
    .from(workspaceVariables)
    .where(where)
    .orderBy(asc(workspaceVariables.createdAt), asc(sql`rowid`))
    .limit(limit)
    .offset(offset)
    .all();
  const total = db.select({ n: count() }).from(workspaceVariables).where(where).get()?.n ?? 0;
  return { rows, total };
}

// Every workspace document asks for its variables' ids (the `vars` relationship): compiled once per connection, read raw.
const VARIABLE_IDS_OF_LIST =
  'SELECT id, workspace_id FROM workspace_variables WHERE workspace_id IN (SELECT value FROM json_each(?)) ' +
  'ORDER BY created_at ASC, rowid ASC';

// A show's one workspace: the same rows without a JSON list to parse.
const VARIABLE_IDS_OF_ONE = 'SELECT id, workspace_id FROM workspace_variables WHERE workspace_id = ? ORDER BY created_at ASC, rowid ASC';

/** Ids of each workspace's variables in creation order, for a page of workspaces in one query. */
export function variableIdsOf(db: DbOrTx, workspaceIds: readonly string[]): Map<string, string[]> {
  const result = new Map<string, string[]>(workspaceIds.map((id) => [id, []]));
  if (workspaceIds.length === 0) return result;
  const sqlite = sqliteOf(db);
  const rows = (
    workspaceIds.length === 1
      ? preparedSql(sqlite, VARIABLE_IDS_OF_ONE).raw().all(workspaceIds[0])
      : preparedSql(sqlite, VARIABLE_IDS_OF_LIST).raw().all(jsonList(workspaceIds))
  ) as [string, string][];
  for (const [id, workspaceId] of rows) result.get(workspaceId)?.push(id);
  return result;
}
