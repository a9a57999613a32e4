import { and, asc, count, eq, isNotNull, sql, type SQL } from 'drizzle-orm';
import { inList } from '../../store/sql-lists.js';
import { prepared } from '../../store/prepared.js';
import type { DbOrTx } from '../../store/store.js';
import { projects, tagBindings, teamProjects, workspaces } from '../../store/tables.js';
import { updateRows } from '../../store/update.js';
import { likeLiteral } from '../sql-like.js';
import { DEFAULT_PROJECT_NAME, defaultProjectId } from '../default-project.js';

export { defaultProjectId } from '../default-project.js';

export type ProjectRow = typeof projects.$inferSelect;

const byId = prepared((db) =>
  db
    .select()
    .from(projects)
    .where(eq(projects.id, sql.placeholder('id')))
    .prepare(),
);
const byName = prepared((db) =>
  db
    .select()
    .from(projects)
    .where(and(eq(projects.organizationId, sql.placeholder('organizationId')), eq(projects.name, sql.placeholder('name'))))
    .prepare(),
);

export function findProject(db: DbOrTx, id: string): ProjectRow | undefined {
  return byId(db).get({ id });
}

export function findProjectByName(db: DbOrTx, organizationId: string, name: string): ProjectRow | undefined {
  return byName(db).get({ organizationId, name });
}

export function findProjects(db: DbOrTx, ids: readonly string[]): ProjectRow[] {
  return ids.length === 0
    ? []
    : db
        .select()
        .from(projects)
        .where(inList(projects.id, [...new Set(ids)]))
        .all();
}

export function insertProject(db: DbOrTx, row: ProjectRow): void {
  db.insert(projects).values(row).run();
}

/** The organization's default project row (organization creation and the seed call this). */
export function insertDefaultProject(db: DbOrTx, organizationId: string, at: Date): void {
  insertProject(db, {
    id: defaultProjectId(organizationId),
    organizationId,
    name: DEFAULT_PROJECT_NAME,
    description: null,
    isDefault: true,
    autoDestroyActivityDuration: null,
    createdAt: at,
    updatedAt: at,
  });
}

export function updateProject(db: DbOrTx, id: string, changes: Partial<ProjectRow>): void {
  updateRows(db, projects, changes, eq(projects.id, id));
}

export function deleteProject(db: DbOrTx, id: string): void {
  db.delete(projects).where(eq(projects.id, id)).run();
}

/** Whether any workspace belongs to the project. */
export function holdsWorkspaces(db: DbOrTx, project: ProjectRow): boolean {
  return db.select({ id: workspaces.id }).from(workspaces).where(eq(workspaces.projectId, project.id)).limit(1).get() !== undefined;
}

export interface ProjectFilter {
  /** Case-insensitive substring of the name (`q`). */
  q?: string;
  /** Exact names (`filter[names]`). */
  names?: string[];
  /** `filter[tagged][n]`: projects carrying every key (with its value, when given). */
  tagged?: { key: string; value?: string }[];
}

/** One page of the organization's projects by name, and the total. */
export function listProjects(
  db: DbOrTx,
  organizationId: string,
  filter: ProjectFilter,
  offset: number,
  limit: number,
): { rows: ProjectRow[]; total: number } {
  const conditions: SQL[] = [eq(projects.organizationId, organizationId)];
  // LIKE is case-insensitive for ASCII in SQLite, as `q` is on the real service.
  if (filter.q) conditions.push(sql`${projects.name} LIKE ${`%${likeLiteral(filter.q)}%`} ESCAPE '\\'`);
  if (filter.names && filter.names.length > 0) conditions.push(inList(projects.name, filter.names));
  for (const { key, value } of filter.tagged ?? []) {
    const carrying = db
      .select({ id: tagBindings.projectId })
      .from(tagBindings)
      .where(
        and(
          eq(tagBindings.organizationId, organizationId),
          eq(tagBindings.key, key),
          value === undefined ? undefined : eq(tagBindings.value, value),
          isNotNull(tagBindings.projectId),
        ),
      );
    conditions.push(sql`${projects.id} IN ${carrying}`);
  }
  const where = and(...conditions);
  const rows = db.select().from(projects).where(where).orderBy(asc(projects.name)).limit(limit).offset(offset).all();
  const total = db.select({ n: count() }).from(projects).where(where).get()?.n ?? 0;
  return { rows, total };
}

/** How many workspaces and team grants each of `rows` has: two grouped queries whatever the page holds. */
export function countsOf(db: DbOrTx, rows: readonly ProjectRow[]): Map<string, { workspaces: number; teams: number }> {
  const counts = new Map(rows.map((row) => [row.id, { workspaces: 0, teams: 0 }]));
  if (rows.length === 0) return counts;
  const ids = rows.map((row) => row.id);
  const placed = db
    .select({ projectId: workspaces.projectId, n: count() })
    .from(workspaces)
    .where(inList(workspaces.projectId, ids))
    .groupBy(workspaces.projectId)
    .all();
  for (const row of placed) {
    const entry = row.projectId ? counts.get(row.projectId) : undefined;
    if (entry) entry.workspaces += row.n;
  }
  const granted = db
    .select({ projectId: teamProjects.projectId, n: count() })
    .from(teamProjects)
    .where(inList(teamProjects.projectId, ids))
    .groupBy(teamProjects.projectId)
    .all();
  for (const row of granted) {
    const entry = counts.get(row.projectId);
    if (entry) entry.teams = row.n;
  }
  return counts;
}
