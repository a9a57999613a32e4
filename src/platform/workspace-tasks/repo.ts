import { and, asc, count, eq } from 'drizzle-orm';
import type { DbOrTx } from '../../store/store.js';
import { workspaceTasks } from '../../store/tables.js';
import type { WorkspaceTaskRow } from '../run-tasks/repo.js';
import { updateRows } from '../../store/update.js';

export function findAttachment(db: DbOrTx, workspaceId: string, taskId: string): WorkspaceTaskRow | undefined {
  return db
    .select()
    .from(workspaceTasks)
    .where(and(eq(workspaceTasks.workspaceId, workspaceId), eq(workspaceTasks.taskId, taskId)))
    .get();
}

export function listWorkspaceTasks(
  db: DbOrTx,
  workspaceId: string,
  offset: number,
  limit: number,
): { rows: WorkspaceTaskRow[]; total: number } {
  const where = eq(workspaceTasks.workspaceId, workspaceId);
  const rows = db
    .select()
    .from(workspaceTasks)
    .where(where)
    .orderBy(asc(workspaceTasks.createdAt), asc(workspaceTasks.id))
    .limit(limit)
    .offset(offset)
    .all();
  const total = db.select({ n: count() }).from(workspaceTasks).where(where).get()?.n ?? 0;
  return { rows, total };
}

export function insertWorkspaceTask(db: DbOrTx, row: WorkspaceTaskRow): void {
  db.insert(workspaceTasks).values(row).run();
}

export function updateWorkspaceTask(db: DbOrTx, id: string, changes: Partial<WorkspaceTaskRow>): void {
  updateRows(db, workspaceTasks, changes, eq(workspaceTasks.id, id));
}

export function deleteWorkspaceTask(db: DbOrTx, id: string): void {
  db.delete(workspaceTasks).where(eq(workspaceTasks.id, id)).run();
}
