import type Database from 'better-sqlite3';
import { quotedIdentifier as quoted } from '../../store/sql-identifier.js';

/** The schema a store file has, as one comparable text: a snapshot restores only into its own. */
export function schemaOf(sqlite: Database.Database, schema: 'main' | 'snapshot'): string {
  const rows = sqlite
    .prepare(`SELECT type, name, sql FROM ${schema}.sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name`)
    .all() as { type: string; name: string; sql: string | null }[];
  return rows.map((row) => `${row.type} ${row.name} ${row.sql ?? ''}`).join('\n');
}

interface SchemaObject {
  name: string;
  sql: string;
}

/** What a restore into one store needs to know of its schema; it changes only with the schema. */
export interface RestorePlan {
  /** `schemaOf(main)`. */
  schema: string;
  /** Every table whose rows make up the world (triggers and the full-text indexes' own virtual tables are not rows). */
  rows: string[];
  /** The full-text indexes' shadow tables (see `fullTextIndexes`), copied last. */
  shadows: string[];
  triggers: SchemaObject[];
  indexes: SchemaObject[];
  /** The tables of `rows` a trigger is on (their row-by-row restore fires it: see `rowsCopy`). */
  triggered: Set<string>;
  /**
   * Whether a whole-table copy keeps every row's rowid, so rows can later be matched with the
   * snapshot's by rowid: each table of `rows` has a rowid, and an INTEGER PRIMARY KEY or an index
   * (SQLite's bulk copy gives a table with neither new rowids).
   */
  rowidsKept: boolean;
  /** The columns `rowsCopy` lists, per table, read when first needed. */
  columns: Map<string, string[]>;
}

/**
 * The FTS5 tables (external-content indexes over tables that are copied). A restore drops and
 * makes them again, then copies their shadow tables from the snapshot (whose index matches its
 * rows, rowid for rowid: the copy keeps rowids). Copying the shadow tables under a live index
 * corrupted it: FTS5 keeps the index's structure record in memory between transactions and
 * rereads it only when another connection commits, so the next write through the same connection
 * built on the structure of the world before the restore. A table made anew has read nothing yet.
 * Rebuilding the index from the copied rows ('rebuild') is also correct, but it tokenizes every
 * name again: a third of a restore of 10,000 workspaces.
 */
function fullTextIndexes(tables: { name: string; sql: string | null }[]): SchemaObject[] {
  return tables
    .filter((row) => /^CREATE VIRTUAL TABLE.*USING\s+fts5/is.test(row.sql ?? ''))
    .map((row) => ({ name: row.name, sql: row.sql ?? '' }));
}

function planOf(sqlite: Database.Database): RestorePlan {
  const tables = sqlite.prepare("SELECT name, sql FROM main.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as {
    name: string;
    sql: string | null;
  }[];
  const indexes = fullTextIndexes(tables);
  const names = tables
    .filter((row) => !row.name.startsWith('__drizzle') && !/^CREATE VIRTUAL TABLE/i.test(row.sql ?? ''))
    .map((row) => row.name);
  const isShadow = (name: string) => indexes.some((index) => name.startsWith(`${index.name}_`));
  const triggers = sqlite
    .prepare("SELECT name, sql, tbl_name AS tableName FROM main.sqlite_master WHERE type = 'trigger'")
    .all() as (SchemaObject & {
    tableName: string;
  })[];
  const rows = names.filter((name) => !isShadow(name));
  return {
    schema: schemaOf(sqlite, 'main'),
    rows,
    shadows: names.filter(isShadow),
    triggers: triggers.map(({ name, sql }) => ({ name, sql })),
    indexes,
    triggered: new Set(triggers.map((trigger) => trigger.tableName)),
    rowidsKept: rows.every((table) => keepsRowids(sqlite, table)),
    columns: new Map(),
  };
}

/** See `RestorePlan.rowidsKept`. */
function keepsRowids(sqlite: Database.Database, table: string): boolean {
  const withoutRowid = sqlite.prepare('SELECT wr FROM main.pragma_table_list(?)').pluck().get(table) !== 0;
  const indexed = sqlite.prepare('SELECT count(*) FROM main.pragma_index_list(?)').pluck().get(table) !== 0;
  const keys = sqlite.prepare('SELECT upper(type) FROM main.pragma_table_info(?) WHERE pk > 0').pluck().all(table) as string[];
  return !withoutRowid && (indexed || (keys.length === 1 && keys[0] === 'INTEGER'));
}

/** The columns of `table` an INSERT names (generated ones are left out), for `rowsCopy`. */
export function insertableColumns(sqlite: Database.Database, plan: RestorePlan, table: string): string[] {
  let columns = plan.columns.get(table);
  if (columns === undefined) {
    columns = sqlite.prepare('SELECT name FROM main.pragma_table_xinfo(?) WHERE hidden = 0').pluck().all(table) as string[];
    plan.columns.set(table, columns);
  }
  return columns;
}

const schemaVersion = (sqlite: Database.Database) => sqlite.pragma('main.schema_version', { simple: true }) as number;

/**
 * The restore plan of one store, read again only when its schema changed (SQLite counts every
 * change in `schema_version`): reading and comparing the whole schema took a tenth of a restore.
 */
export class RestorePlans {
  private held: { version: number; plan: RestorePlan } | undefined;

  constructor(private readonly sqlite: Database.Database) {}

  get(): RestorePlan {
    const version = schemaVersion(this.sqlite);
    if (this.held?.version !== version) this.held = { version, plan: planOf(this.sqlite) };
    return this.held.plan;
  }

  /**
   * After a restore, whose drops and re-creations (triggers and full-text indexes, from the very
   * text the plan holds) move the version and leave the schema as it was: the plan holds for the
   * new version.
   */
  restored(plan: RestorePlan): void {
    this.held = { version: schemaVersion(this.sqlite), plan };
  }
}

/**
 * The tables of `names` in `schema` that hold a row, in one statement: most of a store's tables
 * are empty in a test world, and copying one takes two statements compiled afresh.
 */
export function filledTables(sqlite: Database.Database, schema: 'main' | 'snapshot', names: string[]): Set<string> {
  if (names.length === 0) return new Set();
  const probes = names.map((name, index) => `SELECT ${index} AS i WHERE EXISTS (SELECT 1 FROM ${schema}.${quoted(name)})`);
  const found = sqlite.prepare(probes.join(' UNION ALL ')).pluck().all() as number[];
  return new Set(found.map((index) => names[index] as string));
}

/**
 * A mark that moves whenever the store's content may have changed: every row this connection
 * inserted, updated or deleted (`total_changes()` counts each, whether by a repository, raw SQL,
 * a trigger or a cascade, and keeps counting what a rollback undid), every commit by another
 * connection to the same file (`data_version`) and every schema change (`schema_version`). Two
 * equal marks mean no row changed between them.
 */
export function contentMark(sqlite: Database.Database): string {
  const changes = sqlite.prepare('SELECT total_changes()').pluck().get() as number;
  const dataVersion = sqlite.pragma('main.data_version', { simple: true }) as number;
  return `${changes}:${dataVersion}:${schemaVersion(sqlite)}`;
}
