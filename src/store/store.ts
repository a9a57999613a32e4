import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import * as tables from './tables.js';

export type Db = BetterSQLite3Database<typeof tables>;
/** A transaction handle; repos accept either, so a service can compose them atomically. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
export type DbOrTx = Db | Tx;

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations', import.meta.url));

export interface Store {
  readonly db: Db;
  readonly sqlite: Database.Database;
  readonly location: string;
  readonly ephemeral: boolean;
  close(): void;
}

/** Opens (creating if needed) the one SQLite database and brings its schema up to date. */
export function openStore(location: string): Store {
  const ephemeral = location === ':memory:';
  if (!ephemeral) mkdirSync(dirname(resolve(location)), { recursive: true });
  const sqlite = new Database(location);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const db = drizzle(sqlite, { schema: tables });
  migrate(db, { migrationsFolder: MIGRATIONS_DIR });
  return {
    db,
    sqlite,
    location: ephemeral ? location : resolve(location),
    ephemeral,
    close: () => sqlite.close(),
  };
}

/** Names of the application's tables (everything but SQLite's and the migrator's own). */
export function applicationTables(store: Store): string[] {
  const rows = store.sqlite
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%'",
    )
    .all() as { name: string }[];
  return rows.map((row) => row.name);
}

/**
 * Empties every application table and runs `refill` in the same transaction, so a reset is
 * atomic: a concurrent reader sees the old world or the new one, never half of each.
 */
export function wipeAndRefill(store: Store, refill: (tx: Tx) => void): void {
  const names = applicationTables(store);
  store.db.transaction((tx) => {
    store.sqlite.pragma('defer_foreign_keys = ON');
    for (const name of names) store.sqlite.prepare(`DELETE FROM "${name}"`).run();
    refill(tx);
  });
}
