import { createDecipheriv, createHmac } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import Database from 'better-sqlite3';

/**
 * What a copied store file shows, read without the server: every byte of the file and its
 * write-ahead log, and every row of every table as text.
 */
export function storeText(file: string): { bytes: string; rows: string } {
  const bytes = [file, `${file}-wal`]
    .filter((path) => existsSync(path))
    .map((path) => readFileSync(path).toString('latin1'))
    .join('');
  const sqlite = new Database(file, { readonly: true });
  try {
    const tables = sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
    const rows = tables.map(({ name }) => JSON.stringify(sqlite.prepare(`SELECT * FROM "${name}"`).raw().all())).join('\n');
    return { bytes, rows };
  } finally {
    sqlite.close();
  }
}

/**
 * Opens a sealed value the way the documented format says (src/core/at-rest.ts), written here
 * again so the test does not take the server's word: the sealing key is HMAC-SHA256 of the
 * purpose under the store's `at-rest` server key; the value is AES-256-GCM, `iv.tag.ciphertext`
 * in base64url, after the `sealed:v1:` mark.
 */
export function openSealed(master: Buffer, stored: string): string {
  const mark = 'sealed:v1:';
  if (!stored.startsWith(mark)) throw new Error(`not sealed: ${stored.slice(0, 20)}`);
  const [iv, tag, body] = stored
    .slice(mark.length)
    .split('.')
    .map((part) => Buffer.from(part, 'base64url'));
  const key = createHmac('sha256', master).update('understudy seal').digest();
  const decipher = createDecipheriv('aes-256-gcm', key, iv as Buffer);
  decipher.setAuthTag(tag as Buffer);
  return Buffer.concat([decipher.update(body as Buffer), decipher.final()]).toString('utf8');
}

/**
 * Turns a store written by this version back into the form the version before sealing wrote:
 * every sealed value in clear (mount entries, run-task HMAC keys, sensitive variables, admin
 * secrets, signing and SSH keys) and the upgrade counter before the sealing upgrade.
 */
export function unsealToOldForm(file: string): void {
  const sqlite = new Database(file);
  try {
    const { key: master } = sqlite.prepare("SELECT key FROM server_keys WHERE name = 'at-rest'").get() as { key: Buffer };
    const clear = (stored: string) => (stored.startsWith('sealed:v1:') ? openSealed(master, stored) : stored);
    sqlite.transaction(() => {
      const entries = sqlite.prepare('SELECT rowid AS id, value FROM secret_entries').all() as { id: number; value: string }[];
      const entry = sqlite.prepare('UPDATE secret_entries SET value = ? WHERE rowid = ?');
      for (const { id, value } of entries) entry.run(clear(JSON.parse(value) as string), id);
      const columns: [string, string][] = [
        ['run_tasks', 'hmac_key'],
        ['workspace_variables', 'value'],
        ['variable_set_variables', 'value'],
        ['signing_keys', 'private_key_pem'],
        ['ssh_keys', 'value'],
      ];
      for (const [table, column] of columns) {
        const rows = sqlite.prepare(`SELECT rowid AS id, ${column} AS value FROM ${table} WHERE ${column} IS NOT NULL`).all() as {
          id: number;
          value: string;
        }[];
        const update = sqlite.prepare(`UPDATE ${table} SET ${column} = ? WHERE rowid = ?`);
        for (const { id, value } of rows) update.run(clear(value), id);
      }
      const settings = sqlite.prepare('SELECT name, attributes FROM admin_settings').all() as { name: string; attributes: string }[];
      for (const { name, attributes } of settings) {
        const opened = Object.fromEntries(
          Object.entries(JSON.parse(attributes) as Record<string, unknown>).map(([field, value]) => [
            field,
            typeof value === 'string' ? clear(value) : value,
          ]),
        );
        sqlite.prepare('UPDATE admin_settings SET attributes = ? WHERE name = ?').run(JSON.stringify(opened), name);
      }
    })();
    // The server key stays: the old version already sealed SSH CA and OIDC keys with it. Its
    // upgrade counter stood at two.
    sqlite.pragma('user_version = 2');
  } finally {
    sqlite.close();
  }
}
