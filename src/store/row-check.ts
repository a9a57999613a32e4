import type Database from 'better-sqlite3';
import { getTableConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';
import * as tables from './tables.js';
import { quotedIdentifier as quoted } from './sql-identifier.js';

/** A column whose stored text or number the code reads back as a structure: JSON, a time, a flag. */
interface TypedColumn {
  table: string;
  column: string;
  /** An SQL condition true for a row whose value the code cannot read. */
  broken: string;
}

function typedColumns(): TypedColumn[] {
  const found: TypedColumn[] = [];
  for (const table of Object.values(tables)) {
    if (!(table instanceof SQLiteTable)) continue;
    const config = getTableConfig(table);
    for (const column of config.columns) {
      const name = quoted(column.name);
      if (column.columnType === 'SQLiteTextJson')
        found.push({ table: config.name, column: column.name, broken: `${name} IS NOT NULL AND NOT json_valid(${name})` });
      else if (column.columnType === 'SQLiteTimestamp' || column.columnType === 'SQLiteBoolean')
        found.push({ table: config.name, column: column.name, broken: `${name} IS NOT NULL AND typeof(${name}) <> 'integer'` });
    }
  }
  return found;
}

let columns: TypedColumn[] | undefined;

/**
 * The first row of a store file (attached as `schema`) the code could not read: a JSON column
 * that is not JSON (`mounts.config = '{'`), a time or flag that is not an integer. A snapshot's
 * schema can be right while its rows are not; restoring such a row made every request that
 * derives state from it (the mount table) answer 500. Null when every row reads.
 */
export function unreadableRow(sqlite: Database.Database, schema: string): string | null {
  columns ??= typedColumns();
  for (const { table, column, broken } of columns) {
    const row = sqlite.prepare(`SELECT rowid AS id FROM ${quoted(schema)}.${quoted(table)} WHERE ${broken} LIMIT 1`).get() as
      { id: number } | undefined;
    if (row !== undefined) return `${table}.${column} of row ${row.id} cannot be read`;
  }
  return null;
}
