import type Database from 'better-sqlite3';
import { perConnection } from './per-connection.js';
import { quotedIdentifier as quoted } from './sql-identifier.js';

/**
 * Which rows of a store were written since a snapshot restore, so the next restore of the same
 * snapshot copies back those rows only (snapshots.ts) instead of every table.
 *
 * A temporary trigger per table and event records the rowid of each row inserted, updated (old
 * and new rowid) or deleted, on any path: a repository, raw SQL, a main trigger's own writes, a
 * foreign-key cascade. The record is a table in the connection's `temp` schema, so a write that
 * rolls back takes its record back with it. Two writes escape the triggers: a row deleted by a
 * REPLACE conflict (only with recursive triggers, which the store leaves off), always beside an
 * insert into the same table, which a restore's row count check catches; and whatever runs with
 * the triggers off (a reset's or restore's whole-table copy), which stops the tracking for good
 * (`stopChangeTracking`) until a restore starts it again.
 *
 * The triggers cost each write a few microseconds and take SQLite's bulk paths off their tables,
 * so they exist only on a store that has been restored from a snapshot.
 */
export const CHANGED_ROWS = 'temp.understudy_changed_rows';

interface Tracking {
  /** The triggers' names, to drop them. */
  triggers: string[];
}

const trackingOf = perConnection((): { current: Tracking | undefined } => ({ current: undefined }));

/** Whether the triggers are in place (and so every row written since they were made is recorded). */
export function isTrackingChanges(sqlite: Database.Database): boolean {
  return trackingOf(sqlite).current !== undefined;
}

/** Records every row written to `tables` from now on, starting from an empty record. */
export function startChangeTracking(sqlite: Database.Database, tables: readonly string[]): void {
  stopChangeTracking(sqlite);
  const triggers: string[] = [];
  // One transaction: the schema is written once rather than once per trigger.
  sqlite.transaction(() => {
    sqlite.exec(`CREATE TABLE ${CHANGED_ROWS} (tbl TEXT NOT NULL, rid INTEGER NOT NULL, PRIMARY KEY (tbl, rid)) WITHOUT ROWID`);
    for (const table of tables) {
      const name = table.replace(/'/g, "''");
      // NOT EXISTS rather than OR IGNORE: a statement's own OR clause (OR ABORT) would override the trigger's.
      const record = (row: 'new' | 'old') => {
        const recorded = `SELECT 1 FROM ${CHANGED_ROWS} WHERE tbl = '${name}' AND rid = ${row}.rowid`;
        return `INSERT INTO ${CHANGED_ROWS} SELECT '${name}', ${row}.rowid WHERE NOT EXISTS (${recorded});`;
      };
      const bodies = { INSERT: record('new'), UPDATE: `${record('old')} ${record('new')}`, DELETE: record('old') };
      for (const [event, body] of Object.entries(bodies)) {
        const trigger = `understudy_changed_${table}_${event.toLowerCase()}`;
        sqlite.exec(`CREATE TEMP TRIGGER ${quoted(trigger)} AFTER ${event} ON main.${quoted(table)} BEGIN ${body} END`);
        triggers.push(trigger);
      }
    }
  })();
  trackingOf(sqlite).current = { triggers };
}

/** Drops the triggers and the record (a bulk copy is about to write with the triggers off). */
export function stopChangeTracking(sqlite: Database.Database): void {
  const holder = trackingOf(sqlite);
  const tracking = holder.current;
  if (tracking === undefined) return;
  holder.current = undefined;
  sqlite.transaction(() => {
    for (const trigger of tracking.triggers) sqlite.exec(`DROP TRIGGER IF EXISTS temp.${quoted(trigger)}`);
    sqlite.exec(`DROP TABLE IF EXISTS ${CHANGED_ROWS}`);
  })();
}

/** How many rows of each table were written since tracking started (or the record was last cleared). */
export function changedRowCounts(sqlite: Database.Database): Map<string, number> {
  const rows = sqlite.prepare(`SELECT tbl, count(*) AS n FROM ${CHANGED_ROWS} GROUP BY tbl`).all() as { tbl: string; n: number }[];
  return new Map(rows.map((row) => [row.tbl, row.n]));
}

/** Forgets what was recorded (a restore has put those rows back); in the caller's transaction. */
export function clearChangedRows(sqlite: Database.Database): void {
  sqlite.exec(`DELETE FROM ${CHANGED_ROWS}`);
}
