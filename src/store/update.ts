import type { SQL } from 'drizzle-orm';
import type { SQLiteTable, SQLiteUpdateSetSource } from 'drizzle-orm/sqlite-core';
import type { DbOrTx } from './store.js';

/**
 * The one way repos update rows. A PATCH that sets nothing (no attribute, only unknown ones)
 * reaches here with no values; drizzle would refuse that ("No values to set") and the request
 * would end in a 500. Nothing to change is not an error: the row stays as it is.
 */
export function updateRows<T extends SQLiteTable>(db: DbOrTx, table: T, changes: SQLiteUpdateSetSource<T>, where: SQL | undefined): void {
  const values = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) as SQLiteUpdateSetSource<T>;
  if (Object.keys(values).length === 0) return;
  db.update(table).set(values).where(where).run();
}
