import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  openSync,
  readSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import Database from 'better-sqlite3';
import type { ControllableClock } from '../../core/clock.js';
import { spoolToFile } from '../../core/upload-spool.js';
import { changedRowCounts, CHANGED_ROWS, clearChangedRows, isTrackingChanges, startChangeTracking } from '../../store/change-tracking.js';
import { markStoreReplaced, storeGeneration } from '../../store/generation.js';
import { withoutReadCacheTriggers } from '../../store/read-cache.js';
import { unreadableRow } from '../../store/row-check.js';
import { countClearHiddenValues, placeUnplacedWorkspaces, sealHiddenValues } from '../../store/upgrades.js';
import { openStore, type Store } from '../../store/store.js';
import { HarnessError } from './errors.js';
import { contentMark, filledTables, insertableColumns, RestorePlans, schemaOf } from './restore-plan.js';
import { quotedIdentifier as quoted } from '../../store/sql-identifier.js';

export interface SnapshotInfo {
  name: string;
  'size-bytes': number;
  'created-at': string;
  /** The emulated clock when the snapshot was taken (null for an imported store file). */
  clock: string | null;
}

interface Sidecar {
  'created-at': string;
  clock: string | null;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
const SUFFIX = '.sqlite';

/**
 * A file of its own for a snapshot being written: two takes of one name at once (each an online
 * backup that yields between steps) once shared a pid-and-millisecond name, and one's cleanup
 * removed the file under the other's backup (a disk I/O error, answered with a 500).
 */
const partialFileOf = (file: string) => `${file}.${process.pid}.${randomUUID()}.partial`;

/** How much of a snapshot file a restore maps into memory (SQLite maps no more than the file holds). */
const SNAPSHOT_MAP_BYTES = 1024 * 1024 * 1024;

/** A copy of the database as one self-contained file (no -wal beside it), ready to export. */
function asSingleFile(file: string): void {
  const copy = new Database(file);
  try {
    copy.pragma('journal_mode = DELETE');
  } finally {
    copy.close();
  }
}

/**
 * A copy of a store file (at `copyAt()`) holding no hidden value in clear anywhere, when the file holds
 * some: rows an older version wrote in clear are sealed (under the file's own at-rest key, which a
 * restore brings along with the rows), and the copy is rebuilt (VACUUM), so neither the replaced
 * values nor what an older server left in its free pages stays in it. Sealing in place would not
 * do: SQLite's secure_delete zeroes a dropped cell, but a page rebalanced into an interior page
 * keeps the old bytes in its unused space. The copy's rollback journal is kept in memory, so no
 * journal file ever holds the clear pages. `always`: rebuild a file with free pages even when no
 * row is in clear (an import, whose free pages are another server's). Returns the copy's path
 * (`copyAt()`), or null, making no copy, when there is nothing to do or the file cannot be read
 * (the caller's own checks refuse it).
 */
function sealedCopy(file: string, copyAt: () => string, always: boolean): string | null {
  let needed: boolean;
  try {
    const check = new Database(file, { fileMustExist: true });
    try {
      const free = check.pragma('freelist_count', { simple: true }) as number;
      needed = countClearHiddenValues(check) > 0 || (always && free > 0);
      // Read only for a file that would be rewritten: the row check scans every JSON column.
      if (needed && unreadableRow(check, 'main') !== null) return null;
    } finally {
      check.close();
    }
  } catch {
    return null;
  }
  if (!needed) return null;
  const copy = copyAt();
  try {
    copyFileSync(file, copy);
    chmodSync(copy, 0o600);
    const sqlite = new Database(copy);
    try {
      sqlite.pragma('journal_mode = MEMORY');
      sqlite.transaction(() => sealHiddenValues(sqlite))();
      sqlite.exec('VACUUM');
    } finally {
      sqlite.close();
    }
    return copy;
  } catch (error) {
    rmSync(copy, { force: true });
    throw error;
  }
}

/**
 * The most rows written since the last restore that a restore puts back one by one; past it, a
 * whole copy of every table (SQLite's page-order bulk path) is cheaper. Measured on a world of
 * 10,000 workspaces and 10,000 secrets: a row put back costs about 11 µs, one of a table with
 * triggers (name index, list counts) about twice that (`TRIGGERED_ROW_WEIGHT`); a whole copy
 * about 1.5 µs per row of the snapshot, plus a few milliseconds.
 */
const rowsPutBackAtMost = (snapshotRows: number) => 250 + snapshotRows / 8;
const TRIGGERED_ROW_WEIGHT = 2;

/** The most whole copies in a row that record no writes after a record went unused (see `Snapshots.skips`). */
const MOST_SKIPS = 8;

/** A restore of the changed rows found it cannot be one (its transaction rolled back): every table is copied instead. */
class CopyEveryTable extends Error {}

/**
 * What moves when a store's rows change without the change tracking's triggers seeing it: a
 * reset, a restore or a load (the generation), another connection's commit (`data_version`), a
 * schema change (`schema_version`).
 */
function untrackedMark(sqlite: Database.Database): string {
  const dataVersion = sqlite.pragma('main.data_version', { simple: true }) as number;
  const schemaVersion = sqlite.pragma('main.schema_version', { simple: true }) as number;
  return `${storeGeneration(sqlite)}:${dataVersion}:${schemaVersion}`;
}

/** How many rows the attached snapshot's `tables` hold together. */
function snapshotRows(sqlite: Database.Database, tables: Set<string>): number {
  if (tables.size === 0) return 0;
  const counts = [...tables].map((table) => `(SELECT count(*) FROM snapshot.${quoted(table)})`);
  return sqlite
    .prepare(`SELECT ${counts.join(' + ')}`)
    .pluck()
    .get() as number;
}

/** What a restore learned of a snapshot file it found sealed and readable (see `Snapshots.checked`). */
interface KnownSnapshot {
  /** `fileStatus` of the file then: any other status and the file is read as new. */
  status: string;
  schema: string;
  /** Its tables that hold rows. */
  filled: Set<string>;
  /** How many rows its tables hold together, once a restore of changed rows counted them. */
  rows?: number;
}

/** What changes when a file is written or replaced: its inode, size and change time. */
function fileStatus(file: string): string {
  const stat = statSync(file, { bigint: true });
  return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
}

/** `sealedCopy` of a file that then takes the file's place; a crash on the way leaves the file as it was. */
function sealInPlace(file: string, always: boolean): void {
  const partial = partialFileOf(file);
  try {
    if (sealedCopy(file, () => partial, always) !== null) renameSync(partial, file);
  } finally {
    rmSync(partial, { force: true });
  }
}

/**
 * Named copies of the whole store. Taking one uses SQLite's online backup, so it is consistent
 * while requests keep writing; restoring copies every table back in one transaction, so a failed
 * restore leaves the world as it was. A snapshot is a store file (plus a small JSON file with
 * the emulated time it was taken at), so it can be exported, imported, or started from.
 */
export class Snapshots {
  private made: string | undefined;
  /**
   * Snapshot files a restore found sealed and readable, with what their file status was then: a
   * file restored again unchanged (the usual test suite restores one snapshot before every test)
   * is not read through twice more for rows in clear and rows this server cannot read.
   */
  private readonly checked = new Map<string, KnownSnapshot>();
  private readonly plans: RestorePlans;
  /**
   * The last restore that succeeded: which file (and its status then) and the store's content mark
   * right after it. While the mark has not moved, the store holds exactly what that restore left,
   * so restoring the same unchanged file again copies nothing (the test suites' restore before
   * every test, after a test that only read).
   */
  private lastRestore: { file: string; status: string; mark: string; untracked: string } | undefined;
  /**
   * Making the change tracking's triggers and dropping them costs a whole copy several
   * milliseconds. Each record that went unused (too many rows written, a reset) doubles how many
   * whole copies after it start none (`left`: how many are), up to `MOST_SKIPS`; a record
   * used starts over. Restores of changing snapshots, or after many writes, so pay it rarely.
   */
  private skips = { next: 0, left: 0 };

