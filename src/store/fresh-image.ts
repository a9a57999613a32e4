import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { packagePath } from '../core/package-root.js';

/**
 * A fresh in-memory store opened from an image of one that every migration has already run on.
 *
 * Running the 30-odd migrations on an empty `:memory:` database took about 40 ms of the server's
 * spawn-to-ready, most of it SQLite parsing and building a schema that is the same every time.
 * `npm run build` (scripts/build.mjs) writes that schema once, as SQLite's own serialized form of
 * the migrated database (tables, indexes, triggers and the migrator's journal rows, no data), to
 * dist/fresh-store.db; a fresh store deserializes it in a few milliseconds instead.
 *
 * The image is only a head start: the migrator still runs on it and applies whatever it lacks.
 * An image whose journal rows are not the first migrations of the folder, hash for hash (a dist
 * built from other migrations), is not used at all, and the store migrates from nothing as before.
 * test/store/fresh-image.test.ts checks the built image against running the migrations.
 */
export const FRESH_IMAGE_FILE = packagePath('dist', 'fresh-store.db');

/** The built image, or null when there is none (running from src/ before a build). */
export function readFreshImage(file = FRESH_IMAGE_FILE): Buffer | null {
  try {
    return readFileSync(file);
  } catch {
    return null;
  }
}

interface JournalRow {
  hash: string;
  created_at: number;
}

/** Opened image: the database, and whether it already holds every migration of the folder. */
export interface OpenedImage {
  sqlite: Database.Database;
  /**
   * Its journal is every migration of the folder: the migrator would run none of them (it runs those
   * dated after the newest journal row), so the caller need not run it, nor read the folder again.
   */
  complete: boolean;
}

/**
 * Whether the image's journal rows are the folder's first migrations, in order, hash for hash (null
 * when they are not), and whether they are all of them.
 */
function migrationsIn(sqlite: Database.Database, migrationsFolder: string): { complete: boolean } | null {
  let applied: JournalRow[];
  try {
    applied = sqlite.prepare('SELECT hash, created_at FROM __drizzle_migrations ORDER BY rowid').all() as JournalRow[];
  } catch {
    return null; // no journal table: not an image of a migrated store
  }
  const migrations = readMigrationFiles({ migrationsFolder });
  const fits =
    applied.length <= migrations.length &&
    applied.every((row, index) => row.hash === migrations[index]?.hash && Number(row.created_at) === migrations[index]?.folderMillis);
  return fits ? { complete: applied.length === migrations.length } : null;
}

/**
 * An in-memory database holding `image`, when the image fits the migrations in `migrationsFolder`;
 * null otherwise (the caller then starts from an empty one).
 */
export function openFreshImage(image: Buffer, migrationsFolder: string): OpenedImage | null {
  let sqlite: Database.Database;
  try {
    sqlite = new Database(image);
  } catch {
    return null; // not a database image
  }
  const found = migrationsIn(sqlite, migrationsFolder);
  if (found) return { sqlite, complete: found.complete };
  sqlite.close();
  return null;
}
