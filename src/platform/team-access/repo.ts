import { and, asc, count, eq } from 'drizzle-orm';
import type { DbOrTx } from '../../store/store.js';
import { teamWorkspaces } from '../../store/tables.js';

export type TeamWorkspaceRow = typeof teamWorkspaces.$inferSelect;

export function findTeamWorkspace(db: DbOrTx, id: string): TeamWorkspaceRow | undefined {
  return db.select().from(teamWorkspaces).where(eq(teamWorkspaces.id, id)).get();
}

export function findTeamWorkspaceFor(db: DbOrTx, teamId: string, workspaceId: string): TeamWorkspaceRow | undefined {
  return db
    .select()
    .from(teamWorkspaces)
    .where(and(eq(teamWorkspaces.teamId, teamId), eq(teamWorkspaces.workspaceId, workspaceId)))
    .get();
}

export function listTeamWorkspaces(
  db: DbOrTx,
  workspaceId: string,
  offset: number,
  limit: number,
): { rows: TeamWorkspaceRow[]; total: number } {
  const where = eq(teamWorkspaces.workspaceId, workspaceId);
  const rows = db
    .select()
    .from(teamWorkspaces)
    .where(where)
    .orderBy(asc(teamWorkspaces.createdAt), asc(teamWorkspaces.id))
    .limit(limit)
    .offset(offset)
    .all();
  const total = db.select({ n: count() }).from(teamWorkspaces).where(where).get()?.n ?? 0;
  return { rows, total };
}

export function insertTeamWorkspace(db: DbOrTx, row: TeamWorkspaceRow): void {
  db.insert(teamWorkspaces).values(row).run();
}

export function updateTeamWorkspace(
  db: DbOrTx,
  id: string,
  access: TeamWorkspaceRow['access'],
  customPermissions: TeamWorkspaceRow['customPermissions'],
): void {
  db.update(teamWorkspaces).set({ access, customPermissions }).where(eq(teamWorkspaces.id, id)).run();
}

export function deleteTeamWorkspace(db: DbOrTx, id: string): void {
  db.delete(teamWorkspaces).where(eq(teamWorkspaces.id, id)).run();
}
