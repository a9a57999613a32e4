import { count, eq } from 'drizzle-orm';
import { inList } from '../../store/sql-lists.js';
import type { DbOrTx } from '../../store/store.js';
import { toolVersions, workspaces } from '../../store/tables.js';

export type ToolVersionRow = typeof toolVersions.$inferSelect;

export function storedToolVersions(db: DbOrTx): ToolVersionRow[] {
  return db.select().from(toolVersions).all();
}

export function findStoredToolVersion(db: DbOrTx, id: string): ToolVersionRow | undefined {
  return db.select().from(toolVersions).where(eq(toolVersions.id, id)).get();
}

/** Inserts or replaces the row (an override of a shipped release keeps the release's id). */
export function saveToolVersion(db: DbOrTx, row: ToolVersionRow): void {
  db.insert(toolVersions)
    .values(row)
    .onConflictDoUpdate({ target: toolVersions.id, set: { ...row } })
    .run();
}

export function deleteStoredToolVersion(db: DbOrTx, id: string): void {
  db.delete(toolVersions).where(eq(toolVersions.id, id)).run();
}

/** How many workspaces pin each of these exact versions, in one grouped query. */
export function usageOf(db: DbOrTx, versions: readonly string[]): Map<string, number> {
  const result = new Map<string, number>();
  if (versions.length === 0) return result;
  const rows = db
    .select({ version: workspaces.toolVersion, n: count() })
    .from(workspaces)
    .where(inList(workspaces.toolVersion, [...versions]))
    .groupBy(workspaces.toolVersion)
    .all();
  for (const row of rows) result.set(row.version, row.n);
  return result;
}
