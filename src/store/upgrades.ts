import type Database from 'better-sqlite3';
import { sha256Hex } from '../core/crypto.js';

/**
 * Data upgrades SQL alone cannot express (drizzle migrations are plain SQL). Each runs once,
 * counted by SQLite's `user_version`, which drizzle leaves alone; a fresh store runs them on
 * empty tables and only moves the counter.
 */
const UPGRADES: ((sqlite: Database.Database) => void)[] = [
  // Secrets-API tokens used to be stored by value; from here on the key is the value's SHA-256.
  (sqlite) => {
    sqlite.function('understudy_sha256', { deterministic: true }, (value: unknown) =>
      typeof value === 'string' ? sha256Hex(value) : value,
    );
    sqlite.exec(`
      UPDATE secret_tokens SET id = understudy_sha256(id), parent_id = understudy_sha256(parent_id);
      UPDATE secret_leases SET token_id = understudy_sha256(token_id) WHERE token_id IS NOT NULL;
    `);
  },
];

export function upgradeData(sqlite: Database.Database): void {
  const done = sqlite.pragma('user_version', { simple: true }) as number;
  if (done >= UPGRADES.length) return;
  sqlite.transaction(() => {
    for (const upgrade of UPGRADES.slice(done)) upgrade(sqlite);
    sqlite.pragma(`user_version = ${UPGRADES.length}`);
  })();
}
