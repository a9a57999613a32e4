import { and, count, desc, eq, getTableColumns, notInArray } from 'drizzle-orm';
import { inList } from '../../store/sql-lists.js';
import type { DbOrTx } from '../../store/store.js';
import { configurationVersions, runs } from '../../store/tables.js';
import { updateRows } from '../../store/update.js';

export type ConfigurationVersionRow = typeof configurationVersions.$inferSelect;
/** A configuration version without its archive (lists and renders never need the bytes). */
export type ConfigurationVersionMeta = Omit<ConfigurationVersionRow, 'archive'>;

const { archive: _archive, ...metaColumns } = getTableColumns(configurationVersions);
const meta = (db: DbOrTx) => db.select(metaColumns).from(configurationVersions).$dynamic();

export function findConfigurationVersion(db: DbOrTx, id: string): ConfigurationVersionMeta | undefined {
  return meta(db).where(eq(configurationVersions.id, id)).get();
}

export function findConfigurationVersions(db: DbOrTx, ids: readonly string[]): ConfigurationVersionMeta[] {
  if (ids.length === 0) return [];
  return meta(db)
    .where(inList(configurationVersions.id, [...ids]))
    .all();
}

export function archiveOf(db: DbOrTx, id: string): Buffer | null {
  const row = db
    .select({ archive: configurationVersions.archive })
    .from(configurationVersions)
    .where(eq(configurationVersions.id, id))
    .get();
  return row?.archive ?? null;
}

export function insertConfigurationVersion(db: DbOrTx, row: ConfigurationVersionRow): void {
  db.insert(configurationVersions).values(row).run();
}

export function updateConfigurationVersion(db: DbOrTx, id: string, changes: Partial<ConfigurationVersionRow>): void {
  updateRows(db, configurationVersions, changes, eq(configurationVersions.id, id));
}

export function listConfigurationVersions(db: DbOrTx, workspaceId: string, offset: number, limit: number) {
  const where = eq(configurationVersions.workspaceId, workspaceId);
  const rows = meta(db)
    .where(where)
    .orderBy(desc(configurationVersions.createdAt), desc(configurationVersions.id))
    .limit(limit)
    .offset(offset)
    .all();
  const total = db.select({ n: count() }).from(configurationVersions).where(where).get()?.n ?? 0;
  return { rows, total };
}

/**
 * The workspace's versions that cannot be archived: its newest uploaded non-speculative version
 * (what the next run uses) and every version an unfinished run still reads.
 */
export function currentVersionIds(db: DbOrTx, workspaceId: string, finalRunStatuses: readonly string[]): Set<string> {
  const newest = db
    .select({ id: configurationVersions.id })
    .from(configurationVersions)
    .where(
      and(
        eq(configurationVersions.workspaceId, workspaceId),
        eq(configurationVersions.status, 'uploaded'),
        eq(configurationVersions.speculative, false),
      ),
    )
    .orderBy(desc(configurationVersions.createdAt), desc(configurationVersions.id))
    .limit(1)
    .all();
  const inUse = db
    .select({ id: runs.configurationVersionId })
    .from(runs)
    .where(and(eq(runs.workspaceId, workspaceId), notInArray(runs.status, [...finalRunStatuses])))
    .all();
  return new Set([...newest, ...inUse].map((row) => row.id));
}
