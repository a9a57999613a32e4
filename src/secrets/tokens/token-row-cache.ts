import type Database from 'better-sqlite3';
import { StoreDerived } from '../../store/generation.js';
import { perConnection } from '../../store/per-connection.js';
import type { TokenEntry } from './token-store.js';

/** Rows kept; past this many the oldest goes first (clients present a handful of tokens). */
const ROW_LIMIT = 256;

/**
 * The token rows every request reads by id (the hash of the value it presents), kept per store
 * connection and generation so the lookup costs no statement. What keeps it true:
 *
 * - every write to the token table goes through a `TokenStore`, which forgets the row it writes
 *   (on any handle, a transaction's included, so a rolled-back write is read again too);
 * - a reset, a snapshot restore or an import replaces the store and bumps its generation;
 * - inside a transaction the cache is neither read nor filled: the transaction may see rows it
 *   wrote and rolls back;
 * - a row is kept when a read finds it, or when the one write that made it has committed (a wrapping
 *   token, `TokenStore.rememberInserted`);
 * - only rows are kept, never absence, so a token made after a miss is found at once; expiry and
 *   used-up tokens are judged on every lookup (`TokenStore.isLive`) against the injectable clock.
 *
 * Kept rows are frozen, so a caller that changed one would fail at once instead of changing it
 * for every later request.
 */
export class TokenRowCache {
  private readonly rows: StoreDerived<Map<string, TokenEntry>>;

  constructor(private readonly sqlite: Database.Database) {
    this.rows = new StoreDerived(sqlite, () => new Map<string, TokenEntry>());
  }

  /** The row of `id`, read with `read` when not kept (and kept when found outside a transaction). */
  get(id: string, read: () => TokenEntry | undefined): TokenEntry | undefined {
    if (this.sqlite.inTransaction) return read();
    const rows = this.rows.get();
    const kept = rows.get(id);
    if (kept !== undefined) return kept;
    const row = read();
    if (row !== undefined) keep(rows, id, row);
    return row;
  }

  /** The row of `id` when kept, without reading it (undefined inside a transaction, as `get` reads then). */
  peek(id: string): TokenEntry | undefined {
    return this.sqlite.inTransaction ? undefined : this.rows.get().get(id);
  }

  /**
   * Keeps `row`, a row just written and committed, as a read would have kept it (never inside a
   * transaction, which may still roll back): for a token presented right after it is made.
   */
  remember(row: TokenEntry): void {
    if (this.sqlite.inTransaction) return;
    const rows = this.rows.get();
    rows.delete(row.id);
    keep(rows, row.id, row);
  }

  /** Called by every write to the row of `id`, before it is written. */
  forget(id: string): void {
    this.rows.get().delete(id);
  }
}

/** Keeps `row` (frozen) under `id`, making room by dropping the oldest kept row. */
function keep(rows: Map<string, TokenEntry>, id: string, row: TokenEntry): void {
  if (rows.size >= ROW_LIMIT) rows.delete(rows.keys().next().value as string);
  rows.set(id, freezeRow(row));
}

function freezeRow(row: TokenEntry): TokenEntry {
  for (const value of [row.policies, row.meta, row.boundCidrs]) if (value) Object.freeze(value);
  return Object.freeze(row);
}

/** The one cache of a connection, shared by every `TokenStore` on it (a transaction's too). */
export const tokenRowCache = perConnection((sqlite) => new TokenRowCache(sqlite));
