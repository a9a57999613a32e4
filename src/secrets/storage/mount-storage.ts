import type Database from 'better-sqlite3';
import { and, asc, eq, gte, lt, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../store/store.js';
import { secretEntries } from '../../store/tables.js';
import { prepared } from '../../store/prepared.js';
import { perConnection } from '../../store/per-connection.js';
import { sqliteOf } from '../../store/store.js';
import { entryBarrier, type EntryBarrier } from '../../store/entry-barrier.js';
import { storeGeneration } from '../../store/generation.js';

/** The one entry a statement of this file addresses, by the `mount` and `key` placeholders. */
const atMountKey = () => and(eq(secretEntries.mountUuid, sql.placeholder('mount')), eq(secretEntries.key, sql.placeholder('key')));

/**
 * Reads are the hot path of every engine (a transit encryption makes two), so they are plain
 * SQLite statements returning the one column: through drizzle's prepared query, filling its
 * placeholders and mapping the row cost more than the query (a third of an encryption's storage
 * time in a profile). The value column holds JSON text, which `get` parses as drizzle's JSON
 * column does.
 */
const entryTextByKey = perConnection((sqlite) =>
  sqlite.prepare<[string, string], string>('SELECT value FROM secret_entries WHERE mount_uuid = ? AND key = ?').pluck(),
);

/** Whether a key exists, without reading its value (existence checks run before every write). */
const entryExists = perConnection((sqlite) =>
  sqlite.prepare<[string, string], number>('SELECT 1 FROM secret_entries WHERE mount_uuid = ? AND key = ?').pluck(),
);

/** Writes are on the hot path of issuing and of every write request: also built once. */
const upsertEntry = prepared((db) =>
  db
    .insert(secretEntries)
    .values({ mountUuid: sql.placeholder('mount'), key: sql.placeholder('key'), value: sql.placeholder('value') })
    .onConflictDoUpdate({ target: [secretEntries.mountUuid, secretEntries.key], set: { value: sql`excluded.value` } })
    .prepare(),
);

/** Deleting an entry, and a token's cubbyhole (a key range) at every revocation: built once. */
const deleteEntry = prepared((db) => db.delete(secretEntries).where(atMountKey()).prepare());
const deleteKeyRange = prepared((db) =>
  db
    .delete(secretEntries)
    .where(
      and(
        eq(secretEntries.mountUuid, sql.placeholder('mount')),
        gte(secretEntries.key, sql.placeholder('from')),
        lt(secretEntries.key, sql.placeholder('until')),
      ),
    )
    .prepare(),
);

/**
 * Writes through mount storage on each connection, counted (every write to the entries table goes
 * through this class; a reset or restore moves the store generation instead). A value `getShared`
 * read is served again by the same view only while neither moved.
 */
const entryWrites = perConnection(() => ({ count: 0 }));

/** The end of the key range of `prefix` (exclusive): the prefix with its last character bumped. */
function rangeEnd(prefix: string): string | undefined {
  const last = prefix.codePointAt(prefix.length - 1);
  return last === undefined ? undefined : `${prefix.slice(0, -1)}${String.fromCodePoint(last + 1)}`;
}

/**
 * A mount's private key/value view (the secrets API's "logical storage"): engines see only keys
 * under their own mount, so two mounts of one engine never share data.
 */
export class MountStorage {
  /** Entries are sealed on the way in and opened on the way out (barrier.ts). */
  private readonly barrier: EntryBarrier;
  private readonly sqlite: Database.Database;
  private readonly writes: { count: number };
  /**
   * The last entry `getShared` found, with the write count and store generation it was read at: a
   * request reads its transit key in the existence check and again in the handler, through one
   * view, and the second read is this one unless something was written in between.
   */
  private kept: { key: string; value: unknown; writes: number; generation: number } | undefined;

  constructor(
    private readonly db: DbOrTx,
    private readonly mountUuid: string,
  ) {
    this.sqlite = sqliteOf(db);
    this.barrier = entryBarrier(this.sqlite);
    this.writes = entryWrites(this.sqlite);
  }

  get<T>(key: string): T | undefined {
    const stored = this.stored(key);
    return stored === undefined ? undefined : (this.barrier.open(stored) as T | undefined);
  }

  /**
   * The entry as a frozen value shared by every caller that reads it this way (EntryBarrier's
   * `openShared`): for hot paths that only read it. A caller that changes what it read uses `get`.
   */
  getShared<T>(key: string): T | undefined {
    // Inside a transaction nothing is kept or served: its writes may be rolled back (openShared says more).
    const outside = !this.sqlite.inTransaction;
    const writes = this.writes.count;
    const generation = storeGeneration(this.sqlite);
    const kept = this.kept;
    if (outside && kept !== undefined && kept.key === key && kept.writes === writes && kept.generation === generation) {
      return kept.value as T;
    }
    const stored = this.stored(key);
    if (stored === undefined) return undefined;
    const value = this.barrier.openShared(stored);
    // Absence is never kept: a value that is not there is read again.
    if (outside && value !== undefined) this.kept = { key, value, writes, generation };
    return value as T | undefined;
  }

  /**
   * The entry as stored (sealed), for a caller that keeps what it opened (`openStored`) and must
   * tell whether the entry changed since: a write seals with a fresh IV, so the text changes.
   */
  stored(key: string): unknown {
    const text = entryTextByKey(this.sqlite).get(this.mountUuid, key);
    return text === undefined ? undefined : (JSON.parse(text) as unknown);
  }

  /** `get` of a value `stored` returned. */
  openStored<T>(stored: unknown): T | undefined {
    return stored === undefined ? undefined : (this.barrier.open(stored) as T | undefined);
  }

  has(key: string): boolean {
    return entryExists(this.sqlite).get(this.mountUuid, key) !== undefined;
  }

  /** Returns the entry as stored (what `stored` reads back while it is unchanged). */
  put(key: string, value: unknown): unknown {
    const sealed = this.seal(value);
    this.write(key, sealed);
    return sealed;
  }

  /**
   * `put` in two steps: the value is sealed now and written when the returned function runs. A
   * caller writing several entries in one transaction seals them before it begins: inside one,
   * every seal reads the server key from the store again (server-keys.ts says why).
   */
  sealedPut(key: string, value: unknown): () => void {
    return this.putSealed(key, this.seal(value));
  }

  /** `value` in the form `put` stores it (what `stored` reads back), for `putSealed`. */
  seal(value: unknown): unknown {
    return this.barrier.seal(value);
  }

  /** The write of an entry `seal` made, run when the returned function runs (as `sealedPut`). */
  putSealed(key: string, sealed: unknown): () => void {
    return () => this.write(key, sealed);
  }

  /** Every upsert, counted for the values `getShared` keeps. */
  private write(key: string, sealed: unknown): void {
    upsertEntry(this.db).run({ mount: this.mountUuid, key, value: sealed });
    this.writes.count++;
  }

  delete(key: string): void {
    deleteEntry(this.db).run({ mount: this.mountUuid, key });
    this.writes.count++;
  }

  /**
   * Keys starting with `prefix`, in order: a range on the (mount, key) primary key, so only those
   * keys are read. Text compares bytewise, so `[prefix, prefix with its last character bumped)`
   * holds exactly the keys that start with it (case included).
   */
  keys(prefix: string): string[] {
    const inMount = eq(secretEntries.mountUuid, this.mountUuid);
    const from = gte(secretEntries.key, prefix);
    const end = rangeEnd(prefix);
    const until = end === undefined ? undefined : lt(secretEntries.key, end);
    return this.db
      .select({ key: secretEntries.key })
      .from(secretEntries)
      .where(until ? and(inMount, from, until) : inMount)
      .orderBy(asc(secretEntries.key))
      .all()
      .map((row) => row.key);
  }

  /** Direct children of `prefix` (which ends in `/` or is empty), sorted; folders end in `/`. */
  list(prefix: string): string[] {
    const children = new Set<string>();
    for (const key of this.keys(prefix)) {
      const rest = key.slice(prefix.length);
      const slash = rest.indexOf('/');
      children.add(slash === -1 ? rest : rest.slice(0, slash + 1));
    }
    return [...children].filter((child) => child !== '').sort();
  }

  /** Removes every key under `prefix` (a token's cubbyhole when the token goes): the same key range `keys` reads. */
  deletePrefix(prefix: string): void {
    const until = rangeEnd(prefix);
    if (until === undefined) this.clear();
    else deleteKeyRange(this.db).run({ mount: this.mountUuid, from: prefix, until });
    this.writes.count++;
  }

  /** Removes everything the mount stored (disabling a mount). */
  clear(): void {
    this.db.delete(secretEntries).where(eq(secretEntries.mountUuid, this.mountUuid)).run();
    this.writes.count++;
  }
}
