import { getTableColumns, inArray, sql, type Column, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { DbOrTx } from './store.js';

/**
 * SQLite binds at most this many variables in one statement (SQLITE_MAX_VARIABLE_NUMBER);
 * past it a statement fails with "too many SQL variables". Lists from requests and state files
 * have no such bound, so every list that becomes SQL variables goes through this file.
 */
export const MAX_VARIABLES = 32_766;

/** Up to this many values are bound one by one (the plan SQLite knows best); more go as one JSON array. */
const INLINE_VALUES = 100;

/**
 * `column IN (values)` for a list of any length: short lists bind each value, longer ones bind a
 * single JSON array read back with `json_each`, so the statement holds one variable however long
 * the list is. A subquery is passed through as it is.
 */
export function inList(column: Column, values: readonly (string | number)[] | SQLWrapper): SQL {
  if (!isList(values)) return inArray(column, values);
  if (values.length <= INLINE_VALUES) return inArray(column, [...values]);
  return sql`${column} IN (SELECT value FROM json_each(${JSON.stringify(values)}))`;
}

/** Inserts `rows` in as many statements as SQLite's variable limit needs (one for most lists). */
export function insertRows<T extends SQLiteTable>(db: DbOrTx, table: T, rows: readonly T['$inferInsert'][]): void {
  const perRow = Object.keys(getTableColumns(table)).length;
  const rowsPerStatement = Math.max(1, Math.floor(MAX_VARIABLES / perRow));
  for (let start = 0; start < rows.length; start += rowsPerStatement) {
    db.insert(table)
      .values(rows.slice(start, start + rowsPerStatement))
      .run();
  }
}

/**
 * `column IN (list)` for a statement prepared once (store/prepared.ts): the list is bound at run
 * time as one JSON array under the placeholder `name` (pass `jsonList(values)`), so a page of any
 * size reuses the same compiled statement instead of building and preparing a new one.
 */
export function inJsonList(column: Column | SQL, name: string): SQL {
  return sql`${column} IN (SELECT value FROM json_each(${sql.placeholder(name)}))`;
}

/** The value `inJsonList`'s placeholder takes. */
export const jsonList = (values: readonly (string | number)[]): string => JSON.stringify(values);

const isList = (values: readonly (string | number)[] | SQLWrapper): values is readonly (string | number)[] => Array.isArray(values);
