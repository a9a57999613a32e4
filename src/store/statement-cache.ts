import type Database from 'better-sqlite3';

/** Distinct SQL texts kept compiled per connection; the least recently used one is finalized past this. */
export const STATEMENT_CACHE_SIZE = 512;

/**
 * Makes `sqlite.prepare` hand back an already compiled statement for a text it compiled before.
 * Drizzle compiles every query it runs afresh (`session.prepareQuery` calls `prepare` each time),
 * and compiling costs more than running a small query: in a profile of whole simulated runs,
 * SQLite's prepare was the largest single item of the server's CPU. Values always travel as
 * parameters, so the texts repeat; the few that do not (an `IN` list of varying length) only
 * cycle through the bounded cache.
 *
 * A statement keeps the modes it was last used in (raw rows, plucked first column, expanded
 * tables), and callers that want objects never ask for them, so a statement handed out again
 * is reset to plain objects first. A statement still stepping (an `iterate` in progress, or a
 * SQL function running a query of the same text) cannot be shared: such a text is compiled anew.
 * SQLite recompiles a kept statement by itself when the schema changes under it (a restore's
 * recreated full-text tables).
 */
export function cacheStatements(sqlite: Database.Database, capacity = STATEMENT_CACHE_SIZE): void {
  const compile = sqlite.prepare.bind(sqlite);
  const kept = new Map<string, Database.Statement>();
  const prepare = (source: string): Database.Statement => {
    const statement = kept.get(source);
    if (statement !== undefined && !statement.busy) {
      // Map order is insertion order: moving a hit to the end makes the first key the least recently used.
      kept.delete(source);
      kept.set(source, statement);
      if (statement.reader) statement.raw(false).pluck(false).expand(false);
      return statement;
    }
    const compiled = compile(source);
    if (statement === undefined) {
      kept.set(source, compiled);
      if (kept.size > capacity) kept.delete(kept.keys().next().value as string);
    }
    return compiled;
  };
  sqlite.prepare = prepare as Database.Database['prepare'];
}
