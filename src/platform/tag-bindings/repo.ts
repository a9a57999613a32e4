import { asc, eq } from 'drizzle-orm';
import { jsonList } from '../../store/sql-lists.js';
import { preparedSql } from '../../store/prepared.js';
import { rowReader } from '../row-reader.js';
import { sqliteOf, type DbOrTx } from '../../store/store.js';
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
// statements are compiled once per connection, take their ids as one JSON array, and have their
// rows mapped by row-reader.ts.
const bindingRows = rowReader(tagBindings);
const ofList = (column: 'workspace_id' | 'project_id') =>
  `SELECT ${bindingRows.columns('b')} FROM tag_bindings b WHERE b.${column} IN (SELECT value FROM json_each(?)) ORDER BY b.position ASC`;
const OF_WORKSPACES = ofList('workspace_id');
const OF_PROJECTS = ofList('project_id');

function rowsOfList(db: DbOrTx, text: string, ids: readonly string[]): TagBindingRow[] {
  const found = preparedSql(sqliteOf(db), text)
    .raw()
    .all(jsonList([...new Set(ids)])) as unknown[][];
  return found.map((values) => bindingRows.read(values));
}

// A workspace document's own and inherited bindings in one statement, without a JSON list to parse:
// a show asks for one workspace and its one project. Positions are unique per owner, so ordering
// the union by position orders each owner's part as `bindingsOf` does.
const OF_WORKSPACE_AND_PROJECT =
  `SELECT ${bindingRows.columns('b')} FROM tag_bindings b WHERE b.workspace_id = ? ` +
  `UNION ALL SELECT ${bindingRows.columns('b')} FROM tag_bindings b WHERE b.project_id = ? ORDER BY "position" ASC`;

/** One workspace's own bindings and its project's, each as `bindingsOfWorkspaces` and `bindingsOfProjects` give them. */
export function bindingsOfWorkspaceAndProject(
  db: DbOrTx,
  workspaceId: string,
  projectId: string,
): { own: Map<string, TagBindingRow[]>; inherited: Map<string, TagBindingRow[]> } {
  const own: TagBindingRow[] = [];
  const inherited: TagBindingRow[] = [];
  const found = preparedSql(sqliteOf(db), OF_WORKSPACE_AND_PROJECT).raw().all(workspaceId, projectId) as unknown[][];
  for (const values of found) {
    const row = bindingRows.read(values);
    (row.workspaceId === workspaceId ? own : inherited).push(row);
  }
  return { own: new Map([[workspaceId, own]]), inherited: new Map([[projectId, inherited]]) };
}

/** The bindings of many workspaces, grouped by workspace, in one query. */
export function bindingsOfWorkspaces(db: DbOrTx, workspaceIds: readonly string[]): Map<string, TagBindingRow[]> {
  const result = new Map<string, TagBindingRow[]>(workspaceIds.map((id) => [id, []]));
  if (workspaceIds.length === 0) return result;
  for (const row of rowsOfList(db, OF_WORKSPACES, workspaceIds)) result.get(row.workspaceId as string)?.push(row);
  return result;
}

/** The bindings of many projects, grouped by project, in one query. */
export function bindingsOfProjects(db: DbOrTx, projectIds: readonly string[]): Map<string, TagBindingRow[]> {
  const result = new Map<string, TagBindingRow[]>(projectIds.map((id) => [id, []]));
  if (projectIds.length === 0) return result;
  for (const row of rowsOfList(db, OF_PROJECTS, projectIds)) result.get(row.projectId as string)?.push(row);
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
