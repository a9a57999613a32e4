import { and, asc, count, desc, eq, isNull, type SQL } from 'drizzle-orm';
import { inList } from '../../store/sql-lists.js';
import { containsIgnoringCase } from '../users/repo.js';
import type { DbOrTx } from '../../store/store.js';
import { platformTokens, teams } from '../../store/tables.js';

export type TokenRow = typeof platformTokens.$inferSelect;

export function findToken(db: DbOrTx, id: string): TokenRow | undefined {
  return db.select().from(platformTokens).where(eq(platformTokens.id, id)).get();
}

export function findTokenByHash(db: DbOrTx, tokenHash: string): TokenRow | undefined {
  return db.select().from(platformTokens).where(eq(platformTokens.tokenHash, tokenHash)).get();
}

export function insertToken(db: DbOrTx, row: TokenRow): void {
  db.insert(platformTokens).values(row).run();
}

export function deleteToken(db: DbOrTx, id: string): void {
  db.delete(platformTokens).where(eq(platformTokens.id, id)).run();
}

/** One page of the tokens `where` selects, oldest first, with their total. */
function pageOfTokens(db: DbOrTx, where: SQL | undefined, offset: number, limit: number): { rows: TokenRow[]; total: number } {
  const rows = db
    .select()
    .from(platformTokens)
    .where(where)
    .orderBy(asc(platformTokens.createdAt), asc(platformTokens.id))
    .limit(limit)
    .offset(offset)
    .all();
  const total = db.select({ n: count() }).from(platformTokens).where(where).get()?.n ?? 0;
  return { rows, total };
}

export function listUserTokens(db: DbOrTx, userId: string, offset: number, limit: number): { rows: TokenRow[]; total: number } {
  return pageOfTokens(db, and(eq(platformTokens.kind, 'user'), eq(platformTokens.userId, userId)), offset, limit);
}

/** The token of a team, of an organization, or an organization's audit-trail token (each has at most one). */
export type TokenOwner = { kind: 'team'; teamId: string } | { kind: 'organization' | 'audit-trails'; organizationId: string };

function ownedBy(owner: TokenOwner) {
  return owner.kind === 'team'
    ? // The legacy single team token is the one without a description; described ones are the team's others.
      and(eq(platformTokens.kind, 'team'), eq(platformTokens.teamId, owner.teamId), isNull(platformTokens.description))
    : and(eq(platformTokens.kind, owner.kind), eq(platformTokens.organizationId, owner.organizationId));
}

export function findOwnedToken(db: DbOrTx, owner: TokenOwner): TokenRow | undefined {
  return db.select().from(platformTokens).where(ownedBy(owner)).get();
}

export function deleteOwnedTokens(db: DbOrTx, owner: TokenOwner): number {
  return db.delete(platformTokens).where(ownedBy(owner)).run().changes;
}

export function findTeamTokenByDescription(db: DbOrTx, teamId: string, description: string): TokenRow | undefined {
  return db
    .select()
    .from(platformTokens)
    .where(and(eq(platformTokens.kind, 'team'), eq(platformTokens.teamId, teamId), eq(platformTokens.description, description)))
    .get();
}

export interface TeamTokenFilter {
  /** Only these teams' tokens. */
  teamIds: readonly string[];
  /** `q`: part of the team name. */
  teamName?: string;
  /** `sort`: `created-at` (default) or `expired-at`, `-` for descending. */
  sort: { column: 'created-at' | 'expired-at'; descending: boolean };
}

/** One page of team tokens of the given teams, and the total. */
export function listTeamTokens(db: DbOrTx, filter: TeamTokenFilter, offset: number, limit: number): { rows: TokenRow[]; total: number } {
  if (filter.teamIds.length === 0) return { rows: [], total: 0 };
  const named = filter.teamName
    ? db
        .select({ id: teams.id })
        .from(teams)
        .where(and(inList(teams.id, [...filter.teamIds]), containsIgnoringCase(teams.name, filter.teamName)))
    : undefined;
  const where = and(eq(platformTokens.kind, 'team'), inList(platformTokens.teamId, named ?? [...filter.teamIds]));
  const column = filter.sort.column === 'expired-at' ? platformTokens.expiredAt : platformTokens.createdAt;
  const order = filter.sort.descending ? desc(column) : asc(column);
  const rows = db.select().from(platformTokens).where(where).orderBy(order, asc(platformTokens.id)).limit(limit).offset(offset).all();
  const total = db.select({ n: count() }).from(platformTokens).where(where).get()?.n ?? 0;
  return { rows, total };
}

export function listTokensOfTeam(db: DbOrTx, teamId: string, offset: number, limit: number): { rows: TokenRow[]; total: number } {
  return pageOfTokens(db, and(eq(platformTokens.kind, 'team'), eq(platformTokens.teamId, teamId)), offset, limit);
}

export function teamsOfOrganization(db: DbOrTx, organizationId: string): (typeof teams.$inferSelect)[] {
  return db.select().from(teams).where(eq(teams.organizationId, organizationId)).all();
}
