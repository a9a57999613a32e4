import { and, asc, count, desc, eq, notInArray, or, sql, type SQL } from 'drizzle-orm';
import { inList } from '../../store/sql-lists.js';
import { preparedSql } from '../../store/prepared.js';
import { rowReader, type RowReader } from '../row-reader.js';
import { sqliteOf, type DbOrTx } from '../../store/store.js';
import { tags, teamWorkspaces, workspaces, workspaceTags } from '../../store/tables.js';
import type { ReadableSet } from '../auth/workspace-permissions.js';
import { inSlices } from '../sql-slices.js';
import type { OrganizationRow, TeamRow } from '../auth/principal.js';
import { CALLER_MEMBERSHIP, teamsOfMembership } from '../auth/permissions.js';
import { organizationRows } from '../organizations/repo.js';
import { updateRows } from '../../store/update.js';

/**
 * A workspace as stored. `project_id` is nullable in SQL (making it NOT NULL means rebuilding the
 * table and its hand-written triggers), but never null in a row: every write names a project (the
 * default one when the caller names none) and the store's upgrade 5 filled in older rows.
 */
export type WorkspaceRow = Omit<typeof workspaces.$inferSelect, 'projectId'> & { projectId: string };

// Lookups by key run on every workspace request: raw statements compiled once per connection,
// their rows mapped by one precomputed loop (row-reader.ts) rather than drizzle's per-cell walk.
export const workspaceRows = rowReader(workspaces) as RowReader<WorkspaceRow>;
const BY_ID = `SELECT ${workspaceRows.columns('w')} FROM workspaces w WHERE w.id = ?`;
const BY_NAME = `SELECT ${workspaceRows.columns('w')} FROM workspaces w WHERE w.organization_id = ? AND w.name = ?`;

const one = (values: unknown) => (values === undefined ? undefined : workspaceRows.read(values as unknown[]));

export function findWorkspace(db: DbOrTx, id: string): WorkspaceRow | undefined {
  return one(preparedSql(sqliteOf(db), BY_ID).raw().get(id));
}

// A show reads the workspace and its organization together: one statement instead of two.
const WITH_ORGANIZATION_BY_ID =
  `SELECT ${workspaceRows.columns('w')}, ${organizationRows.columns('o')} ` +
  'FROM workspaces w JOIN organizations o ON o.id = w.organization_id WHERE w.id = ?';

/** The workspace and its organization, or undefined when either is missing. */
export function findWorkspaceWithOrganization(
  db: DbOrTx,
  id: string,
): { workspace: WorkspaceRow; organization: OrganizationRow } | undefined {
  const values = preparedSql(sqliteOf(db), WITH_ORGANIZATION_BY_ID).raw().get(id) as unknown[] | undefined;
  if (values === undefined) return undefined;
  return { workspace: workspaceRows.read(values), organization: organizationRows.read(values, workspaceRows.width) };
}

// A user's show adds the caller's membership and teams in the workspace's organization to the
// same statement (a row per team): the whole show, standing included, is one read.
const WITH_ORGANIZATION_AND_MEMBERSHIP_BY_ID =
  `SELECT ${workspaceRows.columns('w')}, ${organizationRows.columns('o')}, ${CALLER_MEMBERSHIP.columns} ` +
  `FROM workspaces w JOIN organizations o ON o.id = w.organization_id ${CALLER_MEMBERSHIP.joins('o.id')} WHERE w.id = ?`;

/**
 * The workspace, its organization and the teams `userId` belongs to there (null: no active
 * membership), or undefined when the workspace or organization is missing.
 */
export function findWorkspaceWithMembership(
  db: DbOrTx,
  id: string,
  userId: string,
): { workspace: WorkspaceRow; organization: OrganizationRow; teamsOfUser: TeamRow[] | null } | undefined {
  const rows = preparedSql(sqliteOf(db), WITH_ORGANIZATION_AND_MEMBERSHIP_BY_ID).raw().all(userId, id) as unknown[][];
  const first = rows[0];
  if (first === undefined) return undefined;
  return {
    workspace: workspaceRows.read(first),
    organization: organizationRows.read(first, workspaceRows.width),
    teamsOfUser: teamsOfMembership(rows, workspaceRows.width + organizationRows.width),
  };
}

