import { eq } from 'drizzle-orm';
import { sha256Hex } from '../../core/crypto.js';
import { ApiError } from '../../core/errors.js';
import type { Clock } from '../../core/clock.js';
import type { Db } from '../../store/store.js';
import { organizations, platformTokens, teams, users } from '../../store/tables.js';
import type { Principal } from './principal.js';

export const UNAUTHORIZED = new ApiError(401, 'a valid API token is required (Authorization: Bearer <token>)');

/** The token in `Authorization: Bearer <token>`, or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1];
}

/**
 * Resolves a bearer token to its principal. A missing, unknown or expired token is a 401, as
 * the real service answers and as `terraform login` relies on to call a token invalid.
 */
export function authenticate(db: Db, clock: Clock, token: string | undefined): Principal {
  if (!token) throw UNAUTHORIZED;
  const row = db.select().from(platformTokens).where(eq(platformTokens.tokenHash, sha256Hex(token))).get();
  if (!row || (row.expiredAt && row.expiredAt.getTime() <= clock.nowMs())) throw UNAUTHORIZED;
  if (row.kind === 'user' && row.userId) {
    const user = db.select().from(users).where(eq(users.id, row.userId)).get();
    if (user) return { kind: 'user', tokenId: row.id, user };
  }
  if (row.kind === 'team' && row.teamId) {
    const team = db.select().from(teams).where(eq(teams.id, row.teamId)).get();
    if (team) return { kind: 'team', tokenId: row.id, team };
  }
  if (row.kind === 'organization' && row.organizationId) {
    const organization = db.select().from(organizations).where(eq(organizations.id, row.organizationId)).get();
    if (organization) return { kind: 'organization', tokenId: row.id, organization };
  }
  throw UNAUTHORIZED;
}
