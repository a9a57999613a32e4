import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import { storeGeneration } from './generation.js';
import { preparedSql } from './prepared.js';

/** The key `SecretsAtRest` derives its digest and sealing keys from. */
export const AT_REST_KEY = 'at-rest';

interface Remembered {
  generation: number;
  key: Buffer;
}

/** Keys read from each connection, valid until the store's content is replaced (reset, restore). */
const remembered = new WeakMap<Database.Database, Map<string, Remembered>>();

/**
 * A named 32-byte server key, made on first use and kept in `server_keys` from then on. A reset
 * empties the table with everything else (the rows its key protected go too); a snapshot carries
 * its key with its rows.
 *
 * Every sealed read asks for the key, so it is remembered per connection and store generation.
 * Inside a transaction the table is always read, and what is read there is not remembered: the
 * transaction may be a reset that just emptied the table (the generation moves only after it
 * commits), or it may roll back a key it made, and a value sealed under a key that is not in the
 * store could never be opened again.
 */
export function serverKey(sqlite: Database.Database, name: string): Buffer {
  let known = remembered.get(sqlite);
  const generation = storeGeneration(sqlite);
  const cached = known?.get(name);
  if (cached !== undefined && cached.generation === generation && !sqlite.inTransaction) return cached.key;
  const read = () => preparedSql(sqlite, 'SELECT key FROM server_keys WHERE name = ?').get(name) as { key: Buffer } | undefined;
  let found = read();
  if (found === undefined) {
    preparedSql(sqlite, 'INSERT OR IGNORE INTO server_keys (name, key) VALUES (?, ?)').run(name, randomBytes(32));
    found = read();
  }
  const key = (found as { key: Buffer }).key;
  if (!sqlite.inTransaction) {
    if (known === undefined) {
      known = new Map<string, Remembered>();
      remembered.set(sqlite, known);
    }
    known.set(name, { generation, key });
  }
  return key;
}
