import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { packagePath } from '../core/package-root.js';
import { openFreshImage, readFreshImage } from './fresh-image.js';
import { markStoreReplaced } from './generation.js';
import { withoutReadCacheTriggers } from './read-cache.js';
import { cacheStatements } from './statement-cache.js';
import * as tables from './tables.js';
import { upgradeData } from './upgrades.js';

export type Db = BetterSQLite3Database<typeof tables>;
/** A transaction handle; repos accept either, so a service can compose them atomically. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
export type DbOrTx = Db | Tx;

export const MIGRATIONS_DIR = packagePath('migrations');

export interface Store {
  readonly db: Db;
  readonly sqlite: Database.Database;
  readonly location: string;
  readonly ephemeral: boolean;
  close(): void;
}

/** The store cannot be opened or created where the configuration points; the message says why. */
export class StoreError extends Error {}

/**
 * Creates the missing directories above the store file one at a time. Node's recursive mkdir
 * never returns on some paths (under /proc it loops at full CPU), so it is not used here.
 */
function ensureParentDirectories(file: string): void {
  const missing: string[] = [];
  for (let dir = dirname(resolve(file)); !existsSync(dir); dir = dirname(dir)) {
    missing.unshift(dir);
    if (dirname(dir) === dir) break;
  }
  for (const dir of missing) mkdirSync(dir, { mode: 0o700 });
}

/**
 * The store holds tokens, sealed secrets and the key that seals them: readable by the server's
 * user only (a run's terraform, as another user, must not read it). SQLite gives later -wal and
 * -shm files the database file's mode. A file the server does not own keeps its mode.
 */
function keepPrivate(location: string): void {
  for (const file of [location, `${location}-wal`, `${location}-shm`]) {
    try {
      chmodSync(file, 0o600);
    } catch {
      // Missing (no WAL yet) or not ours: nothing to tighten.
    }
  }
}

/**
 * A fresh in-memory store starts from the built image of a migrated one when there is one
 * (fresh-image.ts); `migrated` says the image already holds every migration.
 */
function newDatabase(location: string, ephemeral: boolean): { sqlite: Database.Database; migrated: boolean } {
  const image = ephemeral ? readFreshImage() : null;
  const opened = image && openFreshImage(image, MIGRATIONS_DIR);
  return opened ? { sqlite: opened.sqlite, migrated: opened.complete } : { sqlite: new Database(location), migrated: false };
}

function openDatabase(location: string, ephemeral: boolean): { sqlite: Database.Database; migrated: boolean } {
  try {
    if (!ephemeral) ensureParentDirectories(location);
    const opened = newDatabase(location, ephemeral);
    // Opening is lazy: the first statement is what finds out a file is not a database or not writable.
    opened.sqlite.pragma('journal_mode = WAL');
    if (!ephemeral) keepPrivate(location);
    return opened;
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    throw new StoreError(code && !message.startsWith(code) ? `${code}: ${message}` : message);
  }
}

/** Opens (creating if needed) the one SQLite database and brings its schema up to date. */
export function openStore(location: string): Store {
  const ephemeral = location === ':memory:';
  const { sqlite, migrated } = openDatabase(location, ephemeral);
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  cacheStatements(sqlite);
  const db = drizzle(sqlite, { schema: tables });
  // An image with every migration: the migrator would read and hash the folder again to run none.
  if (!migrated) migrate(db, { migrationsFolder: MIGRATIONS_DIR });
  upgradeData(sqlite);
  return {
    db,
    sqlite,
    location: ephemeral ? location : resolve(location),
    ephemeral,
    close: () => sqlite.close(),
  };
}

/**
 * Names of the application's tables (everything but SQLite's and the migrator's own). Full-text
 * indexes and their shadow tables are left out: triggers keep them in step with the tables they
 * index, and deleting from a shadow table directly would corrupt the index.
 */
export function applicationTables(store: Store): string[] {
  const rows = store.sqlite
    .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%'")
    .all() as { name: string; sql: string | null }[];
  const virtual = rows.filter((row) => /^CREATE VIRTUAL TABLE/i.test(row.sql ?? '')).map((row) => row.name);
  return rows.map((row) => row.name).filter((name) => !virtual.some((table) => name === table || name.startsWith(`${table}_`)));
}

/**
 * Empties every application table and runs `refill` in the same transaction, so a reset is
 * atomic: a concurrent reader sees the old world or the new one, never half of each.
 */
export function wipeAndRefill(store: Store, refill: (tx: Tx) => void): void {
  const names = applicationTables(store);
  withoutReadCacheTriggers(store.sqlite, () =>
    store.db.transaction((tx) => {
      store.sqlite.pragma('defer_foreign_keys = ON');
      for (const name of names) store.sqlite.prepare(`DELETE FROM "${name}"`).run();
      refill(tx);
    }),
  );
  markStoreReplaced(store.sqlite);
}

/** True when no application table holds a row (a store just created). */
export function isEmptyStore(store: Store): boolean {
  return applicationTables(store).every((name) => store.sqlite.prepare(`SELECT 1 FROM "${name}" LIMIT 1`).get() === undefined);
}

/**
 * The SQLite connection under a database or transaction handle. Drizzle keeps it on the session,
 * which a transaction shares with its database, so a statement prepared on it runs inside
 * whatever transaction is open (better-sqlite3 has one connection per database).
 */
export function sqliteOf(db: DbOrTx): Database.Database {
  return (db as unknown as { session: { client: Database.Database } }).session.client;
}
