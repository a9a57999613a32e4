import type { DbOrTx } from './store.js';

/**
 * Memoizes a drizzle prepared statement per database handle. Building a query with drizzle and
 * preparing it in SQLite costs far more than running it (a profile of a platform read showed
 * about 60% of CPU there), so statements on the hot path — authentication, permissions, lookups
 * by key — are built once and then executed with placeholders.
 *
 * A transaction handle is a different object from the database handle, so it gets its own
 * statement; both run on the same SQLite connection.
 */
export function prepared<T>(build: (db: DbOrTx) => T): (db: DbOrTx) => T {
  const cache = new WeakMap<DbOrTx, T>();
  return (db) => {
    let statement = cache.get(db);
    if (statement === undefined) {
      statement = build(db);
      cache.set(db, statement);
    }
    return statement;
  };
}