  constructor(
    private readonly store: Store,
    private readonly clock: ControllableClock,
    /** Where snapshots live; null: a temporary directory, removed with the server. */
    private readonly configured: string | null,
    /** Everything kept in memory about the store is dropped after a restore. */
    private readonly afterRestore: () => void,
    /** The largest store file an import takes (UNDERSTUDY_SNAPSHOT_IMPORT_LIMIT_MB). */
    readonly importLimitBytes: number,
  ) {
    this.plans = new RestorePlans(store.sqlite);
  }

  get directory(): string {
    if (this.configured !== null) {
      if (!existsSync(this.configured)) mkdirSync(this.configured, { recursive: true, mode: 0o700 });
      return this.configured;
    }
    this.made ??= mkdtempSync(join(tmpdir(), 'understudy-snapshots-'));
    return this.made;
  }

  private fileOf(name: string): string {
    if (!NAME.test(name))
      throw new HarnessError(400, 'a snapshot name is 1 to 100 letters, digits, ".", "_" or "-", starting with a letter or digit');
    return join(this.directory, `${name}${SUFFIX}`);
  }

  /** The file of an existing snapshot, or a 404. */
  existing(name: string): string {
    const file = this.fileOf(name);
    if (!existsSync(file)) throw new HarnessError(404, `no snapshot named ${JSON.stringify(name)}`);
    return file;
  }

