import Database from 'better-sqlite3';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { cacheStatements } from '../../src/store/statement-cache.js';
import { openStore } from '../../src/store/store.js';
import { organizations } from '../../src/store/tables.js';

function connection(capacity?: number): Database.Database {
  const sqlite = new Database(':memory:');
  sqlite.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO t VALUES (1, 'one'), (2, 'two')");
  cacheStatements(sqlite, capacity);
  return sqlite;
}

describe('the statement cache', () => {
  it('hands back the statement compiled before for the same text', () => {
    const sqlite = connection();
    const text = 'SELECT name FROM t WHERE id = ?';
    expect(sqlite.prepare(text)).toBe(sqlite.prepare(text));
    expect(sqlite.prepare('SELECT id FROM t')).not.toBe(sqlite.prepare(text));
  });

  it('resets a statement used for raw rows, plucked or expanded values to plain objects', () => {
    const sqlite = connection();
    const text = 'SELECT id, name FROM t WHERE id = ?';
    expect(sqlite.prepare(text).raw().get(1)).toEqual([1, 'one']);
    expect(sqlite.prepare(text).get(1)).toEqual({ id: 1, name: 'one' });
    expect(sqlite.prepare(text).pluck().get(2)).toBe(2);
    expect(sqlite.prepare(text).get(2)).toEqual({ id: 2, name: 'two' });
    expect(sqlite.prepare(text).expand().get(2)).toEqual({ t: { id: 2, name: 'two' } });
    expect(sqlite.prepare(text).get(2)).toEqual({ id: 2, name: 'two' });
    // better-sqlite3's own pragma() plucks through prepare: a later caller still gets objects.
    expect(sqlite.pragma('user_version', { simple: true })).toBe(0);
    expect(sqlite.prepare('PRAGMA user_version').get()).toEqual({ user_version: 0 });
  });

  it('compiles the text anew while the kept statement is still stepping', () => {
    const sqlite = connection();
    const text = 'SELECT id FROM t ORDER BY id';
    const seen: unknown[] = [];
    for (const row of sqlite.prepare(text).iterate()) seen.push(row, sqlite.prepare(text).all());
    expect(seen).toEqual([{ id: 1 }, [{ id: 1 }, { id: 2 }], { id: 2 }, [{ id: 1 }, { id: 2 }]]);
  });

  it('keeps at most its capacity of texts, dropping the least recently used', () => {
    const sqlite = connection(2);
    const first = sqlite.prepare('SELECT 1');
    const second = sqlite.prepare('SELECT 2');
    expect(sqlite.prepare('SELECT 1')).toBe(first); // now the most recently used
    sqlite.prepare('SELECT 3'); // drops SELECT 2
    expect(sqlite.prepare('SELECT 1')).toBe(first);
    const again = sqlite.prepare('SELECT 2');
    expect(again).not.toBe(second);
    expect(again.pluck().get()).toBe(2);
  });

  it('runs a kept statement against a table dropped and made anew with other columns', () => {
    const sqlite = connection();
    const text = 'SELECT * FROM t';
    expect(sqlite.prepare(text).all()).toEqual([
      { id: 1, name: 'one' },
      { id: 2, name: 'two' },
    ]);
    sqlite.exec("DROP TABLE t; CREATE TABLE t (id INTEGER PRIMARY KEY, label TEXT, size INTEGER); INSERT INTO t VALUES (7, 'seven', 3)");
    expect(sqlite.prepare(text).all()).toEqual([{ id: 7, label: 'seven', size: 3 }]);
  });

  it('serves drizzle queries on the store, which see every write at once', () => {
    const store = openStore(':memory:');
    try {
      const byName = (name: string) =>
        store.db.select({ id: organizations.id }).from(organizations).where(eq(organizations.name, name)).get();
      const created = store.db.select().from(organizations).all().length;
      expect(byName('cache-check')).toBeUndefined();
      const at = '2026-01-01T00:00:00Z';
      store.sqlite
        .prepare('INSERT INTO organizations (id, name, email, created_at, updated_at) VALUES (?, ?, ?, ?, ?)')
        .run('org-cachecheck', 'cache-check', 'a@example.com', at, at);
      expect(byName('cache-check')).toEqual({ id: 'org-cachecheck' });
      expect(store.db.select().from(organizations).all()).toHaveLength(created + 1);
    } finally {
      store.close();
    }
  });
});