// The same reads by organization and workspace name (a show by name): the organization, the
// workspace and the caller's standing in one statement, where they took five (the organization,
// the caller's teams, the workspace, then the organization and teams again).
const WITH_ORGANIZATION_BY_NAMES =
  `SELECT ${workspaceRows.columns('w')}, ${organizationRows.columns('o')} ` +
  'FROM organizations o JOIN workspaces w ON w.organization_id = o.id AND w.name = ? WHERE o.name = ?';
const WITH_ORGANIZATION_AND_MEMBERSHIP_BY_NAMES =
  `SELECT ${workspaceRows.columns('w')}, ${organizationRows.columns('o')}, ${CALLER_MEMBERSHIP.columns} ` +
  `FROM organizations o JOIN workspaces w ON w.organization_id = o.id AND w.name = ? ${CALLER_MEMBERSHIP.joins('o.id')} ` +
  'WHERE o.name = ?';

/**
 * The workspace `name` of the organization named `organizationName`, with the organization, or
 * undefined when either is missing; with `userId`, also the teams that user belongs to there
 * (null: no active membership).
 */
export function findWorkspaceByNames(
  db: DbOrTx,
  organizationName: string,
  name: string,
  userId?: string,
): { workspace: WorkspaceRow; organization: OrganizationRow; teamsOfUser?: TeamRow[] | null } | undefined {
  const sqlite = sqliteOf(db);
  const rows = (
    userId === undefined
      ? preparedSql(sqlite, WITH_ORGANIZATION_BY_NAMES).raw().all(name, organizationName)
      : preparedSql(sqlite, WITH_ORGANIZATION_AND_MEMBERSHIP_BY_NAMES).raw().all(name, userId, organizationName)
  ) as unknown[][];
  const first = rows[0];
  if (first === undefined) return undefined;
  const found = { workspace: workspaceRows.read(first), organization: organizationRows.read(first, workspaceRows.width) };
  return userId === undefined ? found : { ...found, teamsOfUser: teamsOfMembership(rows, workspaceRows.width + organizationRows.width) };
}

export function findWorkspaceByName(db: DbOrTx, organizationId: string, name: string): WorkspaceRow | undefined {
  return one(preparedSql(sqliteOf(db), BY_NAME).raw().get(organizationId, name));
}

export function findWorkspaces(db: DbOrTx, ids: readonly string[]): WorkspaceRow[] {
  return inSlices([...new Set(ids)]).flatMap(
    (slice) => db.select().from(workspaces).where(inList(workspaces.id, slice)).all() as WorkspaceRow[],
  );
}

export function insertWorkspace(db: DbOrTx, row: WorkspaceRow): void {
  db.insert(workspaces).values(row).run();
}

/** Many rows at once (bulk fixtures); chunks keep each statement under SQLite's variable limit. */
export function insertWorkspaces(db: DbOrTx, rows: WorkspaceRow[]): void {
  for (const slice of inSlices(rows)) db.insert(workspaces).values(slice).run();
}

export function updateWorkspace(db: DbOrTx, id: string, changes: Partial<WorkspaceRow>): void {
  updateRows(db, workspaces, changes, eq(workspaces.id, id));
}

export function deleteWorkspace(db: DbOrTx, id: string): void {
  db.delete(workspaces).where(eq(workspaces.id, id)).run();
}

export type WorkspaceSort =
  'name' | '-name' | 'created-at' | '-created-at' | 'updated-at' | '-updated-at' | 'current-run.created-at' | '-current-run.created-at';

export interface WorkspaceFilter {
  /** Substring of the name, case-insensitive. */
  name?: string;
  /** `*` wildcards at either end; without one, the exact name. */
  wildcardName?: string;
  /** Workspaces carrying every one of these tags. */
  tags?: string[];
  /** Workspaces carrying none of these tags. */
  excludeTags?: string[];
  /** Workspaces of this project (`filter[project][id]`; the list endpoint only). */
  projectId?: string;
  /** `filter[tagged][n]`: workspaces whose effective bindings carry every key (with its value, when given). */
  tagged?: TaggedCondition[];
}

export interface TaggedCondition {
  key: string;
  /** Undefined: any value. */
  value?: string;
}

/** A LIKE pattern matching `text` literally, with `\` as the escape character. */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (character) => `\\${character}`);
}

