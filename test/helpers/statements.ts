import type Database from 'better-sqlite3';

/** Counts the SQL statements `sqlite` executes while `during` runs (every run, get, all and iterate of a prepared statement). */
export async function statementsDuring(sqlite: Database.Database, during: () => Promise<unknown>): Promise<number> {
  const prototype = Object.getPrototypeOf(sqlite.prepare('SELECT 1')) as Record<string, unknown>;
  const methods = ['run', 'get', 'all', 'iterate'] as const;
  const originals = methods.map((name) => [name, prototype[name]] as const);
  let count = 0;
  for (const [name, original] of originals) {
    prototype[name] = function (this: Database.Statement, ...args: unknown[]) {
      count++;
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    };
  }
  try {
    await during();
  } finally {
    for (const [name, original] of originals) prototype[name] = original;
  }
  return count;
}

/**
 * The statements requests themselves execute: background work (the scheduler wakes at least every
 * 30 s and asks each due source for its next item) can only add statements to a window, so the
 * least count of three windows is the requests' own.
 */
export async function requestStatements(sqlite: Database.Database, during: () => Promise<unknown>): Promise<number> {
  const counts: number[] = [];
  for (let attempt = 0; attempt < 3; attempt++) counts.push(await statementsDuring(sqlite, during));
  return Math.min(...counts);
}
