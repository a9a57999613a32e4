import type Database from 'better-sqlite3';
import { SEALED_MARK, SecretsAtRest } from '../core/at-rest.js';
import { sha256Hex } from '../core/crypto.js';
import { storeAtRest } from './entry-barrier.js';
import { AT_REST_KEY, serverKey } from './server-keys.js';

/**
 * Data upgrades: rewrites of stored rows, most of which SQL alone cannot express (drizzle migrations
 * are plain SQL), run after the migrations. Each runs once,
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
  // Hidden values used to sit in clear rows; from here on they are sealed under the store's key.
  (sqlite) => sealHiddenValues(sqlite),
  // Workload-identity signing keys and workspace SSH keys joined the sealed values after that:
  // a store already past the upgrade above seals them now (the rest is sealed already and stays).
  (sqlite) => sealHiddenValues(sqlite),
  // Bulk-created workspaces (the control plane's, seeds) used to be stored without a project, which
  // every read took for the default one; from here on each row names its project, as created ones did.
  (sqlite) => placeUnplacedWorkspaces(sqlite),
];

/**
 * Puts every workspace stored without a project into its organization's default project (made
 * first for an organization from before default projects; migration 0007 made the rest). A
 * snapshot of the same schema taken before upgrade 5 holds such rows too, so a restore runs it.
 */
export function placeUnplacedWorkspaces(sqlite: Database.Database): void {
  sqlite.exec(`
    INSERT INTO projects (id, organization_id, name, description, is_default, created_at, updated_at)
      SELECT 'prj-' || substr(o.id, 5), o.id, 'Default Project', NULL, 1, o.created_at, o.created_at FROM organizations o
      WHERE EXISTS (SELECT 1 FROM workspaces w WHERE w.organization_id = o.id AND w.project_id IS NULL)
        AND NOT EXISTS (SELECT 1 FROM projects p WHERE p.id = 'prj-' || substr(o.id, 5));
    UPDATE workspaces SET project_id = 'prj-' || substr(organization_id, 5) WHERE project_id IS NULL;
  `);
}

/** Admin settings attributes hidden when this upgrade was written (platform/admin-settings/repo.ts keeps the live list). */
const HIDDEN_SETTINGS: Record<string, readonly string[]> = {
  smtp: ['password'],
  sms: ['auth-token'],
  saml: ['private-key'],
  'cost-estimation': ['cloud-a-secret-key', 'cloud-b-credentials', 'cloud-c-client-secret'],
};

/**
 * Seals what an older version kept in clear: every mount-storage entry, run-task HMAC keys, admin
 * settings secrets, sensitive variable values, workload-identity signing keys and workspace SSH
 * keys. Reads accept both forms, so this only takes the
 * clear copies out of the file; a value already sealed is left alone, so it may run again.
 * Returns how many rows it sealed.
 */
export function sealHiddenValues(sqlite: Database.Database): number {
  const { entries, tasks, workspaceVariables, setVariables, signingKeys, sshKeys, clearSettings, hiddenIn, found } =
    clearHiddenRows(sqlite);
  if (found === 0) return 0; // no key for a store that has nothing to protect

  // The clear copies must leave the file, not only the rows: secure_delete zeroes the space an
  // updated row leaves behind (a restore calls this outside upgradeData, which also sets it).
  const secureDelete = sqlite.pragma('secure_delete', { simple: true }) as number;
  sqlite.pragma('secure_delete = ON');
  const atRest = storeAtRest(sqlite);
  const seal = (table: string, column: string, rows: { id: number; value: string }[], sealed: (value: string) => string) => {
    const update = sqlite.prepare(`UPDATE ${table} SET ${column} = ? WHERE rowid = ?`);
    for (const { id, value } of rows) update.run(sealed(value), id);
  };
  seal('secret_entries', 'value', entries, (value) => JSON.stringify(atRest.sealMarked(value)));
  seal('run_tasks', 'hmac_key', tasks, (value) => atRest.sealMarked(value));
  seal('workspace_variables', 'value', workspaceVariables, (value) => atRest.sealMarked(value));
  seal('variable_set_variables', 'value', setVariables, (value) => atRest.sealMarked(value));
  seal('signing_keys', 'private_key_pem', signingKeys, (value) => atRest.sealMarked(value));
  seal('ssh_keys', 'value', sshKeys, (value) => atRest.sealMarked(value));
  const saveSettings = sqlite.prepare('UPDATE admin_settings SET attributes = ? WHERE name = ?');
  for (const { name, attributes } of clearSettings) {
    for (const field of hiddenIn(name, attributes)) attributes[field] = atRest.sealMarked(attributes[field] as string);
    saveSettings.run(JSON.stringify(attributes), name);
  }
  sqlite.pragma(`secure_delete = ${secureDelete}`);
  return found;
}

