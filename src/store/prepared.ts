import type Database from 'better-sqlite3';
import { perConnection } from './per-connection.js';
import { sqliteOf, type DbOrTx } from './store.js';

/**
 * Memoizes a drizzle prepared statement per database handle. Building a query with drizzle and
 * preparing it in SQLite costs far more than running it (a profile of a platform read showed
 * about 60% of CPU there), so statements on the hot path — authentication, permissions, lookups
 * by key — are built once and then executed with placeholders.
 *
 * Kept per SQLite connection, not per handle: every transaction gets a handle of its own, but
 * the handles share the connection's session, and a statement runs inside whatever transaction
 * the connection is in, so one built outside a transaction serves inside one too.
 */
export function prepared<T>(build: (db: DbOrTx) => T): (db: DbOrTx) => T {
  const cache = new WeakMap<Database.Database, T>();
  return (db) => {
    const connection = sqliteOf(db);
    let statement = cache.get(connection);
    if (statement === undefined) {
      statement = build(db);
      cache.set(connection, statement);
    }
    return statement;
  };
}

const statementsOf = perConnection(() => new Map<string, Database.Statement>());

/**
 * A raw SQLite statement for `text`, prepared once per connection. For queries whose shape
 * varies with the request (a list's filters) the text is the shape: values always travel as
 * parameters, so the number of distinct texts stays small.
 */
export function preparedSql(sqlite: Database.Database, text: string): Database.Statement {
  const cache = statementsOf(sqlite);
  let statement = cache.get(text);
  if (statement === undefined) {
    statement = sqlite.prepare(text);
    cache.set(text, statement);
  }
  return statement;
}