function wildcardCondition(pattern: string): SQL {
  const leading = pattern.startsWith('*');
  const trailing = pattern.length > 1 && pattern.endsWith('*');
  const core = pattern.slice(leading ? 1 : 0, trailing ? -1 : undefined);
  if (!leading && !trailing) return eq(workspaces.name, core);
  const like = `${leading ? '%' : ''}${likeLiteral(core)}${trailing ? '%' : ''}`;
  return sql`${workspaces.name} LIKE ${like} ESCAPE '\\'`;
}

/** Ids of the organization's workspaces tagged with any of `names`, grouped to count distinct matches. */
function taggedWith(organizationId: string, names: string[]) {
  return (db: DbOrTx) =>
    db
      .select({ id: workspaceTags.workspaceId })
      .from(workspaceTags)
      .innerJoin(tags, eq(tags.id, workspaceTags.tagId))
      .where(and(eq(tags.organizationId, organizationId), inList(tags.name, names)));
}

/** Everything the list endpoint filters on, as one WHERE clause. */
export function workspaceConditions(db: DbOrTx, organizationId: string, readable: ReadableSet, filter: WorkspaceFilter): SQL | undefined {
  const conditions: (SQL | undefined)[] = [eq(workspaces.organizationId, organizationId)];
  if (!readable.all) {
    if (readable.teamIds.length === 0) return sql`0`;
    const accessible = db
      .select({ id: teamWorkspaces.workspaceId })
      .from(teamWorkspaces)
      .where(inList(teamWorkspaces.teamId, [...readable.teamIds]));
    const granted = [inList(workspaces.id, accessible)];
    if (readable.projectIds.length > 0) granted.push(inList(workspaces.projectId, [...readable.projectIds]));
    conditions.push(or(...granted));
  }
  if (filter.name) conditions.push(sql`${workspaces.name} LIKE ${`%${likeLiteral(filter.name)}%`} ESCAPE '\\'`);
  if (filter.wildcardName) conditions.push(wildcardCondition(filter.wildcardName));
  const wanted = [...new Set(filter.tags ?? [])];
  if (wanted.length > 0) {
    const all = taggedWith(
      organizationId,
      wanted,
    )(db)
      .groupBy(workspaceTags.workspaceId)
      .having(sql`count(*) = ${wanted.length}`);
    conditions.push(inList(workspaces.id, all));
  }
  const unwanted = [...new Set(filter.excludeTags ?? [])];
  if (unwanted.length > 0) conditions.push(notInArray(workspaces.id, taggedWith(organizationId, unwanted)(db)));

  return and(...conditions);
}

const currentRunCreatedAt = sql`(SELECT r.created_at FROM runs r WHERE r.id = ${workspaces.currentRunId})`;
const ORDER: Record<WorkspaceSort, SQL> = {
  name: asc(workspaces.name),
  '-name': desc(workspaces.name),
  'created-at': asc(workspaces.createdAt),
  '-created-at': desc(workspaces.createdAt),
  'updated-at': asc(workspaces.updatedAt),
  '-updated-at': desc(workspaces.updatedAt),
  // Workspaces without a run come last either way, as in the paged list (list-repo.ts).
  'current-run.created-at': sql`coalesce(${currentRunCreatedAt}, ${Number.MAX_SAFE_INTEGER}) ASC`,
  '-current-run.created-at': sql`coalesce(${currentRunCreatedAt}, -1) DESC`,
};

/** One page of a filtered, sorted list and the total, in two indexed queries. */
export function listWorkspaces(
  db: DbOrTx,
  where: SQL | undefined,
  sort: WorkspaceSort,
  offset: number,
  limit: number,
): { rows: WorkspaceRow[]; total: number } {
  // Names are unique per organization, so they settle ties in the timestamp orders deterministically.
  const order = sort === 'name' || sort === '-name' ? [ORDER[sort]] : [ORDER[sort], asc(workspaces.name)];
  const rows = db
    .select()
    .from(workspaces)
    .where(where)
    .orderBy(...order)
    .limit(limit)
    .offset(offset)
    .all() as WorkspaceRow[];
  const total = db.select({ n: count() }).from(workspaces).where(where).get()?.n ?? 0;
  return { rows, total };
}