/** How many rows of a store hold a hidden value in clear (written by an older version); nothing is changed. */
export function countClearHiddenValues(sqlite: Database.Database): number {
  return clearHiddenRows(sqlite).found;
}

/** The rows whose hidden values are in clear, by table, and how many in all. */
function clearHiddenRows(sqlite: Database.Database) {
  const unmarked = (column: string) => `(substr(${column}, 1, ${SEALED_MARK.length}) <> '${SEALED_MARK}')`;
  const entries = sqlite
    .prepare(`SELECT rowid AS id, value FROM secret_entries WHERE substr(value, 1, ?) <> ?`)
    .all(SEALED_MARK.length + 1, `"${SEALED_MARK}`) as { id: number; value: string }[];
  const tasks = sqlite
    .prepare(`SELECT rowid AS id, hmac_key AS value FROM run_tasks WHERE hmac_key <> '' AND ${unmarked('hmac_key')}`)
    .all() as {
    id: number;
    value: string;
  }[];
  const variables = (table: string) =>
    sqlite.prepare(`SELECT rowid AS id, value FROM ${table} WHERE sensitive = 1 AND ${unmarked('value')}`).all() as {
      id: number;
      value: string;
    }[];
  const clearIn = (table: string, column: string) =>
    sqlite.prepare(`SELECT rowid AS id, ${column} AS value FROM ${table} WHERE ${unmarked(column)}`).all() as {
      id: number;
      value: string;
    }[];
  const signingKeys = clearIn('signing_keys', 'private_key_pem');
  const sshKeys = clearIn('ssh_keys', 'value');
  const workspaceVariables = variables('workspace_variables');
  const setVariables = variables('variable_set_variables');
  const settings = sqlite.prepare('SELECT name, attributes FROM admin_settings').all() as { name: string; attributes: string }[];
  const hiddenIn = (name: string, attributes: Record<string, unknown>) =>
    (HIDDEN_SETTINGS[name] ?? []).filter((field) => {
      const value = attributes[field];
      return typeof value === 'string' && value !== '' && !value.startsWith(SEALED_MARK);
    });
  const clearSettings = settings
    .map(({ name, attributes }) => ({ name, attributes: JSON.parse(attributes) as Record<string, unknown> }))
    .filter(({ name, attributes }) => hiddenIn(name, attributes).length > 0);
  const found =
    entries.length +
    tasks.length +
    workspaceVariables.length +
    setVariables.length +
    clearSettings.length +
    signingKeys.length +
    sshKeys.length;
  return { entries, tasks, workspaceVariables, setVariables, signingKeys, sshKeys, clearSettings, hiddenIn, found };
}

export function upgradeData(sqlite: Database.Database): void {
  const done = sqlite.pragma('user_version', { simple: true }) as number;
  if (done >= UPGRADES.length) return;
  // The clear values an upgrade replaces must not stay behind in the file's free space.
  const secureDelete = sqlite.pragma('secure_delete', { simple: true }) as number;
  sqlite.pragma('secure_delete = ON');
  try {
    sqlite.transaction(() => {
      for (const upgrade of UPGRADES.slice(done)) upgrade(sqlite);
      sqlite.pragma(`user_version = ${UPGRADES.length}`);
    })();
  } finally {
    sqlite.pragma(`secure_delete = ${secureDelete}`);
  }
  // Pages an upgrade rewrote reach the database file now, not at some later checkpoint, so the
  // older versions of those pages leave the file (a no-op for an in-memory store).
  sqlite.pragma('wal_checkpoint(TRUNCATE)');
}
