import { and, asc, count, eq, notExists, notInArray, sql, type SQL } from 'drizzle-orm';
import { inList, jsonList } from '../../store/sql-lists.js';
import { prepared, preparedSql } from '../../store/prepared.js';
import { rowReader } from '../row-reader.js';
import { sqliteOf, type DbOrTx } from '../../store/store.js';
import { tags, workspaceTags } from '../../store/tables.js';
import { inSlices } from '../sql-slices.js';
import { containsIgnoringCase } from '../users/repo.js';

export type TagRow = typeof tags.$inferSelect;
export type CountedTag = TagRow & { instanceCount: number };

export function findTag(db: DbOrTx, id: string): TagRow | undefined {
  return db.select().from(tags).where(eq(tags.id, id)).get();
}

// A tags body may name tens of thousands of tags: the three statements each one runs are built
// once per handle, not once per tag (building a drizzle query costs more than running it).
const tagByName = prepared((db) =>
  db
    .select()
    .from(tags)
    .where(and(eq(tags.organizationId, sql.placeholder('organizationId')), eq(tags.name, sql.placeholder('name'))))
    .prepare(),
);
const tagInsert = prepared((db) =>
  db
    .insert(tags)
    .values({
      id: sql.placeholder('id'),
      organizationId: sql.placeholder('organizationId'),
      name: sql.placeholder('name'),
      createdAt: sql.placeholder('createdAt'),
    })
    .prepare(),
);
const tagAttach = prepared((db) =>
  db
    .insert(workspaceTags)
    .values({ workspaceId: sql.placeholder('workspaceId'), tagId: sql.placeholder('tagId'), position: sql.placeholder('position') })
    .onConflictDoNothing()
    .prepare(),
);

export function findTagByName(db: DbOrTx, organizationId: string, name: string): TagRow | undefined {
  return tagByName(db).get({ organizationId, name });
}

export function insertTag(db: DbOrTx, row: TagRow): void {
  tagInsert(db).run(row);
}

// Every workspace read (a show or a page) runs this: one raw statement compiled once per
// connection, the page's ids bound as one JSON array, rows mapped by row-reader.ts.
const tagRows = rowReader(tags);
const TAGS_OF_WORKSPACES =
  `SELECT wt.workspace_id, ${tagRows.columns('t')} FROM workspace_tags wt JOIN tags t ON t.id = wt.tag_id ` +
  'WHERE wt.workspace_id IN (SELECT value FROM json_each(?)) ORDER BY wt.position ASC';
// One workspace (every show and update): a plain key lookup, without the JSON array to unpack.
const TAGS_OF_WORKSPACE =
  `SELECT wt.workspace_id, ${tagRows.columns('t')} FROM workspace_tags wt JOIN tags t ON t.id = wt.tag_id ` +
  'WHERE wt.workspace_id = ? ORDER BY wt.position ASC';

/** Tags of each workspace, in the order they were added (one query for a whole page). */
export function tagsOfWorkspaces(db: DbOrTx, workspaceIds: readonly string[]): Map<string, TagRow[]> {
  const result = new Map<string, TagRow[]>(workspaceIds.map((id) => [id, []]));
  if (workspaceIds.length === 0) return result;
  const sqlite = sqliteOf(db);
  const found = (
    workspaceIds.length === 1
      ? preparedSql(sqlite, TAGS_OF_WORKSPACE).raw().all(workspaceIds[0])
      : preparedSql(sqlite, TAGS_OF_WORKSPACES).raw().all(jsonList(workspaceIds))
  ) as unknown[][];
  for (const values of found) result.get(values[0] as string)?.push(tagRows.read(values, 1));
  return result;
}

/** The position after the workspace's last tag, where the next added tag goes. */
export function nextTagPosition(db: DbOrTx, workspaceId: string): number {
  const last = db
    .select({ position: sql<number>`coalesce(max(${workspaceTags.position}), 0)` })
    .from(workspaceTags)
    .where(eq(workspaceTags.workspaceId, workspaceId))
    .get();
  return (last?.position ?? 0) + 1;
}

