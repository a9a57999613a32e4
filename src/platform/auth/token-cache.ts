import type Database from 'better-sqlite3';
import { StoreDerived } from '../../store/generation.js';
import { perConnection } from '../../store/per-connection.js';
import type { platformTokens } from '../../store/tables.js';
import type { UserRow } from './principal.js';

/** A platform token's row and, for a user token, its user's (null when there is none). */
export interface TokenAndUser {
  readonly token: typeof platformTokens.$inferSelect;
  readonly user: UserRow | null;
}

/** Tokens kept; past this many the oldest goes first (clients present a handful of tokens). */
const ROW_LIMIT = 256;

/** The SQL function the triggers below call; every write to a watched table drops the cache. */
const WRITTEN = 'understudy_platform_token_written';

/** The tables a kept entry is read from. */
const WATCHED = ['platform_tokens', 'users'] as const;

/**
 * The token rows (each with its user) that authentication reads on every platform request, kept
 * per store connection by the token presented, so a request with a known token runs neither the
 * SHA-256 nor the statement. What keeps it true:
 *
 * - every write to `platform_tokens` or `users` (insert, update, delete, on any path: a repository,
 *   a seed, a reset, a restore, a foreign-key cascade) fires a temporary trigger on this
 *   connection that drops everything kept; triggers see the writes, so no write path has to
 *   remember to tell the cache, and `last-used-at` (written at most once a minute) is read anew;
 * - a reset, a snapshot restore or an import bumps the store's generation, which drops it too;
 * - inside a transaction it is neither read nor filled: the transaction may see rows it wrote
 *   and then roll back;
 * - only rows are kept, never absence, so a token made after a miss is found at once; expiry is
 *   judged on every request against the injectable clock, and suspension from the kept user row.
 *
 * Kept rows are frozen, so a caller that changed one would fail at once instead of changing it
 * for every later request. The temporary triggers live in the connection's `temp` schema: a
 * snapshot, an export and the schema checks read `main` only.
 */
export class PlatformTokenCache {
  private readonly rows: StoreDerived<Map<string, TokenAndUser>>;

  constructor(private readonly sqlite: Database.Database) {
    this.rows = new StoreDerived(sqlite, () => new Map<string, TokenAndUser>());
    sqlite.function(WRITTEN, { deterministic: false }, () => {
      this.rows.drop();
      return null;
    });
    for (const table of WATCHED) {
      for (const event of ['INSERT', 'UPDATE', 'DELETE']) {
        sqlite.exec(
          `CREATE TEMP TRIGGER IF NOT EXISTS "${WRITTEN}_${table}_${event.toLowerCase()}" ` +
            `AFTER ${event} ON main."${table}" BEGIN SELECT ${WRITTEN}(); END`,
        );
      }
    }
  }

  /** The entry of `token`, read with `read` when not kept (and kept when found outside a transaction). */
  get(token: string, read: () => TokenAndUser | undefined): TokenAndUser | undefined {
    if (this.sqlite.inTransaction) return read();
    const rows = this.rows.get();
    const kept = rows.get(token);
    if (kept !== undefined) return kept;
    const entry = read();
    if (entry === undefined) return undefined;
    if (rows.size >= ROW_LIMIT) rows.delete(rows.keys().next().value as string);
    const frozen = Object.freeze({ token: Object.freeze(entry.token), user: entry.user && Object.freeze(entry.user) });
    rows.set(token, frozen);
    return frozen;
  }
}

/** The one cache of a connection, shared by every handle on it (a transaction's too). */
export const platformTokenCache = perConnection((sqlite) => new PlatformTokenCache(sqlite));
