import { and, asc, count, desc, eq, sql } from 'drizzle-orm';
import { inList, jsonList } from '../../store/sql-lists.js';
import { preparedSql } from '../../store/prepared.js';
import { rowReader } from '../row-reader.js';
import { sqliteOf, type DbOrTx } from '../../store/store.js';
import { organizationMemberships, teamMembers, teams, users } from '../../store/tables.js';
import type { UserRow } from '../auth/principal.js';
import { readWindow } from '../jsonapi/pagination.js';
import { anchoredPage, anchorsOf } from '../list-anchors.js';
import { listCount, listCountAndVersion } from '../list-counts.js';
import { indexable, trigramPhrase } from '../trigram.js';
import { updateRows } from '../../store/update.js';

/** An organization membership row: a user's invitation to, or membership of, an organization. */
export type { MembershipRow } from '../../store/tables.js';
import type { MembershipRow } from '../../store/tables.js';
export type MembershipStatus = MembershipRow['status'];

export interface MembershipFilter {
  /** Substring of the username or email, case-insensitive. */
  query?: string;
  status?: MembershipStatus;
  /** Any of these addresses (stored lower-cased). */
  emails?: string[];
}

export type MembershipWithUser = { membership: MembershipRow; user: UserRow };

/**
 * A filtered list (a text search or addresses) as raw SQL over `organization_memberships m JOIN
 * users u`: the WHERE text depends only on which filters are present, so each shape is compiled
 * once per connection (store/prepared.ts) and the values travel as parameters.
 */
interface Shape {
  where: string;
  params: (string | number)[];
}

function shapeOf(organizationId: string, filter: MembershipFilter, withStatus: boolean): Shape {
  const parts = ['m.organization_id = ?'];
  const params: (string | number)[] = [organizationId];
  if (filter.query) {
    const text = filter.query.toLowerCase();
    parts.push('(instr(lower(u.username), ?) > 0 OR instr(lower(u.email), ?) > 0)');
    params.push(text, text);
    if (indexable(filter.query)) {
      // The users whose name or address may contain the text, straight from the trigram index: the
      // (organization, user) index then finds their memberships without a scan.
      parts.push('m.user_id IN (SELECT id FROM users WHERE rowid IN (SELECT rowid FROM user_names WHERE user_names MATCH ?))');
      params.push(trigramPhrase(filter.query));
      // Checked per candidate; left indexable, SQLite walks the list-order index of every membership instead.
      parts[0] = '+m.organization_id = ?';
    }
  }
  if (filter.emails && filter.emails.length > 0) {
    parts.push('u.email IN (SELECT value FROM json_each(?))');
    params.push(jsonList(filter.emails.map((email) => email.toLowerCase())));
  }
  if (withStatus && filter.status) {
    parts.push('m.status = ?');
    params.push(filter.status);
  }
  return { where: parts.join(' AND '), params };
}

const FILTERED = 'FROM organization_memberships m JOIN users u ON u.id = m.user_id WHERE';
const membershipRows = rowReader(organizationMemberships);
const userRows = rowReader(users);

export function listMemberships(
  db: DbOrTx,
  organizationId: string,
  filter: MembershipFilter,
  offset: number,
  limit: number,
  /** The filtered total when the caller already counted it (statusCounts), saving a second search. */
  knownTotal?: number,
): { rows: MembershipWithUser[]; total: number } {
  if (unfiltered(filter)) return pageOfAll(db, organizationId, filter.status, offset, limit);
  const shape = shapeOf(organizationId, filter, true);
  const sqlite = sqliteOf(db);
  const total =
    knownTotal ??
    (preparedSql(sqlite, `SELECT count(*) ${FILTERED} ${shape.where}`)
      .pluck()
      .get(...shape.params) as number);
  const window = readWindow({ offset, size: limit }, total);
  if (window.limit === 0) return { rows: [], total };
  const direction = window.backwards ? 'DESC' : 'ASC';
  const text =
    `SELECT ${membershipRows.columns('m')}, ${userRows.columns('u')} ${FILTERED} ${shape.where} ` +
    `ORDER BY m.created_at ${direction}, m.id ${direction} LIMIT ? OFFSET ?`;
  const found = preparedSql(sqlite, text)
    .raw()
    .all(...shape.params, window.limit, window.offset) as unknown[][];
  const rows = found.map((values) => ({ membership: membershipRows.read(values), user: userRows.read(values, membershipRows.width) }));
  return { rows: window.backwards ? rows.reverse() : rows, total };
}

const listOrder = (backwards: boolean) =>
  backwards
    ? [desc(organizationMemberships.createdAt), desc(organizationMemberships.id)]
    : [asc(organizationMemberships.createdAt), asc(organizationMemberships.id)];

/**
 * A page of every membership (or every one in a status), counted by list_counts and read from
 * remembered page starts. The page's ids come off the list-order index alone; joining users
 * first would look up a user for every row OFFSET skips.
 */