  async create(name: string, replace: boolean): Promise<SnapshotInfo> {
    const file = this.fileOf(name);
    if (!replace && existsSync(file))
      throw new HarnessError(409, `a snapshot named ${JSON.stringify(name)} exists; send "replace": true to overwrite it`);
    const sidecar: Sidecar = { 'created-at': new Date().toISOString(), clock: this.clock.now().toISOString() };
    const partial = partialFileOf(file);
    try {
      await this.store.sqlite.backup(partial);
      // A copy of the store: as private as the store (store.ts).
      chmodSync(partial, 0o600);
      asSingleFile(partial);
      writeFileSync(`${file}.json`, JSON.stringify(sidecar), { mode: 0o600 });
      renameSync(partial, file);
    } finally {
      rmSync(partial, { force: true });
    }
    return this.info(name);
  }

  info(name: string): SnapshotInfo {
    const file = this.existing(name);
    let sidecar: Partial<Sidecar> = {};
    try {
      sidecar = JSON.parse(readFileSync(`${file}.json`, 'utf8')) as Sidecar;
    } catch {
      // An imported or hand-copied store file has no sidecar.
    }
    const stat = statSync(file);
    return { name, 'size-bytes': stat.size, 'created-at': sidecar['created-at'] ?? stat.mtime.toISOString(), clock: sidecar.clock ?? null };
  }

  list(): SnapshotInfo[] {
    if (this.configured === null && this.made === undefined) return [];
    return readdirSync(this.directory)
      .filter((entry) => entry.endsWith(SUFFIX) && NAME.test(entry.slice(0, -SUFFIX.length)))
      .map((entry) => this.info(entry.slice(0, -SUFFIX.length)))
      .sort((a, b) => a['created-at'].localeCompare(b['created-at']) || a.name.localeCompare(b.name));
  }

  remove(name: string): void {
    const file = this.existing(name);
    rmSync(file);
    rmSync(`${file}.json`, { force: true });
  }

  /**
   * Replaces the world with the snapshot's, in one transaction. Triggers (list counts, full-text
   * indexes) are dropped for the copy and put back before it commits, so the copied counts are not
   * counted twice; the full-text indexes are rebuilt from the copied rows. The emulated clock stays where it is
   * unless `restoreClock` asks for the snapshot's time. Restoring the file the last restore copied,
   * unchanged, into a store in which no row changed since copies nothing (`lastRestore`).
   */
  restore(name: string, restoreClock: boolean): { 'duration-ms': number; clock: string } {
    const file = this.existing(name);
    const clockAt = restoreClock ? this.info(name).clock : null;
    if (restoreClock && clockAt === null)
      throw new HarnessError(400, 'this snapshot does not record the emulated time; restore it without "clock"');
    const started = performance.now();
    const checked = this.checked.get(file);
    const known = checked?.status === fileStatus(file) ? checked : undefined;
    // A snapshot an older version left here holds hidden values in clear: sealed in the file
    // first, so no clear value reaches the store (or its WAL) and the snapshot keeps none either.
    if (known === undefined) sealInPlace(file, false);
    const last = this.lastRestore;
    this.lastRestore = undefined;
    const { sqlite } = this.store;
    const again = known !== undefined && last?.file === file && last.status === known.status ? last : undefined;
    const tracked = isTrackingChanges(sqlite);
    // Nothing to copy: what is kept in memory about the store is still dropped, as after a copy.
    if (again?.mark === contentMark(sqlite)) markStoreReplaced(sqlite);
    else if (
      known !== undefined &&
      tracked &&
      again?.untracked === untrackedMark(sqlite) &&
      this.readable(() => this.copyChangedRows(file, known), JSON.stringify(name))
    ) {
      // Only the rows written since the last restore were copied back.
      this.skips = { next: 0, left: 0 };
    } else {
      const learned = this.readable(() => this.copyIn(file, JSON.stringify(name), known), JSON.stringify(name));
      this.checked.set(file, { status: fileStatus(file), ...learned });
      // Every row written from now on is recorded, for the next restore of this snapshot, when the
      // snapshot is being restored again (a test suite's restore before each test), unless records
      // went unused lately (`skips`).
      if (tracked) {
        const next = Math.min(Math.max(1, this.skips.next * 2), MOST_SKIPS);
        this.skips = { next, left: next };
      } else if (this.skips.left > 0) this.skips.left -= 1;
      else {
        const plan = this.plans.get();
        if (plan.rowidsKept && again !== undefined) startChangeTracking(sqlite, plan.rows);
      }
    }
    if (clockAt !== null) this.clock.set(new Date(clockAt), true);
    this.afterRestore();
    // After `afterRestore`, which writes the clock's offset: the same write follows a copy-free restore.
    this.lastRestore = { file, status: fileStatus(file), mark: contentMark(sqlite), untracked: untrackedMark(sqlite) };
    return { 'duration-ms': Math.round((performance.now() - started) * 100) / 100, clock: this.clock.now().toISOString() };
  }

