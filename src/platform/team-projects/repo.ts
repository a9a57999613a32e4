import { and, asc, count, eq } from 'drizzle-orm';
import type { DbOrTx } from '../../store/store.js';
import { teamProjects } from '../../store/tables.js';

export type TeamProjectRow = typeof teamProjects.$inferSelect;
export type TeamProjectAccess = TeamProjectRow['access'];

export function findTeamProject(db: DbOrTx, id: string): TeamProjectRow | undefined {
  return db.select().from(teamProjects).where(eq(teamProjects.id, id)).get();
}

export function findTeamProjectFor(db: DbOrTx, teamId: string, projectId: string): TeamProjectRow | undefined {
  return db
    .select()
    .from(teamProjects)
    .where(and(eq(teamProjects.teamId, teamId), eq(teamProjects.projectId, projectId)))
    .get();
}

export function listTeamProjects(db: DbOrTx, projectId: string, offset: number, limit: number): { rows: TeamProjectRow[]; total: number } {
  const where = eq(teamProjects.projectId, projectId);
  const rows = db
    .select()
    .from(teamProjects)
    .where(where)
    .orderBy(asc(teamProjects.createdAt), asc(teamProjects.id))
    .limit(limit)
    .offset(offset)
    .all();
  const total = db.select({ n: count() }).from(teamProjects).where(where).get()?.n ?? 0;
  return { rows, total };
}

export function insertTeamProject(db: DbOrTx, row: TeamProjectRow): void {
  db.insert(teamProjects).values(row).run();
}

export function updateTeamProject(
  db: DbOrTx,
  id: string,
  changes: Pick<TeamProjectRow, 'access' | 'projectAccess' | 'workspaceAccess'>,
): void {
  db.update(teamProjects).set(changes).where(eq(teamProjects.id, id)).run();
}

export function deleteTeamProject(db: DbOrTx, id: string): void {
  db.delete(teamProjects).where(eq(teamProjects.id, id)).run();
}
