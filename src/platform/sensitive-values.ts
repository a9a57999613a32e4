import { SEALED_MARK } from '../core/at-rest.js';
import { storeAtRest } from '../store/entry-barrier.js';
import { sqliteOf, type DbOrTx } from '../store/store.js';

/** What workspace variables and variable-set variables share: a value and whether it is hidden. */
interface Valued {
  value: string;
  sensitive: boolean;
}

/**
 * A sensitive variable's value is kept sealed under the store's key (it is never shown again,
 * and a run is the only reader); other values stay as given. Rows written by an older version hold
 * sensitive values in clear, which read as they are until the store's upgrade seals them.
 */
export function storedRow<T extends Valued>(db: DbOrTx, row: T): T {
  return row.sensitive ? { ...row, value: storeAtRest(sqliteOf(db)).sealMarked(row.value) } : row;
}

/**
 * The changes of an update as stored: a new sensitive value sealed, and a value that becomes
 * sensitive (the variable is marked sensitive without a new value) sealed where it lies.
 */
export function storedChanges<T extends Valued>(db: DbOrTx, changes: Partial<T>, current: () => T | undefined): Partial<T> {
  if (changes.value === undefined && changes.sensitive !== true) return changes;
  const before = current();
  const sensitive = changes.sensitive ?? before?.sensitive ?? false;
  if (!sensitive) return changes;
  const value = changes.value ?? before?.value;
  if (value === undefined || (changes.value === undefined && value.startsWith(SEALED_MARK))) return changes;
  return { ...changes, value: storeAtRest(sqliteOf(db)).sealMarked(value) };
}

/** The value a run gets: a sensitive one opened (empty if it no longer opens). */
export function clearValue(db: DbOrTx, row: Valued): string {
  return row.sensitive ? (storeAtRest(sqliteOf(db)).openMarked(row.value) ?? '') : row.value;
}
