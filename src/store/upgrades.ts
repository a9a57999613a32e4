import type Database from 'better-sqlite3';
import { SecretsAtRest } from '../core/at-rest.js';
import { sha256Hex } from '../core/crypto.js';
import { entryBarrier, SEALED_ENTRY_MARK } from './entry-barrier.js';
import { AT_REST_KEY, serverKey } from './server-keys.js';

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
  // Registry upload ids and module webhook secrets used to be stored as they are; from here on a
  // keyed digest (what lookups compare) and a sealed copy (to show the link again). The secrets
  // themselves do not change, so links and webhook URLs handed out before keep working.
  (sqlite) => {
    const versions = sqlite.prepare('SELECT id, upload_id AS secret FROM registry_module_versions').all() as {
      id: string;
      secret: string;
    }[];
    const modules = sqlite.prepare('SELECT id, vcs_repo AS repo FROM registry_modules WHERE vcs_repo IS NOT NULL').all() as {
      id: string;
      repo: string;
    }[];
    if (versions.length === 0 && modules.length === 0) return; // no key for a store that has nothing to protect
    const atRest = new SecretsAtRest(() => serverKey(sqlite, AT_REST_KEY));
    const rekeyVersion = sqlite.prepare('UPDATE registry_module_versions SET upload_id = ?, upload_sealed = ? WHERE id = ?');
    for (const { id, secret } of versions) rekeyVersion.run(atRest.digest(secret), atRest.seal(secret), id);
    const rekeyModule = sqlite.prepare('UPDATE registry_modules SET vcs_repo = ? WHERE id = ?');
    for (const { id, repo } of modules) {
      const { webhookSecret, ...rest } = JSON.parse(repo) as { webhookSecret: string };
      rekeyModule.run(
        JSON.stringify({ ...rest, webhookDigest: atRest.digest(webhookSecret), webhookSealed: atRest.seal(webhookSecret) }),
        id,
      );
    }
  },
  // Mount storage used to hold every engine's entries in clear; from here on each is sealed.
  (sqlite) => sealClearEntries(sqlite),
];

/**
 * Seals the mount-storage entries still in clear (written by an older version). Reads accept
 * both forms, so this only takes the clear copies out of the file.
 */
export function sealClearEntries(sqlite: Database.Database): void {
  const clear = sqlite
    .prepare('SELECT rowid AS id, value FROM secret_entries WHERE substr(value, 1, ?) <> ?')
    .all(SEALED_ENTRY_MARK.length + 1, `"${SEALED_ENTRY_MARK}`) as { id: number; value: string }[];
  if (clear.length === 0) return;
  const barrier = entryBarrier(sqlite);
  const seal = sqlite.prepare('UPDATE secret_entries SET value = ? WHERE rowid = ?');
  for (const { id, value } of clear) seal.run(JSON.stringify(barrier.sealText(value)), id);
}

export function upgradeData(sqlite: Database.Database): void {
  const done = sqlite.pragma('user_version', { simple: true }) as number;
  if (done >= UPGRADES.length) return;
  sqlite.transaction(() => {
    for (const upgrade of UPGRADES.slice(done)) upgrade(sqlite);
    sqlite.pragma(`user_version = ${UPGRADES.length}`);
  })();
}
