import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';

/** The key `SecretsAtRest` derives its digest and sealing keys from. */
export const AT_REST_KEY = 'at-rest';

/**
 * A named 32-byte server key, made on first use and kept in `server_keys` from then on. A reset
 * empties the table with everything else (the rows its key protected go too); a snapshot carries
 * its key with its rows.
 */
export function serverKey(sqlite: Database.Database, name: string): Buffer {
  const read = () => sqlite.prepare('SELECT key FROM server_keys WHERE name = ?').get(name) as { key: Buffer } | undefined;
  const found = read();
  if (found) return found.key;
  sqlite.prepare('INSERT OR IGNORE INTO server_keys (name, key) VALUES (?, ?)').run(name, randomBytes(32));
  return (read() as { key: Buffer }).key;
}
