import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { describe, expect, it } from 'vitest';
import { FRESH_IMAGE_FILE, openFreshImage, readFreshImage } from '../../src/store/fresh-image.js';
import { MIGRATIONS_DIR, openStore } from '../../src/store/store.js';
import { olderRelease } from './older-release.js';

/** Everything the migrations make: every schema object with its SQL, and the migrator's journal rows. */
function schemaOf(sqlite: Database.Database): unknown {
  return {
    objects: sqlite.prepare('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name').all(),
    journal: sqlite.prepare('SELECT hash, created_at FROM __drizzle_migrations ORDER BY rowid').all(),
  };
}

function migrated(migrationsFolder = MIGRATIONS_DIR): Database.Database {
  const sqlite = new Database(':memory:');
  migrate(drizzle(sqlite), { migrationsFolder });
  return sqlite;
}

describe('the fresh store image', () => {
  it('is built (npm run build) and holds exactly what running every migration makes', () => {
    const image = readFreshImage();
    expect(image, `${FRESH_IMAGE_FILE} is missing: run npm run build`).not.toBeNull();
    const opened = openFreshImage(image as Buffer, MIGRATIONS_DIR);
    expect(opened?.complete).toBe(true);
    expect(schemaOf(opened?.sqlite as Database.Database)).toEqual(schemaOf(migrated()));
  });

  it('gives a fresh in-memory store the migrated schema, writable as ever', () => {
    const store = openStore(':memory:');
    const reference = migrated();
    try {
      expect(schemaOf(store.sqlite)).toEqual(schemaOf(reference));
      // Writable, and as empty as a migrated store.
      const insert = "INSERT INTO organizations (id, name, email, created_at, updated_at) VALUES ('org-a', 'a', 'a@b.c', 1, 1)";
      store.sqlite.prepare(insert).run();
      expect(store.sqlite.prepare('SELECT name FROM organizations').all()).toEqual([{ name: 'a' }]);
    } finally {
      store.close();
    }
  });

  it('is a head start only: the migrations an older image lacks still run on it', () => {
    const older = migrated(olderRelease(5)).serialize();
    const opened = openFreshImage(older, MIGRATIONS_DIR);
    expect(opened?.complete).toBe(false);
    const sqlite = opened?.sqlite as Database.Database;
    migrate(drizzle(sqlite), { migrationsFolder: MIGRATIONS_DIR });
    expect(schemaOf(sqlite)).toEqual(schemaOf(migrated()));
  });

  it('is not used when its journal is not the migrations folder’s, or when it is no database', () => {
    const other = migrated();
    other.prepare('UPDATE __drizzle_migrations SET hash = ? WHERE rowid = 2').run('edited');
    expect(openFreshImage(other.serialize(), MIGRATIONS_DIR)).toBeNull();
    expect(openFreshImage(new Database(':memory:').serialize(), MIGRATIONS_DIR)).toBeNull();
    expect(openFreshImage(Buffer.from('not a database'), MIGRATIONS_DIR)).toBeNull();
  });
});
