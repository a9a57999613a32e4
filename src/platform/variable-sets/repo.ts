import { and, asc, eq } from 'drizzle-orm';
import { inList } from '../../store/sql-lists.js';
import type { DbOrTx } from '../../store/store.js';
import { variableSetProjects, variableSets, variableSetVariables, variableSetWorkspaces } from '../../store/tables.js';
import { updateRows } from '../../store/update.js';
import { storedChanges, storedRow } from '../sensitive-values.js';
import type { VariableSetRow } from './precedence.js';

export type SetVariableRow = typeof variableSetVariables.$inferSelect;

export function findSet(db: DbOrTx, id: string): VariableSetRow | undefined {
  return db.select().from(variableSets).where(eq(variableSets.id, id)).get();
}

export function findSetByName(db: DbOrTx, organizationId: string, name: string): VariableSetRow | undefined {
  return db
    .select()
    .from(variableSets)
    .where(and(eq(variableSets.organizationId, organizationId), eq(variableSets.name, name)))
    .get();
}

export function setsOf(db: DbOrTx, organizationId: string): VariableSetRow[] {
  return db.select().from(variableSets).where(eq(variableSets.organizationId, organizationId)).orderBy(asc(variableSets.name)).all();
}

export function insertSet(db: DbOrTx, row: VariableSetRow): void {
  db.insert(variableSets).values(row).run();
}

export function updateSet(db: DbOrTx, id: string, changes: Partial<VariableSetRow>): void {
  updateRows(db, variableSets, changes, eq(variableSets.id, id));
}

export function deleteSet(db: DbOrTx, id: string): void {
  db.delete(variableSets).where(eq(variableSets.id, id)).run();
}

/** Workspace ids, project ids and variables of each set, in one query each. */
export function membersOf(db: DbOrTx, setIds: readonly string[]) {
  const ids = [...setIds];
  const group = <T extends { setId: string }>(rows: T[]) => {
    const result = new Map<string, T[]>(ids.map((id) => [id, []]));
    for (const row of rows) result.get(row.setId)?.push(row);
    return result;
  };
  if (ids.length === 0) return { workspaces: group([]), projects: group([]), variables: group<SetVariableRow>([]) };
  return {
    workspaces: group(db.select().from(variableSetWorkspaces).where(inList(variableSetWorkspaces.setId, ids)).all()),
    projects: group(db.select().from(variableSetProjects).where(inList(variableSetProjects.setId, ids)).all()),
    variables: group(
      db
        .select()
        .from(variableSetVariables)
        .where(inList(variableSetVariables.setId, ids))
        .orderBy(asc(variableSetVariables.createdAt))
        .all(),
    ),
  };
}

export function addWorkspaces(db: DbOrTx, setId: string, workspaceIds: readonly string[]): void {
  if (workspaceIds.length === 0) return;
  db.insert(variableSetWorkspaces)
    .values(workspaceIds.map((workspaceId) => ({ setId, workspaceId })))
    .onConflictDoNothing()
    .run();
}

export function removeWorkspaces(db: DbOrTx, setId: string, workspaceIds: readonly string[]): void {
  db.delete(variableSetWorkspaces)
    .where(and(eq(variableSetWorkspaces.setId, setId), inList(variableSetWorkspaces.workspaceId, [...workspaceIds])))
    .run();
}

export function addProjects(db: DbOrTx, setId: string, projectIds: readonly string[]): void {
  if (projectIds.length === 0) return;
  db.insert(variableSetProjects)
    .values(projectIds.map((projectId) => ({ setId, projectId })))
    .onConflictDoNothing()
    .run();
}

export function removeProjects(db: DbOrTx, setId: string, projectIds: readonly string[]): void {
  db.delete(variableSetProjects)
    .where(and(eq(variableSetProjects.setId, setId), inList(variableSetProjects.projectId, [...projectIds])))
    .run();
}

export function findSetVariable(db: DbOrTx, id: string): SetVariableRow | undefined {
  return db.select().from(variableSetVariables).where(eq(variableSetVariables.id, id)).get();
}

/** Rows hold a sensitive value sealed (sensitive-values.ts); the caller's row stays in clear. */
export function insertSetVariable(db: DbOrTx, row: SetVariableRow): void {
  db.insert(variableSetVariables).values(storedRow(db, row)).run();
}

export function updateSetVariable(db: DbOrTx, id: string, changes: Partial<SetVariableRow>): void {
  updateRows(
    db,
    variableSetVariables,
    storedChanges(db, changes, () => findSetVariable(db, id)),
    eq(variableSetVariables.id, id),
  );
}

export function deleteSetVariable(db: DbOrTx, id: string): void {
  db.delete(variableSetVariables).where(eq(variableSetVariables.id, id)).run();
}
