import { and, asc, eq, sql } from 'drizzle-orm';
import { inJsonList, jsonList } from '../../store/sql-lists.js';
import { prepared } from '../../store/prepared.js';
import type { DbOrTx } from '../../store/store.js';
import { tagBindings } from '../../store/tables.js';

export type TagBindingRow = typeof tagBindings.$inferSelect;

/** Whose bindings: a workspace's or a project's (always within one organization). */
export type BindingOwner = { organizationId: string } & ({ workspaceId: string } | { projectId: string });

const ownerCondition = (owner: BindingOwner) =>
  'workspaceId' in owner ? eq(tagBindings.workspaceId, owner.workspaceId) : eq(tagBindings.projectId, owner.projectId);

/** One owner's bindings in the order their keys were first given. */
export function bindingsOf(db: DbOrTx, owner: BindingOwner): TagBindingRow[] {
  return db.select().from(tagBindings).where(ownerCondition(owner)).orderBy(asc(tagBindings.position)).all();
}

// Every workspace and project document asks for these (their tag-binding relationships), so the
// statements are compiled once and take their ids as one JSON array.
const bindingsOfWorkspaceList = prepared((db) =>
  db.select().from(tagBindings).where(inJsonList(tagBindings.workspaceId, 'ids')).orderBy(asc(tagBindings.position)).prepare(),
);
const bindingsOfProjectList = prepared((db) =>
  db.select().from(tagBindings).where(inJsonList(tagBindings.projectId, 'ids')).orderBy(asc(tagBindings.position)).prepare(),
);

/** The bindings of many workspaces, grouped by workspace, in one query. */
export function bindingsOfWorkspaces(db: DbOrTx, workspaceIds: readonly string[]): Map<string, TagBindingRow[]> {
  const result = new Map<string, TagBindingRow[]>(workspaceIds.map((id) => [id, []]));
  if (workspaceIds.length === 0) return result;
  for (const row of bindingsOfWorkspaceList(db).all({ ids: jsonList([...new Set(workspaceIds)]) })) {
    result.get(row.workspaceId as string)?.push(row);
  }
  return result;
}

/** The bindings of many projects, grouped by project, in one query. */
export function bindingsOfProjects(db: DbOrTx, projectIds: readonly string[]): Map<string, TagBindingRow[]> {
  const result = new Map<string, TagBindingRow[]>(projectIds.map((id) => [id, []]));
  if (projectIds.length === 0) return result;
  for (const row of bindingsOfProjectList(db).all({ ids: jsonList([...new Set(projectIds)]) })) {
    result.get(row.projectId as string)?.push(row);
  }
  return result;
}

export function insertBinding(db: DbOrTx, row: TagBindingRow): void {
  db.insert(tagBindings).values(row).run();
}

export function updateBindingValue(db: DbOrTx, id: string, value: string): void {
  db.update(tagBindings).set({ value }).where(eq(tagBindings.id, id)).run();
}

export function deleteBindingsOf(db: DbOrTx, owner: BindingOwner): void {
  db.delete(tagBindings).where(ownerCondition(owner)).run();
}

/** Whether the project carries a binding with `key` (and `value`, when given). */
export function projectHasBinding(db: DbOrTx, projectId: string, key: string, value: string | undefined): boolean {
  const conditions = [eq(tagBindings.projectId, projectId), eq(tagBindings.key, key)];
  if (value !== undefined) conditions.push(eq(tagBindings.value, value));
  return (
    db
      .select({ one: sql`1` })
      .from(tagBindings)
      .where(and(...conditions))
      .get() !== undefined
  );
}
