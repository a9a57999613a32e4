import type Database from 'better-sqlite3';

/**
 * `make(sqlite)` made once per SQLite connection and kept while the connection lives: for what
 * belongs to one store (its barrier, its sealing keys, its caches), which two servers in one
 * process, each with its own store, never share.
 */
export function perConnection<T>(make: (sqlite: Database.Database) => T): (sqlite: Database.Database) => T {
  const made = new WeakMap<Database.Database, T>();
  return (sqlite) => {
    let value = made.get(sqlite);
    if (value === undefined) {
      value = make(sqlite);
      made.set(sqlite, value);
    }
    return value;
  };
}