  /**
   * Replaces the world with a store file's (a snapshot, an export), in one transaction; what the
   * server keeps in memory is the caller's to forget. `what` names the file in the error.
   */
  load(file: string, what: string): void {
    // A store file written before sealing (a seed, which is not rewritten) is copied in from a
    // sealed copy, so no clear value reaches the store or its WAL.
    let sealed: string | null = null;
    try {
      sealed = sealedCopy(file, () => partialFileOf(join(this.directory, 'sealed')), false);
      this.readable(() => this.copyIn(sealed ?? file, what, undefined), what);
    } finally {
      if (sealed !== null) rmSync(sealed, { force: true });
    }
  }

  /** Runs a copy; SQLite's refusal of the file becomes a 409 (the transaction rolled back: the world is as it was). */
  private readable<T>(copy: () => T, what: string): T {
    try {
      return copy();
    } catch (error) {
      if (error instanceof HarnessError || !(error instanceof Database.SqliteError)) throw error;
      throw new HarnessError(409, `the snapshot ${what} cannot be read (${error.message}); nothing was changed`);
    }
  }

  /**
   * `known`: what a restore learned of this file, found sealed and readable and unchanged since; its
   * rows are neither checked nor looked through for values in clear again, and its schema and which
   * of its tables hold rows are not read again. Returns what it learned of the file.
   */
  private copyIn(file: string, what: string, known: Omit<KnownSnapshot, 'status'> | undefined): Omit<KnownSnapshot, 'status'> {
    const { sqlite } = this.store;
    sqlite.prepare('ATTACH DATABASE ? AS snapshot').run(file);
    try {
      // A restore reads every page of the snapshot once: through a memory map, SQLite reads each in
      // place rather than with a read() call and a copy, which takes about a tenth off a restore's
      // CPU time. A snapshot file is only ever replaced by a rename, never truncated under a reader.
      sqlite.pragma(`snapshot.mmap_size = ${SNAPSHOT_MAP_BYTES}`);
      const plan = this.plans.get();
      const schema = known?.schema ?? schemaOf(sqlite, 'snapshot');
      if (schema !== plan.schema)
        throw new HarnessError(409, 'the snapshot was made with a different schema; import it to bring it up to date');
      // Checked before anything is replaced: a bad row would be derived state's 500 after the restore.
      const unreadable = known ? null : unreadableRow(sqlite, 'snapshot');
      if (unreadable !== null)
        throw new HarnessError(409, `the snapshot ${what} holds a row this server cannot read (${unreadable}); nothing was changed`);
      const { triggers, indexes } = plan;
      const filled = known?.filled ?? filledTables(sqlite, 'snapshot', plan.rows);
      let sealed = 0;
      sqlite.pragma('foreign_keys = OFF');
      try {
        // The read caches' triggers would make every copy below row by row (read-cache.ts says why).
        withoutReadCacheTriggers(sqlite, () =>
          sqlite.transaction(() => {
            // Most tables are empty on both sides: a table is emptied only when it holds rows, and filled only from rows.
            const present = filledTables(sqlite, 'main', plan.rows);
            for (const trigger of triggers) sqlite.exec(`DROP TRIGGER main.${quoted(trigger.name)}`);
            for (const index of indexes) sqlite.exec(`DROP TABLE main.${quoted(index.name)}`);
            for (const index of indexes) sqlite.exec(index.sql);
            const copy = (table: string, empty = true, fill = true) => {
              // Emptied first, so SQLite copies the table's pages and its indexes' in order rather than row by row.
              if (empty) sqlite.exec(`DELETE FROM main.${quoted(table)}`);
              if (fill) sqlite.exec(`INSERT INTO main.${quoted(table)} SELECT * FROM snapshot.${quoted(table)}`);
            };
            for (const table of plan.rows) copy(table, present.has(table), filled.has(table));
            // SQLite's defensive mode keeps ordinary statements off shadow tables; these are copied whole
            // (the indexes made anew above hold rows of their own already).
            sqlite.unsafeMode(true);
            try {
              for (const table of plan.shadows) copy(table);
            } finally {
              sqlite.unsafeMode(false);
            }
            // A snapshot of the same schema taken before sealing holds hidden values in clear
            // (a restore has sealed its file already; a store file given as the seed is not rewritten).
            if (!known) sealed = sealHiddenValues(sqlite);
            // And workspaces stored without a project (before upgrade 5) get their default one.
            placeUnplacedWorkspaces(sqlite);
            for (const trigger of triggers) sqlite.exec(trigger.sql);
          })(),
        );
        this.plans.restored(plan);
        markStoreReplaced(sqlite);
        // A large copy spills pages to the WAL before the values on them are sealed: the WAL is
        // emptied, so only the sealed pages stay (in the database file).
        if (sealed > 0) sqlite.pragma('wal_checkpoint(TRUNCATE)');
      } finally {
        sqlite.pragma('foreign_keys = ON');
      }
      return { schema, filled };
    } finally {
      sqlite.prepare('DETACH DATABASE snapshot').run();
    }
  }

