import { asc, eq, ne, sql } from 'drizzle-orm';
import { storeAtRest } from '../../store/entry-barrier.js';
import { prepared } from '../../store/prepared.js';
import { sqliteOf, type DbOrTx } from '../../store/store.js';
import { adminSettings, outbox, signingKeys } from '../../store/tables.js';
import { FIELDS, SETTINGS_NAMES } from './fields.js';

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

/** Cost-estimation credentials: hidden values that are not write-only on the wire (yet). */
const COST_ESTIMATION_SECRETS = ['cloud-a-secret-key', 'cloud-b-credentials', 'cloud-c-client-secret'];

/** Per document, the attributes kept sealed at rest: every write-only one, and the credentials above. */
export const SEALED_SETTINGS: ReadonlyMap<string, readonly string[]> = new Map(
  SETTINGS_NAMES.map((name) => [
    name,
    [
      ...FIELDS[name].filter((field) => field.writeOnly).map((field) => field.name),
      ...(name === 'cost-estimation' ? COST_ESTIMATION_SECRETS : []),
    ],
  ]),
);

/** `attributes` with each hidden string passed through `change` (sealing or opening). */
function withHidden(name: string, attributes: Record<string, unknown>, change: (value: string) => string | null): Record<string, unknown> {
  const hidden = SEALED_SETTINGS.get(name) ?? [];
  if (!hidden.some((field) => typeof attributes[field] === 'string' && attributes[field] !== '')) return attributes;
  const out = { ...attributes };
  for (const field of hidden) {
    const value = out[field];
    if (typeof value === 'string' && value !== '') out[field] = change(value);
  }
  return out;
}

/** The stored attributes of one settings document (hidden values opened), or undefined when it was never written. */
export function findSettings(db: DbOrTx, name: string): Record<string, unknown> | undefined {
  const stored = settingsByName(db).get({ name })?.attributes;
  if (stored === undefined) return undefined;
  const atRest = storeAtRest(sqliteOf(db));
  return withHidden(name, stored, (value) => atRest.openMarked(value));
}

/** Stores a document; its hidden values are sealed first, so no row holds them in clear. */
export function saveSettings(db: DbOrTx, name: string, clear: Record<string, unknown>, at: Date): void {
  const atRest = storeAtRest(sqliteOf(db));
  const attributes = withHidden(name, clear, (value) => atRest.sealMarked(value));
  db.insert(adminSettings)
    .values({ name, attributes, updatedAt: at })
    .onConflictDoUpdate({ target: adminSettings.name, set: { attributes, updatedAt: at } })
    .run();
}

/**
 * The signing keys, private halves opened. A half that does not open (sealed under another
 * store's key, which a restore never mixes) reads as empty, and signing with it fails.
 */
export function listSigningKeys(db: DbOrTx): SigningKeyRow[] {
  const atRest = storeAtRest(sqliteOf(db));
  return db
    .select()
    .from(signingKeys)
    .orderBy(asc(signingKeys.createdAt))
    .all()
    .map((key) => ({ ...key, privateKeyPem: atRest.openMarked(key.privateKeyPem) ?? '' }));
}

/** Makes `key` the current key (its private half sealed at rest); the previous ones stay published until trimmed. */
export function addCurrentSigningKey(db: DbOrTx, key: SigningKeyRow): void {
  const privateKeyPem = storeAtRest(sqliteOf(db)).sealMarked(key.privateKeyPem);
  db.update(signingKeys).set({ current: false }).run();
  db.insert(signingKeys)
    .values({ ...key, privateKeyPem, current: true })
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
