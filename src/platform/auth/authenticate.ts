import { eq, sql } from 'drizzle-orm';
import { sha256Hex } from '../../core/crypto.js';
import { ApiError } from '../../core/errors.js';
import type { Clock } from '../../core/clock.js';
import { prepared, preparedSql } from '../../store/prepared.js';
import { rowReader } from '../row-reader.js';
import { sqliteOf, type Db } from '../../store/store.js';
import { organizations, platformTokens, teams, users } from '../../store/tables.js';
import type { Principal, UserRow } from './principal.js';
import { platformTokenCache, type TokenAndUser } from './token-cache.js';

/** `last-used-at` is written at most this often per token, so authenticating stays a read. */
export const LAST_USED_RESOLUTION_MS = 60_000;

type TokenRow = typeof platformTokens.$inferSelect;

export const UNAUTHORIZED = new ApiError(401, 'a valid API token is required (Authorization: Bearer <token>)');

// Every platform request runs these, so they are compiled once (see store/prepared.ts).
const tokenByHash = prepared((db) =>
  db
    .select()
    .from(platformTokens)
    .where(eq(platformTokens.tokenHash, sql.placeholder('hash')))
    .prepare(),
);
// The token and, for a user token, its user in one statement: the most common principal costs
// one read. Raw, compiled once per connection, rows mapped by row-reader.ts (every platform
// request runs it).
const tokenRows = rowReader(platformTokens);
const userRows = rowReader(users);
const TOKEN_AND_USER_BY_HASH =
  `SELECT ${tokenRows.columns('t')}, ${userRows.columns('u')} FROM platform_tokens t ` +
  'LEFT JOIN users u ON u.id = t.user_id WHERE t.token_hash = ?';

function tokenAndUserByHash(db: Db, hash: string): TokenAndUser | undefined {
  const values = preparedSql(sqliteOf(db), TOKEN_AND_USER_BY_HASH).raw().get(hash) as unknown[] | undefined;
  if (values === undefined) return undefined;
  // No user row (the left join found none): its id, like every column, is null.
  const user = values[tokenRows.width] === null ? null : userRows.read(values, tokenRows.width);
  return { token: tokenRows.read(values), user };
}

/** The token's row and user, from the connection's cache when kept there (token-cache.ts). */
function tokenAndUser(db: Db, token: string): TokenAndUser | undefined {
  return platformTokenCache(sqliteOf(db)).get(token, () => tokenAndUserByHash(db, sha256Hex(token)));
}

const teamById = prepared((db) =>
  db
    .select()
    .from(teams)
    .where(eq(teams.id, sql.placeholder('id')))
    .prepare(),
);
const organizationById = prepared((db) =>
  db
    .select()
    .from(organizations)
    .where(eq(organizations.id, sql.placeholder('id')))
    .prepare(),
);

/** The token in `Authorization: Bearer <token>`, or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1];
}

/** Whether `token` is a live token (the rate limiter's test: only those get a budget of their own). */
export function isLiveToken(db: Db, clock: Clock, token: string): boolean {
  const row = tokenAndUser(db, token)?.token;
  return row !== undefined && !(row.expiredAt && row.expiredAt.getTime() <= clock.nowMs());
}

/**
 * Resolves a bearer token to its principal. A missing, unknown or expired token is a 401, as
 * the real service answers and as `terraform login` relies on to call a token invalid.
 */
export function authenticate(db: Db, clock: Clock, token: string | undefined): Principal {
  if (!token) throw UNAUTHORIZED;
  const found = tokenAndUser(db, token);
  const now = clock.nowMs();
  const row = found?.token;
  if (!row || (row.expiredAt && row.expiredAt.getTime() <= now)) throw UNAUTHORIZED;
  const principal = principalOf(db, row, found.user);
  if (!principal) throw UNAUTHORIZED;
  recordUse(db, row, now);
  return principal;
}

/** Who a live token speaks for; undefined when its owner is gone or is a suspended user. */
function principalOf(db: Db, row: TokenRow, user: UserRow | null): Principal | undefined {
  if (row.kind === 'user' && row.userId) {
    // A suspended user's tokens stop working until a site administrator unsuspends the user.
    if (user && !user.isSuspended) return { kind: 'user', tokenId: row.id, user };
  }
  if (row.kind === 'team' && row.teamId) {
    const team = teamById(db).get({ id: row.teamId });
    if (team) return { kind: 'team', tokenId: row.id, team };
  }
  if (row.kind === 'organization' && row.organizationId) {
    const organization = organizationById(db).get({ id: row.organizationId });
    if (organization) return { kind: 'organization', tokenId: row.id, organization };
  }
  return undefined;
}

/**
 * The organization whose audit trail a token reads: its audit-trail token or its organization
 * token (the real service takes both; the Go client's own test reads the feed with the latter);
 * undefined for any other, unknown or expired token. Audit-trail tokens authenticate nowhere else
 * (`authenticate` refuses them).
 */
export function auditTrailOrganization(db: Db, clock: Clock, token: string | undefined): string | undefined {
  if (!token) return undefined;
  const row = tokenByHash(db).get({ hash: sha256Hex(token) });
  const now = clock.nowMs();
  const readsTheTrail = row?.kind === 'audit-trails' || row?.kind === 'organization';
  if (!row || !readsTheTrail || !row.organizationId || (row.expiredAt && row.expiredAt.getTime() <= now)) return undefined;
  recordUse(db, row, now);
  return row.organizationId;
}

function recordUse(db: Db, row: Pick<typeof platformTokens.$inferSelect, 'id' | 'lastUsedAt'>, now: number): void {
  if (row.lastUsedAt && now - row.lastUsedAt.getTime() < LAST_USED_RESOLUTION_MS) return;
  db.update(platformTokens)
    .set({ lastUsedAt: new Date(now) })
    .where(eq(platformTokens.id, row.id))
    .run();
}
