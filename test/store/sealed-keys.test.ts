import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { control, platform, startServer, type TestServer } from '../helpers/app.js';
import { verifyAgainstIssuer } from '../platform/workload-identity/verify.js';
import { openSealed, storeText } from './sealed-secrets.js';

// Workload-identity signing keys and workspace SSH keys are sealed under the store's key, as the
// other hidden values are (sealed-at-rest.test.ts): a copied store file holds neither, and the
// server still signs with the key it published.

const work = mkdtempSync(join(tmpdir(), 'understudy-sealed-keys-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const SSH_FIRST = 'ssh-Private-First-6a7b8c';
const SSH_SECOND = 'ssh-Private-Second-9d0e1f';

const start = (file: string) => startServer({ UNDERSTUDY_STORE: file, UNDERSTUDY_EXECUTOR: 'simulated' });

/** A token minted now verifies against the published keys, under the key published before (`kid`). */
async function signsWith(server: TestServer, kid: string): Promise<void> {
  const minted = await control(server, 'POST', '/workload-identity-tokens', { workspace: 'understudy/sealed-keys' });
  expect(minted.status).toBe(201);
  expect(minted.body.kid).toBe(kid);
  expect((await verifyAgainstIssuer(minted.body.token, server.baseUrl)).sub).toMatch(/workspace:sealed-keys:/);
}

function expectNoKeysIn(file: string): void {
  const { bytes, rows } = storeText(file);
  for (const secret of [SSH_FIRST, SSH_SECOND]) {
    expect(bytes, secret).not.toContain(secret);
    expect(rows, secret).not.toContain(secret);
  }
  expect(bytes).not.toContain('PRIVATE KEY');
  expect(rows).not.toContain('PRIVATE KEY');
}

/** The two columns back in clear, and the upgrade counter where the version before left it. */
function toFormBeforeKeySealing(file: string): void {
  const sqlite = new Database(file);
  try {
    const { key: master } = sqlite.prepare("SELECT key FROM server_keys WHERE name = 'at-rest'").get() as { key: Buffer };
    for (const [table, column] of [
      ['signing_keys', 'private_key_pem'],
      ['ssh_keys', 'value'],
    ] as const) {
      const rows = sqlite.prepare(`SELECT rowid AS id, ${column} AS value FROM ${table}`).all() as { id: number; value: string }[];
      expect(rows.length, table).toBeGreaterThan(0);
      const update = sqlite.prepare(`UPDATE ${table} SET ${column} = ? WHERE rowid = ?`);
      for (const { id, value } of rows) update.run(openSealed(master, value), id);
    }
    sqlite.pragma('user_version = 3');
  } finally {
    sqlite.close();
  }
}

describe('signing keys and SSH keys at rest', () => {
  it('are sealed as written and when an older store opens; the server still signs with its published key', async () => {
    const file = join(work, 'keys.db');
    let server = await start(file);
    let kid: string;
    try {
      const created = await platform(server, 'POST', '/organizations/understudy/ssh-keys', {
        body: { data: { type: 'ssh-keys', attributes: { name: 'deploy', value: SSH_FIRST } } },
      });
      expect(created.status).toBe(201);
      // The update path writes a new value: it is the one kept, sealed too.
      const patched = await platform(server, 'PATCH', `/ssh-keys/${created.body.data.id}`, {
        body: { data: { type: 'ssh-keys', attributes: { value: SSH_SECOND } } },
      });
      expect(patched.status).toBe(200);
      const renamed = await platform(server, 'PATCH', `/ssh-keys/${created.body.data.id}`, {
        body: { data: { type: 'ssh-keys', attributes: { name: 'deploy-2' } } },
      });
      expect(renamed.status).toBe(200);
      const workspace = await platform(server, 'POST', '/organizations/understudy/workspaces', {
        body: { data: { type: 'workspaces', attributes: { name: 'sealed-keys' } } },
      });
      expect(workspace.status).toBe(201);
      // The first token creates the first signing key.
      const first = await control(server, 'POST', '/workload-identity-tokens', { workspace: 'understudy/sealed-keys' });
      expect(first.status).toBe(201);
      kid = first.body.kid as string;
      await signsWith(server, kid);
    } finally {
      await server.close();
    }
    expectNoKeysIn(file);
    // A rename left the sealed value alone (not sealed twice): it still opens to the second key.
    const sqlite = new Database(file, { readonly: true });
    try {
      const { key: master } = sqlite.prepare("SELECT key FROM server_keys WHERE name = 'at-rest'").get() as { key: Buffer };
      const { value } = sqlite.prepare('SELECT value FROM ssh_keys').get() as { value: string };
      expect(openSealed(master, value)).toBe(SSH_SECOND);
    } finally {
      sqlite.close();
    }

    server = await start(file);
    try {
      await signsWith(server, kid);
    } finally {
      await server.close();
    }

    toFormBeforeKeySealing(file);
    expect(storeText(file).rows).toContain('PRIVATE KEY');
    expect(storeText(file).rows).toContain(SSH_SECOND);
    server = await start(file);
    try {
      await signsWith(server, kid);
    } finally {
      await server.close();
    }
    expectNoKeysIn(file);
  }, 120_000);
});
