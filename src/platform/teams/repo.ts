import { and, asc, count, desc, eq, gte, or, sql, type SQL } from 'drizzle-orm';
import { inList } from '../../store/sql-lists.js';
import { inSlices } from '../sql-slices.js';
import { sqliteOf, type DbOrTx } from '../../store/store.js';
import { organizationMemberships, teamMembers, teams, users } from '../../store/tables.js';
import type { TeamRow, UserRow } from '../auth/principal.js';
import { readWindow } from '../jsonapi/pagination.js';
import { anchoredPage, anchorsOf } from '../list-anchors.js';
import { listCountAndVersion } from '../list-counts.js';
import { trigramCandidates } from '../trigram.js';
import { containsIgnoringCase } from '../users/repo.js';
import { updateRows } from '../../store/update.js';

import type { MembershipRow } from '../../store/tables.js';

export type { MembershipRow };

export function findTeam(db: DbOrTx, id: string): TeamRow | undefined {
  return db.select().from(teams).where(eq(teams.id, id)).get();
}

/** Teams by id, in one query (missing ids are left out). */
export function findTeams(db: DbOrTx, ids: readonly string[]): TeamRow[] {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(teams)
    .where(inList(teams.id, [...ids]))
    .all();
}

export function findTeamByName(db: DbOrTx, organizationId: string, name: string): TeamRow | undefined {
  return db
    .select()
    .from(teams)
    .where(and(eq(teams.organizationId, organizationId), eq(teams.name, name)))
    .get();
}

export interface TeamFilter {
  /** `all`, or the secret teams the caller may see besides every `organization`-visible team. */
  secretTeamsVisible: 'all' | ReadonlySet<string>;
  /** Case-insensitive substring of the name. */
  query?: string;
  /** Exact names; a team matching any of them is listed. */
  names?: string[];
}

export function listTeams(
  db: DbOrTx,
  organizationId: string,
  filter: TeamFilter,
  offset: number,
  limit: number,
): { rows: TeamRow[]; total: number } {
  const conditions: (SQL | undefined)[] = [eq(teams.organizationId, organizationId)];
  if (filter.secretTeamsVisible !== 'all') {
    conditions.push(or(eq(teams.visibility, 'organization'), inList(teams.id, [...filter.secretTeamsVisible])));
  }
  if (filter.query) {
    conditions.push(containsIgnoringCase(teams.name, filter.query));
    const candidates = trigramCandidates(sql`${teams}.rowid`, 'team_names', filter.query);
    if (candidates) {
      conditions.push(candidates);
      // Checked per candidate row; left indexable, SQLite would walk every team of the organization instead.
      conditions[0] = sql`+${teams.organizationId} = ${organizationId}`;
    }
  }
  if (filter.names) conditions.push(inList(teams.name, filter.names));
  const where = and(...conditions);
  const everything = filter.secretTeamsVisible === 'all' && !filter.query && !filter.names;
  if (everything) {
    // Names are unique in an organization, so the name alone is the sort key (index teams_org_name).
    const counts = listCountAndVersion(db, 'teams', organizationId);
    const list = { key: `teams\u0000${organizationId}\u0000${limit}`, ...counts };
    const rows = anchoredPage(
      anchorsOf(sqliteOf(db)),
      list,
      { offset, size: limit },
      (row: TeamRow) => [row.name],
      (window) =>
        db
          .select()
          .from(teams)
          .where(and(where, window.from ? gte(teams.name, window.from[0] as string) : undefined))
          .orderBy(window.backwards ? desc(teams.name) : asc(teams.name))
          .limit(window.limit)
          .offset(window.offset)
          .all(),
    );
    return { rows, total: counts.total };
  }
  const total = db.select({ n: count() }).from(teams).where(where).get()?.n ?? 0;
  const window = readWindow({ offset, size: limit }, total);
  if (window.limit === 0) return { rows: [], total };
  const order = window.backwards ? [desc(teams.name), desc(teams.id)] : [asc(teams.name), asc(teams.id)];
  const rows = db
    .select()
    .from(teams)
    .where(where)
    .orderBy(...order)
    .limit(window.limit)
    .offset(window.offset)
    .all();
  return { rows: window.backwards ? rows.reverse() : rows, total };
}

export function insertTeam(db: DbOrTx, row: TeamRow): void {
  db.insert(teams).values(row).run();
}

/** At most a slice of rows (see sql-slices.ts): each row binds its columns as variables. */
export function insertTeams(db: DbOrTx, rows: TeamRow[]): void {
  db.insert(teams).values(rows).run();
}

