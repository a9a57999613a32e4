import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { describe, expect, it } from 'vitest';
import { inList, insertRows, MAX_VARIABLES } from '../../src/store/sql-lists.js';
import type { DbOrTx } from '../../src/store/store.js';

// Lists longer than SQLite's bound-variable limit: inserted in chunks, matched with one variable.

const probe = sqliteTable('probe', { id: text('id').primaryKey(), position: integer('position').notNull(), label: text('label') });

function probeDb(): DbOrTx {
  const sqlite = new Database(':memory:');
  sqlite.exec('CREATE TABLE probe (id TEXT PRIMARY KEY, position INTEGER NOT NULL, label TEXT)');
  return drizzle(sqlite) as unknown as DbOrTx;
}

describe('lists that become SQL variables', () => {
  const count = MAX_VARIABLES + 5_000;
  const rows = Array.from({ length: count }, (_, position) => ({ id: `id-${position}`, position, label: null }));

  it('a plain insert of this length fails, as the limit says', () => {
    const db = probeDb();
    expect(() => db.insert(probe).values(rows).run()).toThrow(/too many SQL variables/);
  });

  it(`insertRows stores ${count} rows of 3 columns, and inList matches ${count} ids`, () => {
    const db = probeDb();
    insertRows(db, probe, rows);
    expect(db.select().from(probe).all()).toHaveLength(count);
    const wanted = rows.filter((row) => row.position % 2 === 0).map((row) => row.id);
    const found = db.select({ id: probe.id }).from(probe).where(inList(probe.id, wanted)).all();
    expect(found).toHaveLength(wanted.length);
    expect(
      db
        .select()
        .from(probe)
        .where(inList(probe.position, [1, 2, 3]))
        .all(),
    ).toHaveLength(3);
  });
});