  /**
   * Puts back only the rows written since the last restore of this snapshot (the change tracking
   * recorded them), when the snapshot file and the store are otherwise just as that restore left
   * them; one transaction, like a whole copy. Rows are matched by rowid (a whole copy keeps the
   * snapshot's, `RestorePlan.rowidsKept`). The store's own triggers stay on: putting back a
   * workspace row updates the list counts and the name index as any write does, and the counts'
   * rows, written by those triggers, are put back after, from the snapshot. Returns false, having
   * changed nothing, when a whole copy is due instead: too many rows written, or a check below failed.
   */
  private copyChangedRows(file: string, known: KnownSnapshot): boolean {
    const { sqlite } = this.store;
    const plan = this.plans.get();
    if (known.schema !== plan.schema) return false; // the whole copy refuses it
    const changed = changedRowCounts(sqlite);
    sqlite.prepare('ATTACH DATABASE ? AS snapshot').run(file);
    try {
      known.rows ??= snapshotRows(sqlite, known.filled);
      let weight = 0;
      for (const [table, count] of changed) weight += plan.triggered.has(table) ? count * TRIGGERED_ROW_WEIGHT : count;
      if (weight > rowsPutBackAtMost(known.rows)) return false;
      sqlite.pragma('foreign_keys = OFF');
      try {
        sqlite.transaction(() => {
          const rowids = `SELECT rid FROM ${CHANGED_ROWS} WHERE tbl = ?`;
          const copyRows = (table: string) => {
            const columns = insertableColumns(sqlite, plan, table).map(quoted).join(', ');
            const name = quoted(table);
            sqlite.prepare(`DELETE FROM main.${name} WHERE rowid IN (${rowids})`).run(table);
            const fromSnapshot = `SELECT rowid, ${columns} FROM snapshot.${name} WHERE rowid IN (${rowids})`;
            sqlite.prepare(`INSERT INTO main.${name} (rowid, ${columns}) ${fromSnapshot}`).run(table);
          };
          const triggered = [...changed.keys()].filter((table) => plan.triggered.has(table));
          for (const table of triggered) copyRows(table);
          // What their triggers wrote is recorded now too; it is copied back only if no trigger is on it.
          const written = changedRowCounts(sqlite);
          if (triggered.some((table) => written.get(table) !== changed.get(table))) throw new CopyEveryTable();
          for (const table of written.keys()) if (!plan.triggered.has(table)) copyRows(table);
          // Every row written was put back, and the rest are the snapshot's, but for rows a REPLACE
          // conflict deleted without a trigger seeing it: a table with fewer rows than the snapshot's lost one.
          const count = (schema: string, table: string) =>
            sqlite
              .prepare(`SELECT count(*) FROM ${schema}.${quoted(table)}`)
              .pluck()
              .get();
          if ([...written.keys()].some((table) => count('main', table) !== count('snapshot', table))) throw new CopyEveryTable();
          // Only a workspace row put back can lack its project (as a whole copy's could).
          if (written.has('workspaces')) placeUnplacedWorkspaces(sqlite);
          clearChangedRows(sqlite);
        })();
      } catch (error) {
        if (error instanceof CopyEveryTable) return false;
        throw error;
      } finally {
        sqlite.pragma('foreign_keys = ON');
      }
      markStoreReplaced(sqlite);
      return true;
    } finally {
      sqlite.prepare('DETACH DATABASE snapshot').run();
    }
  }

