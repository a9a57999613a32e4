import { Column, getTableColumns } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';

type Decode = (value: unknown) => unknown;

/**
 * Whole rows of one table read from better-sqlite3's raw arrays. Drizzle maps each cell of a
 * result through a generic path walk with `is()` checks; for the platform's wide rows (a
 * workspace has 45 columns, a page 20 of them) that was the largest single cost of a read in a
 * profile. Here the column list and each column's decoder are worked out once per table, and a
 * row is one loop that calls a decoder only where the column has one (booleans, timestamps, JSON).
 */
export interface RowReader<Row> {
  /** The select list, `alias."column", …`, in the order `read` expects. */
  columns(alias: string): string;
  /** How many values one row takes in the raw array. */
  readonly width: number;
  /** The row starting at `offset` of `values`, exactly as drizzle's `select().from(table)` gives it. */
  read(values: readonly unknown[], offset?: number): Row;
}

// Columns that inherit the base class's decoder (plain text and integers) return SQLite's value as it is.
const identity: unknown = Reflect.get(Column.prototype, 'mapFromDriverValue');

export function rowReader<T extends SQLiteTable>(table: T): RowReader<T['$inferSelect']> {
  const entries = Object.entries(getTableColumns(table)) as [string, Column][];
  const keys = entries.map(([key]) => key);
  const names = entries.map(([, column]) => `"${column.name}"`);
  // Undefined where the column's value is used as SQLite returns it.
  const decoders: (Decode | undefined)[] = entries.map(([, column]) =>
    Reflect.get(column, 'mapFromDriverValue') === identity ? undefined : (value: unknown) => column.mapFromDriverValue(value),
  );
  const width = keys.length;
  const lists = new Map<string, string>();
  return {
    width,
    columns(alias) {
      let list = lists.get(alias);
      if (list === undefined) {
        list = names.map((name) => `${alias}.${name}`).join(', ');
        lists.set(alias, list);
      }
      return list;
    },
    read(values, offset = 0) {
      const row: Record<string, unknown> = {};
      for (let index = 0; index < width; index += 1) {
        const value = values[offset + index];
        const decode = decoders[index];
        row[keys[index]!] = value === null || decode === undefined ? value : decode(value);
      }
      return row;
    },
  };
}
