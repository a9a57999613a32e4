import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { markStoreReplaced } from '../../src/store/generation.js';
import { deepFreeze, ReadCache, withoutReadCacheTriggers } from '../../src/store/read-cache.js';

/** The trigger-dropped read cache on its own: every write to a watched table is seen by the next read. */
describe('ReadCache', () => {
  const world = () => {
    const sqlite = new Database(':memory:');
    sqlite.exec("CREATE TABLE items (id TEXT PRIMARY KEY, value TEXT); INSERT INTO items VALUES ('a', 'one')");
    // Made at the first read, as the server's caches are (per connection, on first use).
    let cache: ReadCache<{ value: string }> | undefined;
    const read = () => {
      cache ??= new ReadCache<{ value: string }>(sqlite, 'test_items', ['items'], deepFreeze);
      return cache.get('a', () => sqlite.prepare("SELECT value FROM items WHERE id = 'a'").get() as { value: string } | undefined);
    };
    return { sqlite, read };
  };

  it('serves a kept row until a write, whatever statement makes it', () => {
    const { sqlite, read } = world();
    expect(read()?.value).toBe('one');
    expect(Object.isFrozen(read())).toBe(true);
    sqlite.prepare("UPDATE items SET value = 'two' WHERE id = 'a'").run();
    expect(read()?.value).toBe('two');
    sqlite.exec("DELETE FROM items WHERE id = 'a'");
    expect(read()).toBeUndefined();
    sqlite.exec("INSERT INTO items VALUES ('a', 'three')");
    expect(read()?.value).toBe('three');
  });

  it('stays true when its first use is inside a transaction that rolls back', () => {
    const { sqlite, read } = world();
    const rolledBack = sqlite.transaction(() => {
      expect(read()?.value).toBe('one');
      sqlite.exec("UPDATE items SET value = 'inside' WHERE id = 'a'");
      expect(read()?.value).toBe('inside');
      throw new Error('roll back');
    });
    expect(() => rolledBack()).toThrow('roll back');
    expect(read()?.value).toBe('one');
    sqlite.exec("UPDATE items SET value = 'after' WHERE id = 'a'");
    expect(read()?.value).toBe('after');
  });

  it("takes its triggers off for a whole-table copy and puts them back, so a reset's bulk paths stay", () => {
    const { sqlite, read } = world();
    expect(read()?.value).toBe('one');
    const triggers = () => sqlite.prepare("SELECT count(*) AS n FROM sqlite_temp_master WHERE type = 'trigger'").pluck().get();
    expect(triggers()).toBe(3);
    withoutReadCacheTriggers(sqlite, () => {
      expect(triggers()).toBe(0);
      sqlite.transaction(() => sqlite.exec("DELETE FROM items; INSERT INTO items VALUES ('a', 'copied')"))();
    });
    markStoreReplaced(sqlite);
    expect(triggers()).toBe(3);
    expect(read()?.value).toBe('copied');
    // Back in place: the next write is seen at once.
    sqlite.exec("UPDATE items SET value = 'later' WHERE id = 'a'");
    expect(read()?.value).toBe('later');
  });

  it('puts its triggers back when the copy fails, and the rolled-back copy leaves the kept row true', () => {
    const { sqlite, read } = world();
    expect(read()?.value).toBe('one');
    const failing = () =>
      withoutReadCacheTriggers(sqlite, () =>
        sqlite.transaction(() => {
          sqlite.exec("UPDATE items SET value = 'half' WHERE id = 'a'");
          throw new Error('copy failed');
        })(),
      );
    expect(failing).toThrow('copy failed');
    expect(read()?.value).toBe('one');
    sqlite.exec("UPDATE items SET value = 'after' WHERE id = 'a'");
    expect(read()?.value).toBe('after');
  });

  it('reads uncached when its first use comes while another statement is still stepping', () => {
    const { sqlite, read } = world();
    const values: (string | undefined)[] = [];
    for (const row of sqlite.prepare('SELECT id FROM items').iterate()) {
      values.push(`${(row as { id: string }).id}:${read()?.value}`);
    }
    expect(values).toEqual(['a:one']);
    sqlite.exec("UPDATE items SET value = 'two' WHERE id = 'a'");
    expect(read()?.value).toBe('two');
  });
});
