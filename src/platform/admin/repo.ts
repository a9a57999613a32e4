import { asc, eq, ne, sql } from 'drizzle-orm';
import { prepared } from '../../store/prepared.js';
import type { DbOrTx } from '../../store/store.js';
import { adminSettings, outbox, signingKeys } from '../../store/tables.js';

export type SigningKeyRow = typeof signingKeys.$inferSelect;
export type OutboxRow = typeof outbox.$inferSelect;

// Read on every workspace created (the remote-state default), bulk fixtures included.
const settingsByName = prepared((db) =>
  db
    .select({ attributes: adminSettings.attributes })
    .from(adminSettings)
    .where(eq(adminSettings.name, sql.placeholder('name')))
    .prepare(),
);

/** The stored attributes of one settings document, or undefined when it was never written. */
export function findSettings(db: DbOrTx, name: string): Record<string, unknown> | undefined {
  return settingsByName(db).get({ name })?.attributes;
}

export function saveSettings(db: DbOrTx, name: string, attributes: Record<string, unknown>, at: Date): void {
  db.insert(adminSettings)
    .values({ name, attributes, updatedAt: at })
    .onConflictDoUpdate({ target: adminSettings.name, set: { attributes, updatedAt: at } })
    .run();
}

export function listSigningKeys(db: DbOrTx): SigningKeyRow[] {
  return db.select().from(signingKeys).orderBy(asc(signingKeys.createdAt)).all();
}

/** Makes `key` the current key; the previous ones stay published until trimmed. */
export function addCurrentSigningKey(db: DbOrTx, key: SigningKeyRow): void {
  db.update(signingKeys).set({ current: false }).run();
  db.insert(signingKeys)
    .values({ ...key, current: true })
    .run();
}

/** Removes every key but the current one; returns how many went. */
export function trimSigningKeys(db: DbOrTx): number {
  return db.delete(signingKeys).where(ne(signingKeys.current, true)).run().changes;
}

export function insertOutbox(db: DbOrTx, row: OutboxRow): void {
  db.insert(outbox).values(row).run();
}

export function listOutbox(db: DbOrTx): OutboxRow[] {
  return db.select().from(outbox).orderBy(asc(outbox.sentAt), asc(outbox.id)).all();
}
