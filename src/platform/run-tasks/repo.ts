import { and, asc, desc, eq, sql } from 'drizzle-orm';
import { inList } from '../../store/sql-lists.js';
import { sqliteOf, type DbOrTx } from '../../store/store.js';
import { runTasks, workspaceTasks } from '../../store/tables.js';
import { anchoredPage, anchorsOf } from '../list-anchors.js';
import { listCountAndVersion } from '../list-counts.js';
import { updateRows } from '../../store/update.js';

export type RunTaskRow = typeof runTasks.$inferSelect;
export type WorkspaceTaskRow = typeof workspaceTasks.$inferSelect;

export function findRunTask(db: DbOrTx, id: string): RunTaskRow | undefined {
  return db.select().from(runTasks).where(eq(runTasks.id, id)).get();
}

export function findRunTaskByName(db: DbOrTx, organizationId: string, name: string): RunTaskRow | undefined {
  return db
    .select()
    .from(runTasks)
    .where(and(eq(runTasks.organizationId, organizationId), eq(runTasks.name, name)))
    .get();
}

export function listRunTasks(db: DbOrTx, organizationId: string, offset: number, limit: number): { rows: RunTaskRow[]; total: number } {
  const counts = listCountAndVersion(db, 'run-tasks', organizationId);
  const list = { key: `run-tasks\u0000${organizationId}\u0000${limit}`, ...counts };
  const rows = anchoredPage(
    anchorsOf(sqliteOf(db)),
    list,
    { offset, size: limit },
    (row: RunTaskRow) => [row.createdAt.getTime(), row.id],
    (window) => {
      const [createdAt, id] = window.from ?? [];
      // A row-value comparison over the index run_tasks_org_created (organization, created_at, id).
      const from = window.from ? sql`(${runTasks.createdAt}, ${runTasks.id}) >= (${createdAt}, ${id})` : undefined;
      const order = window.backwards ? [desc(runTasks.createdAt), desc(runTasks.id)] : [asc(runTasks.createdAt), asc(runTasks.id)];
      return db
        .select()
        .from(runTasks)
        .where(and(eq(runTasks.organizationId, organizationId), from))
        .orderBy(...order)
        .limit(window.limit)
        .offset(window.offset)
        .all();
    },
  );
  return { rows, total: counts.total };
}

export function insertRunTask(db: DbOrTx, row: RunTaskRow): void {
  db.insert(runTasks).values(row).run();
}

/** At most a slice of rows (see sql-slices.ts). */
export function insertRunTasks(db: DbOrTx, rows: RunTaskRow[]): void {
  db.insert(runTasks).values(rows).run();
}

export function updateRunTask(db: DbOrTx, id: string, changes: Partial<RunTaskRow>): void {
  updateRows(db, runTasks, changes, eq(runTasks.id, id));
}

/** Its workspace attachments go with it (foreign key cascade). */
export function deleteRunTask(db: DbOrTx, id: string): void {
  db.delete(runTasks).where(eq(runTasks.id, id)).run();
}

/** The attachments of each task, oldest first, in one query. */
export function attachmentsOfTasks(db: DbOrTx, taskIds: readonly string[]): Map<string, WorkspaceTaskRow[]> {
  const result = new Map<string, WorkspaceTaskRow[]>(taskIds.map((id) => [id, []]));
  if (taskIds.length === 0) return result;
  const rows = db
    .select()
    .from(workspaceTasks)
    .where(inList(workspaceTasks.taskId, [...taskIds]))
    .orderBy(asc(workspaceTasks.createdAt), asc(workspaceTasks.id))
    .all();
  for (const row of rows) result.get(row.taskId)?.push(row);
  return result;
}

/** A task's attachment to a workspace (the workspace-tasks domain writes them; delivery reads them too). */
export function findWorkspaceTask(db: DbOrTx, id: string): WorkspaceTaskRow | undefined {
  return db.select().from(workspaceTasks).where(eq(workspaceTasks.id, id)).get();
}
