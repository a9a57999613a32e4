import type Database from 'better-sqlite3';
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

const statements = new WeakMap<Database.Database, Map<string, Database.Statement>>();

/**
 * A raw SQLite statement for `text`, prepared once per connection. For queries whose shape
 * varies with the request (a list's filters) the text is the shape: values always travel as
 * parameters, so the number of distinct texts stays small.
 */
export function preparedSql(sqlite: Database.Database, text: string): Database.Statement {
  let cache = statements.get(sqlite);
  if (cache === undefined) {
    cache = new Map();
    statements.set(sqlite, cache);
  }
  let statement = cache.get(text);
  if (statement === undefined) {
    statement = sqlite.prepare(text);
    cache.set(text, statement);
  }
  return statement;
}