/** Puts the tag on the workspace at `position`; an existing assignment keeps its place. True if it was added. */
export function attachTag(db: DbOrTx, workspaceId: string, tagId: string, position: number): boolean {
  return tagAttach(db).run({ workspaceId, tagId, position }).changes > 0;
}

export function detachTag(db: DbOrTx, workspaceId: string, tagId: string): void {
  db.delete(workspaceTags)
    .where(and(eq(workspaceTags.workspaceId, workspaceId), eq(workspaceTags.tagId, tagId)))
    .run();
}

/** Removes those of `tagIds` no workspace carries any more: a tag exists only while it is used. */
export function deleteUnusedTags(db: DbOrTx, tagIds: readonly string[]): void {
  const used = db
    .select({ one: sql`1` })
    .from(workspaceTags)
    .where(eq(workspaceTags.tagId, tags.id));
  for (const slice of inSlices(tagIds))
    db.delete(tags)
      .where(and(inList(tags.id, slice), notExists(used)))
      .run();
}

const instanceCount = sql<number>`(select count(*) from ${workspaceTags} where ${workspaceTags.tagId} = ${tags.id})`;

export interface OrganizationTagFilter {
  query?: string;
  /** Leave out the tags this workspace already carries (`filter[exclude][taggable][id]`). */
  excludeTaggableId?: string;
}

export function listOrganizationTags(
  db: DbOrTx,
  organizationId: string,
  filter: OrganizationTagFilter,
  offset: number,
  limit: number,
): { rows: CountedTag[]; total: number } {
  const conditions: (SQL | undefined)[] = [eq(tags.organizationId, organizationId)];
  if (filter.query) conditions.push(containsIgnoringCase(tags.name, filter.query));
  if (filter.excludeTaggableId) {
    const onTaggable = db
      .select({ id: workspaceTags.tagId })
      .from(workspaceTags)
      .where(eq(workspaceTags.workspaceId, filter.excludeTaggableId));
    conditions.push(notInArray(tags.id, onTaggable));
  }
  const where = and(...conditions);
  const rows = db
    .select({ tag: tags, instanceCount })
    .from(tags)
    .where(where)
    .orderBy(asc(tags.name))
    .limit(limit)
    .offset(offset)
    .all()
    .map((row) => ({ ...row.tag, instanceCount: row.instanceCount }));
  const total = db.select({ n: count() }).from(tags).where(where).get()?.n ?? 0;
  return { rows, total };
}

/** One workspace's tags in insertion order, optionally only those whose name contains `name`. */
export function listWorkspaceTags(
  db: DbOrTx,
  workspaceId: string,
  name: string | undefined,
  offset: number,
  limit: number,
): { rows: CountedTag[]; total: number } {
  const where = and(eq(workspaceTags.workspaceId, workspaceId), name ? containsIgnoringCase(tags.name, name) : undefined);
  const rows = db
    .select({ tag: tags, instanceCount })
    .from(workspaceTags)
    .innerJoin(tags, eq(tags.id, workspaceTags.tagId))
    .where(where)
    .orderBy(asc(workspaceTags.position))
    .limit(limit)
    .offset(offset)
    .all()
    .map((row) => ({ ...row.tag, instanceCount: row.instanceCount }));
  const total = db.select({ n: count() }).from(workspaceTags).innerJoin(tags, eq(tags.id, workspaceTags.tagId)).where(where).get()?.n ?? 0;
  return { rows, total };
}

/** Ids of the tags a workspace carries (to clean up after the workspace is deleted). */
export function tagIdsOfWorkspace(db: DbOrTx, workspaceId: string): string[] {
  return db
    .select({ id: workspaceTags.tagId })
    .from(workspaceTags)
    .where(eq(workspaceTags.workspaceId, workspaceId))
    .all()
    .map((row) => row.id);
}

/** Removes the tags from every workspace and from the organization. */
export function deleteTags(db: DbOrTx, tagIds: readonly string[]): void {
  for (const slice of inSlices(tagIds)) db.delete(tags).where(inList(tags.id, slice)).run();
}