function pageOfAll(
  db: DbOrTx,
  organizationId: string,
  status: MembershipStatus | undefined,
  offset: number,
  limit: number,
): { rows: MembershipWithUser[]; total: number } {
  const counted = (['active', 'invited'] as const)
    .filter((each) => status === undefined || status === each)
    .map((each) => listCountAndVersion(db, `memberships:${each}`, organizationId));
  // Both versions only ever rise, so their sum changes whenever either list does.
  const counts = { total: sum(counted.map((each) => each.total)), version: sum(counted.map((each) => each.version)) };
  const list = { key: `memberships\u0000${organizationId}\u0000${status ?? 'all'}\u0000${limit}`, ...counts };
  const keyOf = (row: MembershipWithUser) => [row.membership.createdAt.getTime(), row.membership.id];
  const rows = anchoredPage(anchorsOf(sqliteOf(db)), list, { offset, size: limit }, keyOf, (window) => {
    const [createdAt, id] = window.from ?? [];
    const ids = db
      .select({ id: organizationMemberships.id })
      .from(organizationMemberships)
      .where(
        and(
          eq(organizationMemberships.organizationId, organizationId),
          status ? eq(organizationMemberships.status, status) : undefined,
          // A row-value comparison over the index memberships_org_created (organization, created_at, id).
          window.from ? sql`(${organizationMemberships.createdAt}, ${organizationMemberships.id}) >= (${createdAt}, ${id})` : undefined,
        ),
      )
      .orderBy(...listOrder(window.backwards))
      .limit(window.limit)
      .offset(window.offset);
    return db
      .select({ membership: organizationMemberships, user: users })
      .from(organizationMemberships)
      .innerJoin(users, eq(users.id, organizationMemberships.userId))
      .where(inList(organizationMemberships.id, ids))
      .orderBy(...listOrder(window.backwards))
      .all();
  });
  return { rows, total: counts.total };
}

const sum = (numbers: number[]) => numbers.reduce((total, each) => total + each, 0);

/** Without a text or email filter, the counts kept in list_counts answer (no scan per request). */
function unfiltered(filter: MembershipFilter): boolean {
  return !filter.query && !(filter.emails && filter.emails.length > 0);
}

/** How many memberships match the filter in each status (the status filter itself is not applied). */
export function statusCounts(
  db: DbOrTx,
  organizationId: string,
  filter: MembershipFilter,
): { total: number; active: number; invited: number } {
  if (unfiltered(filter)) {
    const active = listCount(db, 'memberships:active', organizationId);
    const invited = listCount(db, 'memberships:invited', organizationId);
    return { total: active + invited, active, invited };
  }
  const shape = shapeOf(organizationId, filter, false);
  const rows = preparedSql(sqliteOf(db), `SELECT m.status AS status, count(*) AS n ${FILTERED} ${shape.where} GROUP BY m.status`).all(
    ...shape.params,
  ) as { status: MembershipStatus; n: number }[];
  const active = rows.find((row) => row.status === 'active')?.n ?? 0;
  const invited = rows.find((row) => row.status === 'invited')?.n ?? 0;
  return { total: active + invited, active, invited };
}

export function listMembershipsOfUser(db: DbOrTx, userId: string, offset: number, limit: number): { rows: MembershipRow[]; total: number } {
  const where = eq(organizationMemberships.userId, userId);
  const rows = db
    .select()
    .from(organizationMemberships)
    .where(where)
    .orderBy(asc(organizationMemberships.createdAt), asc(organizationMemberships.id))
    .limit(limit)
    .offset(offset)
    .all();
  const total = db.select({ n: count() }).from(organizationMemberships).where(where).get()?.n ?? 0;
  return { rows, total };
}

export function countMemberships(db: DbOrTx, organizationId: string): number {
  return listCount(db, 'memberships:active', organizationId) + listCount(db, 'memberships:invited', organizationId);
}

export function insertMembership(db: DbOrTx, row: MembershipRow): void {
  db.insert(organizationMemberships).values(row).run();
}

/** At most a slice of rows (see sql-slices.ts). */
export function insertMemberships(db: DbOrTx, rows: MembershipRow[]): void {
  db.insert(organizationMemberships).values(rows).run();
}

export function setMembershipStatus(db: DbOrTx, id: string, status: MembershipStatus): void {
  updateRows(db, organizationMemberships, { status }, eq(organizationMemberships.id, id));
}

/** Removes the membership and the user's places in the organization's teams. */
export function deleteMembership(db: DbOrTx, membership: MembershipRow): void {
  const teamIds = db.select({ id: teams.id }).from(teams).where(eq(teams.organizationId, membership.organizationId));
  db.delete(teamMembers)
    .where(and(eq(teamMembers.userId, membership.userId), inList(teamMembers.teamId, teamIds)))
    .run();
  db.delete(organizationMemberships).where(eq(organizationMemberships.id, membership.id)).run();
}

/** Active members of the organization's owners team. */
export function activeOwnerIds(db: DbOrTx, organizationId: string): string[] {
  return db
    .select({ id: teamMembers.userId })
    .from(teamMembers)
    .innerJoin(teams, eq(teams.id, teamMembers.teamId))
    .innerJoin(
      organizationMemberships,
      and(eq(organizationMemberships.userId, teamMembers.userId), eq(organizationMemberships.organizationId, organizationId)),
    )
    .where(and(eq(teams.organizationId, organizationId), eq(teams.isOwners, true), eq(organizationMemberships.status, 'active')))
    .all()
    .map((row) => row.id);
}

export function findMembership(db: DbOrTx, organizationId: string, userId: string): MembershipRow | undefined {
  return db
    .select()
    .from(organizationMemberships)
    .where(and(eq(organizationMemberships.organizationId, organizationId), eq(organizationMemberships.userId, userId)))
    .get();
}

export function findMembershipById(db: DbOrTx, id: string): MembershipRow | undefined {
  return db.select().from(organizationMemberships).where(eq(organizationMemberships.id, id)).get();
}
