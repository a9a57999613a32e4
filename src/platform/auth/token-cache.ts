import { perConnection } from '../../store/per-connection.js';
import { ReadCache } from '../../store/read-cache.js';
import type { platformTokens } from '../../store/tables.js';
import type { UserRow } from './principal.js';

/** A platform token's row and, for a user token, its user's (null when there is none). */
export interface TokenAndUser {
  readonly token: typeof platformTokens.$inferSelect;
  readonly user: UserRow | null;
}

/**
 * The token rows (each with its user) that authentication reads on every platform request, kept
 * per store connection by the token presented, so a request with a known token runs neither the
 * SHA-256 nor the statement. Every write to `platform_tokens` or `users` drops them (see
 * store/read-cache.ts), `last-used-at` included (written at most once a minute); expiry is judged
 * on every request against the injectable clock, and suspension from the kept user row.
 */
export const platformTokenCache = perConnection(
  (sqlite) =>
    new ReadCache<TokenAndUser>(sqlite, 'platform_token', ['platform_tokens', 'users'], (entry) =>
      Object.freeze({ token: Object.freeze(entry.token), user: entry.user && Object.freeze(entry.user) }),
    ),
);
