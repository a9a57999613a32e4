import { and, asc, count, desc, eq, gte, lte, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { DbOrTx } from '../../store/store.js';
import { inList } from '../../store/sql-lists.js';
import { organizations, runs, teamMembers, teams, users, workspaces } from '../../store/tables.js';
import type { OrganizationRow, UserRow } from '../auth/principal.js';

/** `column` contains `text`, ignoring case; `%` and `_` in `text` match only themselves. */
function contains(column: SQLWrapper, text: string): SQL {
  return sql`instr(lower(${column}), ${text.toLowerCase()}) > 0`;
}

export interface OrganizationFilter {
  /** Part of the name or the notification email. */
  q?: string;
  /** Only organizations whose private modules the named organization may use (`filter[module_producer]`). */
  consumerIds?: readonly string[];
}

/** One page of every organization on the installation, by name. */
export function listOrganizations(db: DbOrTx, filter: OrganizationFilter, offset: number, limit: number) {
  const conditions: SQL[] = [];
  if (filter.q) conditions.push(sql`(${contains(organizations.name, filter.q)} or ${contains(organizations.email, filter.q)})`);
  if (filter.consumerIds) conditions.push(filter.consumerIds.length === 0 ? sql`0` : inList(organizations.id, [...filter.consumerIds]));
  const where = conditions.length > 0 ? and(...conditions) : undefined;
  const rows = db.select().from(organizations).where(where).orderBy(asc(organizations.name)).limit(limit).offset(offset).all();
  const total = db.select({ n: count() }).from(organizations).where(where).get()?.n ?? 0;
  return { rows, total };
}

export function organizationsByIds(db: DbOrTx, ids: readonly string[]): OrganizationRow[] {
  return ids.length === 0
    ? []
    : db
        .select()
        .from(organizations)
        .where(inList(organizations.id, [...new Set(ids)]))
        .orderBy(asc(organizations.name))
        .all();
}

export function organizationsByNames(db: DbOrTx, names: readonly string[]): OrganizationRow[] {
  return names.length === 0
    ? []
    : db
        .select()
        .from(organizations)
        .where(inList(organizations.name, [...new Set(names)]))
        .all();
}

/** The members of each organization's owners team, for a page of organizations in one query. */
export function ownersOf(db: DbOrTx, organizationIds: readonly string[]): Map<string, UserRow[]> {
  const owners = new Map<string, UserRow[]>(organizationIds.map((id) => [id, []]));
  if (organizationIds.length === 0) return owners;
  const rows = db
    .select({ organizationId: teams.organizationId, user: users })
    .from(teamMembers)
    .innerJoin(teams, eq(teams.id, teamMembers.teamId))
    .innerJoin(users, eq(users.id, teamMembers.userId))
    .where(and(eq(teams.isOwners, true), inList(teams.organizationId, [...organizationIds])))
    .orderBy(asc(users.username))
    .all();
  for (const row of rows) owners.get(row.organizationId)?.push(row.user);
  return owners;
}

/**
 * `recent` is the order without `sort`: the public docs call it "arbitrary but stable", and the Go
 * client's test expects the workspace whose run it just queued first, so the newest current run
 * leads, workspaces that never ran follow by name.
 */
export type AdminWorkspaceSort = 'recent' | 'name' | '-name' | 'current-run.created-at' | '-current-run.created-at';

export interface WorkspaceFilter {
  /** Part of the workspace name (or its organization's name). */
  q?: string;
  /** The current run's status (`filter[current_run][status]`). */
  currentRunStatus?: string;
}

export type AdminWorkspaceRow = Pick<
  typeof workspaces.$inferSelect,
  'id' | 'name' | 'organizationId' | 'lockedBy' | 'vcsRepo' | 'currentRunId'
>;

/** The workspace columns the admin documents show, for the list and the show alike. */
const ADMIN_WORKSPACE_COLUMNS = {
  id: workspaces.id,
  name: workspaces.name,
  organizationId: workspaces.organizationId,
  lockedBy: workspaces.lockedBy,
  vcsRepo: workspaces.vcsRepo,
  currentRunId: workspaces.currentRunId,
};

/** One page of every workspace on the installation; current-run orders put workspaces without a run last. */
export function listWorkspaces(db: DbOrTx, filter: WorkspaceFilter, sort: AdminWorkspaceSort, offset: number, limit: number) {
  const conditions: SQL[] = [];
  if (filter.q) conditions.push(contains(workspaces.name, filter.q));
  if (filter.currentRunStatus) conditions.push(eq(runs.status, filter.currentRunStatus));
  const where = conditions.length > 0 ? and(...conditions) : undefined;
  const order =
    sort === 'name'
      ? [asc(workspaces.name), asc(workspaces.id)]
      : sort === '-name'
        ? [desc(workspaces.name), asc(workspaces.id)]
        : [
            sql`${runs.createdAt} is null`,
            sort === 'current-run.created-at' ? asc(runs.createdAt) : desc(runs.createdAt),
            ...(sort === 'recent' ? [asc(workspaces.name)] : []),
            asc(workspaces.id),
          ];
  const rows: AdminWorkspaceRow[] = db
    .select(ADMIN_WORKSPACE_COLUMNS)
    .from(workspaces)
    .leftJoin(runs, eq(runs.id, workspaces.currentRunId))
    .where(where)
    .orderBy(...order)
    .limit(limit)
    .offset(offset)
    .all();
  const total = db.select({ n: count() }).from(workspaces).leftJoin(runs, eq(runs.id, workspaces.currentRunId)).where(where).get()?.n ?? 0;
  return { rows, total };
}

export function findWorkspace(db: DbOrTx, id: string): AdminWorkspaceRow | undefined {
  return db.select(ADMIN_WORKSPACE_COLUMNS).from(workspaces).where(eq(workspaces.id, id)).get();
}

/** Workspaces by id, in the order of `ids`, in one query (missing ids are left out). */
export function findWorkspaces(db: DbOrTx, ids: readonly string[]): AdminWorkspaceRow[] {
  if (ids.length === 0) return [];
  const byId = new Map(
    db
      .select(ADMIN_WORKSPACE_COLUMNS)
      .from(workspaces)
      .where(inList(workspaces.id, [...ids]))
      .all()
      .map((row) => [row.id, row]),
  );
  return ids.flatMap((id) => byId.get(id) ?? []);
}

export type RunSummary = Pick<typeof runs.$inferSelect, 'id' | 'status' | 'createdAt' | 'workspaceId'>;

export function runsByIds(db: DbOrTx, ids: readonly string[]): RunSummary[] {
  if (ids.length === 0) return [];
  return db
    .select({ id: runs.id, status: runs.status, createdAt: runs.createdAt, workspaceId: runs.workspaceId })
    .from(runs)
    .where(inList(runs.id, [...new Set(ids)]))
    .all();
}

export interface AdminRunFilter {
  statuses?: readonly string[];
  /** Part of the run's id, its workspace's name or its organization's name. */
  q?: string;
  /** Created at or after / at or before. */
  from?: Date;
  to?: Date;
}

const ADMIN_RUN_COLUMNS = {
  id: runs.id,
  status: runs.status,
  statusTimestamps: runs.statusTimestamps,
  hasChanges: runs.hasChanges,
  createdAt: runs.createdAt,
  workspaceId: runs.workspaceId,
  organizationId: runs.organizationId,
};
export type AdminRunRow = { [K in keyof typeof ADMIN_RUN_COLUMNS]: (typeof runs.$inferSelect)[K] };

/** One page of every run on the installation, newest first. */
export function listRuns(db: DbOrTx, filter: AdminRunFilter, offset: number, limit: number) {
  const conditions: SQL[] = [];
  if (filter.statuses) conditions.push(inList(runs.status, [...filter.statuses]));
  if (filter.q)
    conditions.push(
      sql`(${contains(runs.id, filter.q)} or ${contains(workspaces.name, filter.q)} or ${contains(organizations.name, filter.q)})`,
    );
  if (filter.from) conditions.push(gte(runs.createdAt, filter.from));
  if (filter.to) conditions.push(lte(runs.createdAt, filter.to));
  const where = conditions.length > 0 ? and(...conditions) : undefined;
  const rows: AdminRunRow[] = db
    .select(ADMIN_RUN_COLUMNS)
    .from(runs)
    .innerJoin(workspaces, eq(workspaces.id, runs.workspaceId))
    .innerJoin(organizations, eq(organizations.id, runs.organizationId))
    .where(where)
    .orderBy(desc(runs.createdAt), desc(runs.id))
    .limit(limit)
    .offset(offset)
    .all();
  const total =
    db
      .select({ n: count() })
      .from(runs)
      .innerJoin(workspaces, eq(workspaces.id, runs.workspaceId))
      .innerJoin(organizations, eq(organizations.id, runs.organizationId))
      .where(where)
      .get()?.n ?? 0;
  return { rows, total };
}
