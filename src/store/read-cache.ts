import type Database from 'better-sqlite3';
import { stopChangeTracking } from './change-tracking.js';
import { StoreDerived } from './generation.js';
import { perConnection } from './per-connection.js';

/** Entries kept per cache unless it says otherwise; past the limit the oldest goes first. */
const ENTRY_LIMIT = 256;

/** The read caches' triggers on a connection, by name: their SQL, to make them again. */
const triggersOf = perConnection(() => new Map<string, string>());

/**
 * Runs `work` (a reset's or a restore's whole-table copy) with the read caches' triggers taken off
 * and puts them back after, whether it succeeded or not. A table with a trigger loses SQLite's two
 * bulk paths, emptying a table at once and copying a table page by page, and calls the trigger's
 * function once per row: a restore of 10,000 workspaces took three times as long. `work` must end
 * by replacing the store's generation when it changed anything (it drops every cache then); when
 * it fails, its transaction rolled back and what the caches hold is still true.
 */
export function withoutReadCacheTriggers<T>(sqlite: Database.Database, work: () => T): T {
  // The restore change tracking's triggers go too, for good: the copy is not recorded (change-tracking.ts).
  stopChangeTracking(sqlite);
  const triggers = triggersOf(sqlite);
  for (const name of triggers.keys()) sqlite.exec(`DROP TRIGGER IF EXISTS temp."${name}"`);
  try {
    return work();
  } finally {
    for (const sql of triggers.values()) sqlite.exec(sql);
  }
}

/**
 * Rows a hot read derives from `tables`, kept per store connection by a key, so a repeated read
 * runs no statement. What keeps it true:
 *
 * - every write to one of `tables` (insert, update, delete, on any path: a repository, a seed, a
 *   foreign-key cascade, raw SQL) fires a temporary trigger on this connection that drops
 *   everything kept: no write path has to remember to tell the cache;
 * - a reset, a snapshot restore or an import bumps the store's generation, which drops it (their
 *   whole-table copies run with the triggers off: `withoutReadCacheTriggers`);
 * - inside a transaction it is neither read nor filled: the transaction may see rows it wrote
 *   and then roll back;
 * - only what was found is kept, never absence, so a row made after a miss is found at once.
 *
 * Kept values are frozen (`freeze`), so a caller that changed one would fail at once instead of
 * changing it for every later request. The triggers live in the connection's `temp` schema: a
 * snapshot, an export and the schema checks read `main` only.
 */
export class ReadCache<V> {
  private readonly entries: StoreDerived<Map<string, V>>;

  /** Whether the triggers are in place; made at the first read outside a transaction. */
  private watching = false;

  constructor(
    private readonly sqlite: Database.Database,
    /** Names the cache's SQL function and triggers (letters and underscores). */
    private readonly name: string,
    private readonly tables: readonly string[],
    private readonly freeze: (value: V) => V,
    private readonly limit = ENTRY_LIMIT,
  ) {
    this.entries = new StoreDerived(sqlite, () => new Map<string, V>());
  }

  /**
   * Creates the function and the triggers. Never inside a transaction: a rollback would take the
   * triggers with it and leave the cache blind to writes. Nothing is kept before they exist.
   */
  private watch(): void {
    const written = `understudy_${this.name}_written`;
    this.sqlite.function(written, { deterministic: false }, () => {
      this.entries.drop();
      return null;
    });
    const triggers = triggersOf(this.sqlite);
    for (const table of this.tables) {
      for (const event of ['INSERT', 'UPDATE', 'DELETE']) {
        const name = `${written}_${table}_${event.toLowerCase()}`;
        const sql = `CREATE TEMP TRIGGER IF NOT EXISTS "${name}" AFTER ${event} ON main."${table}" BEGIN SELECT ${written}(); END`;
        this.sqlite.exec(sql);
        triggers.set(name, sql);
      }
    }
    this.watching = true;
  }

  /**
   * `watch`, unless a statement of the connection is still stepping (a read made while iterating
   * another's rows): better-sqlite3 refuses any other statement then, so this read goes uncached.
   */
  private tryWatch(): boolean {
    try {
      this.watch();
      return true;
    } catch (error) {
      if (error instanceof TypeError && /busy/i.test(error.message)) return false;
      throw error;
    }
  }

  /**
   * The value of `key`, read with `read` when not kept (and kept when found outside a transaction).
   * Undefined only when `read` finds nothing, so a `read` that always finds makes `get` always answer.
   */
  get(key: string, read: () => V): V;
  get(key: string, read: () => V | undefined): V | undefined;
  get(key: string, read: () => V | undefined): V | undefined {
    if (this.sqlite.inTransaction) return read();
    if (!this.watching && !this.tryWatch()) return read();
    const entries = this.entries.get();
    const kept = entries.get(key);
    if (kept !== undefined) return kept;
    const value = read();
    if (value === undefined) return undefined;
    if (entries.size >= this.limit) entries.delete(entries.keys().next().value as string);
    const frozen = this.freeze(value);
    entries.set(key, frozen);
    return frozen;
  }
}

/** Freezes plain data all the way down (rows hold JSON values: arrays and objects), for `ReadCache`'s `freeze`. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value as object)) deepFreeze(member);
  }
  return value;
}
