import { and, asc, count, eq, inArray } from 'drizzle-orm';
import type { DbOrTx } from '../../store/store.js';
import { runTasks, workspaceTasks } from '../../store/tables.js';

export type RunTaskRow = typeof runTasks.$inferSelect;
export type WorkspaceTaskRow = typeof workspaceTasks.$inferSelect;

export function findRunTask(db: DbOrTx, id: string): RunTaskRow | undefined {
  return db.select().from(runTasks).where(eq(runTasks.id, id)).get();
}

export function findRunTaskByName(db: DbOrTx, organizationId: string, name: string): RunTaskRow | undefined {
  return db.select().from(runTasks).where(and(eq(runTasks.organizationId, organizationId), eq(runTasks.name, name))).get();
}

export function listRunTasks(db: DbOrTx, organizationId: string, offset: number, limit: number): { rows: RunTaskRow[]; total: number } {
  const where = eq(runTasks.organizationId, organizationId);
  const rows = db.select().from(runTasks).where(where).orderBy(asc(runTasks.createdAt), asc(runTasks.id)).limit(limit).offset(offset).all();
  const total = db.select({ n: count() }).from(runTasks).where(where).get()?.n ?? 0;
  return { rows, total };
}

export function insertRunTask(db: DbOrTx, row: RunTaskRow): void {
  db.insert(runTasks).values(row).run();
}

export function updateRunTask(db: DbOrTx, id: string, changes: Partial<RunTaskRow>): void {
  db.update(runTasks).set(changes).where(eq(runTasks.id, id)).run();
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
    .where(inArray(workspaceTasks.taskId, [...taskIds]))
    .orderBy(asc(workspaceTasks.createdAt), asc(workspaceTasks.id))
    .all();
  for (const row of rows) result.get(row.taskId)?.push(row);
  return result;
}