export function updateTeam(db: DbOrTx, id: string, changes: Partial<Omit<TeamRow, 'id' | 'organizationId' | 'isOwners'>>): void {
  updateRows(db, teams, changes, eq(teams.id, id));
}

export function deleteTeam(db: DbOrTx, id: string): void {
  db.delete(teams).where(eq(teams.id, id)).run();
}

/**
 * Members of each team whose organization membership is active, by team id. Invited users are
 * left out, as the real service leaves them out of team responses until they accept.
 */
export function activeMembersOf(db: DbOrTx, teamIds: readonly string[]): Map<string, UserRow[]> {
  const byTeam = new Map<string, UserRow[]>(teamIds.map((id) => [id, []]));
  if (teamIds.length === 0) return byTeam;
  const rows = db
    .select({ teamId: teamMembers.teamId, user: users })
    .from(teamMembers)
    .innerJoin(teams, eq(teams.id, teamMembers.teamId))
    .innerJoin(users, eq(users.id, teamMembers.userId))
    .innerJoin(
      organizationMemberships,
      and(eq(organizationMemberships.userId, teamMembers.userId), eq(organizationMemberships.organizationId, teams.organizationId)),
    )
    .where(and(inList(teamMembers.teamId, [...teamIds]), eq(organizationMemberships.status, 'active')))
    .orderBy(asc(users.username))
    .all();
  for (const row of rows) byTeam.get(row.teamId)?.push(row.user);
  return byTeam;
}

/** Organization memberships (invited or active) of each team's members, by team id. */
export function membershipsOf(db: DbOrTx, teamIds: readonly string[]): Map<string, MembershipRow[]> {
  const byTeam = new Map<string, MembershipRow[]>(teamIds.map((id) => [id, []]));
  if (teamIds.length === 0) return byTeam;
  const rows = db
    .select({ teamId: teamMembers.teamId, membership: organizationMemberships })
    .from(teamMembers)
    .innerJoin(teams, eq(teams.id, teamMembers.teamId))
    .innerJoin(
      organizationMemberships,
      and(eq(organizationMemberships.userId, teamMembers.userId), eq(organizationMemberships.organizationId, teams.organizationId)),
    )
    .where(inList(teamMembers.teamId, [...teamIds]))
    .orderBy(asc(organizationMemberships.createdAt), asc(organizationMemberships.id))
    .all();
  for (const row of rows) byTeam.get(row.teamId)?.push(row.membership);
  return byTeam;
}

/** The teams of `organizationId` each user belongs to, by user id (for memberships' `teams`). */
export function teamIdsOfUsers(db: DbOrTx, organizationId: string, userIds: readonly string[]): Map<string, string[]> {
  const byUser = new Map<string, string[]>(userIds.map((id) => [id, []]));
  if (userIds.length === 0) return byUser;
  const rows = db
    .select({ userId: teamMembers.userId, teamId: teamMembers.teamId })
    .from(teamMembers)
    .innerJoin(teams, eq(teams.id, teamMembers.teamId))
    .where(and(eq(teams.organizationId, organizationId), inList(teamMembers.userId, [...userIds])))
    .orderBy(asc(teamMembers.createdAt), asc(teamMembers.teamId))
    .all();
  for (const row of rows) byUser.get(row.userId)?.push(row.teamId);
  return byUser;
}

export function findUsersByIds(db: DbOrTx, ids: readonly string[]): Map<string, UserRow> {
  if (ids.length === 0) return new Map();
  return new Map(
    db
      .select()
      .from(users)
      .where(inList(users.id, [...ids]))
      .all()
      .map((user) => [user.id, user]),
  );
}

export function addTeamMembers(db: DbOrTx, teamId: string, userIds: readonly string[], at: Date): void {
  for (const slice of inSlices(userIds)) {
    db.insert(teamMembers)
      .values(slice.map((userId) => ({ teamId, userId, createdAt: at })))
      .onConflictDoNothing()
      .run();
  }
}

export function removeTeamMembers(db: DbOrTx, teamId: string, userIds: readonly string[]): void {
  if (userIds.length === 0) return;
  db.delete(teamMembers)
    .where(and(eq(teamMembers.teamId, teamId), inList(teamMembers.userId, [...userIds])))
    .run();
}

export function countActiveMembers(db: DbOrTx, teamId: string): number {
  return activeMembersOf(db, [teamId]).get(teamId)?.length ?? 0;
}
