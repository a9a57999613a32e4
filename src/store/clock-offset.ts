import type Database from 'better-sqlite3';

/** The clock offset a store file keeps (`emulator_clock`), or 0 when the clock never moved. */
export function storedClockOffset(sqlite: Database.Database): number {
  const row = sqlite.prepare('SELECT offset_ms AS offset FROM emulator_clock WHERE id = 1').get() as { offset: number } | undefined;
  return row?.offset ?? 0;
}

/** Keeps the clock's offset with the store; an offset of 0 (the system time) keeps no row. */
export function storeClockOffset(sqlite: Database.Database, offsetMs: number): void {
  if (offsetMs === 0) sqlite.prepare('DELETE FROM emulator_clock WHERE id = 1').run();
  else
    sqlite
      .prepare('INSERT INTO emulator_clock (id, offset_ms) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET offset_ms = excluded.offset_ms')
      .run(offsetMs);
}