  /** The answer to an import body over the limit: nothing of it is kept. */
  tooLarge(): HarnessError {
    const mib = this.importLimitBytes / (1024 * 1024);
    return new HarnessError(
      413,
      `the store file is larger than the import limit of ${mib} MiB (UNDERSTUDY_SNAPSHOT_IMPORT_LIMIT_MB); nothing was stored`,
    );
  }

  /**
   * Stores an uploaded store file as a snapshot. The body goes to a file beside the snapshots as
   * it arrives (a 300 MB body once took 600 MB of memory when it was collected first), and is
   * refused with a 413 the moment it passes the import limit. The file is then opened as a store,
   * which brings an older file's schema up to date and refuses what is not a store of this kind.
   * Whatever fails, the partial file goes and the snapshots stay as they were.
   */
  async importFile(name: string, body: Readable, replace: boolean): Promise<SnapshotInfo> {
    const file = this.fileOf(name);
    const refuseTaken = () => {
      if (!replace && existsSync(file))
        throw new HarnessError(409, `a snapshot named ${JSON.stringify(name)} exists; add ?replace=true to overwrite it`);
    };
    refuseTaken();
    const partial = partialFileOf(file);
    try {
      const size = await spoolToFile(body, partial, this.importLimitBytes, () => this.tooLarge());
      if (size === 0) throw new HarnessError(400, 'the body must be the store file');
      let imported: Store | undefined;
      try {
        imported = openStore(partial);
        const matches = schemaOf(imported.sqlite, 'main') === schemaOf(this.store.sqlite, 'main');
        if (!matches) throw new HarnessError(400, 'the file is a store of a different (newer?) schema than this server');
        const unreadable = unreadableRow(imported.sqlite, 'main');
        if (unreadable !== null) throw new HarnessError(400, `the file holds a row this server cannot read: ${unreadable}`);
      } catch (error) {
        if (error instanceof HarnessError) throw error;
        throw new HarnessError(400, `the file is not an understudy store: ${(error as Error).message}`);
      } finally {
        imported?.close();
      }
      asSingleFile(partial);
      // What the upgrade sealed and whatever the other server left in its free pages leave the file.
      sealInPlace(partial, true);
      // The upload took a while: another request may have taken the name meanwhile.
      refuseTaken();
      rmSync(`${file}.json`, { force: true });
      renameSync(partial, file);
    } finally {
      for (const leftover of [partial, `${partial}-wal`, `${partial}-shm`]) rmSync(leftover, { force: true });
    }
    return this.info(name);
  }

  /** Removes the temporary directory, if one was made. */
  close(): void {
    if (this.made !== undefined) rmSync(this.made, { recursive: true, force: true });
  }
}

/** Where snapshots live by default: `snapshots/` beside a store file; a temporary directory for `:memory:`. */
export function defaultSnapshotDirectory(store: Store): string | null {
  return store.ephemeral ? null : join(dirname(store.location), 'snapshots');
}

/** Whether `path` is a SQLite file (a store, a snapshot, an export) rather than a JSON seed. */
export function isStoreFile(path: string): boolean {
  try {
    const handle = openSync(path, 'r');
    try {
      const header = Buffer.alloc(16);
      readSync(handle, header, 0, 16, 0);
      return header.toString('latin1') === 'SQLite format 3\0';
    } finally {
      closeSync(handle);
    }
  } catch {
    return false;
  }
}
