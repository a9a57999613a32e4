import { integer, sqliteTable } from 'drizzle-orm/sqlite-core';

/**
 * The emulated clock's offset from the system clock, one row (id 1) once the clock has moved, so
 * a restart on the same store file goes on at the time it left off instead of stepping back
 * behind the rows it wrote. A reset moves the clock back to the system time and so does the row.
 */
export const emulatorClock = sqliteTable('emulator_clock', {
  id: integer('id').primaryKey(),
  offsetMs: integer('offset_ms').notNull(),
});
