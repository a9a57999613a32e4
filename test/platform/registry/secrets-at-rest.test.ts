import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform, startServer, type TestServer } from '../../helpers/app.js';
import { moduleFiles, tarball } from './archives.js';
import { gitRepository } from './git.js';
import { ORG } from './helpers.js';

// Registry upload ids and module webhook secrets are kept as keyed digests and sealed copies
// (src/core/at-rest.ts): the store file must not hold them, and the links must still work.

let work: string;
let base: string;

const tf = (label: string) => [{ name: 'main.tf', content: `output "label" {\n  value = "${label}"\n}\n` }];
const modulePath = (name: string) => `/organizations/${ORG}/registry-modules/private/${ORG}/${name}/aws`;
const readVersion = (server: TestServer, name: string) => platform(server, 'GET', `${modulePath(name)}/version?module_version=1.0.0`);

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'understudy-at-rest-test-'));
  ({ base } = await gitRepository(work, 'terraform-aws-hooked', [{ tag: 'v1.0.0', files: tf('one') }]));
});
afterAll(() => rm(work, { recursive: true, force: true }));

/** Every byte of the store: the database file and its write-ahead log (a closed store has checkpointed, but be sure). */
function storeBytes(file: string): string {
  return [file, `${file}-wal`]
    .filter((path) => existsSync(path))
    .map((path) => readFileSync(path).toString('latin1'))
    .join('');
}

/** Every row of every table, as text. */
function storeRows(file: string): string {
  const sqlite = new Database(file, { readonly: true });
  try {
    const tables = sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
    return tables.map(({ name }) => JSON.stringify(sqlite.prepare(`SELECT * FROM "${name}"`).raw().all())).join('\n');
  } finally {
    sqlite.close();
  }
}

/** A private module with a pending version, and a VCS-linked module; returns the upload link and the webhook URL. */
async function makeSecrets(server: TestServer, name: string): Promise<{ upload: string; webhook: string }> {
  const created = await platform(server, 'POST', `/organizations/${ORG}/registry-modules`, {
    body: { data: { type: 'registry-modules', attributes: { name, provider: 'aws' } } },
  });
  expect(created.status).toBe(201);
  const version = await platform(server, 'POST', `${modulePath(name)}/versions`, {
    body: { data: { type: 'registry-module-versions', attributes: { version: '1.0.0' } } },
  });
  expect(version.status).toBe(201);
  const client = await platform(server, 'POST', `/organizations/${ORG}/oauth-clients`, {
    body: {
      data: {
        type: 'oauth-clients',
        attributes: { 'service-provider': 'github', 'http-url': base, 'api-url': base, 'oauth-token-string': 'x' },
      },
    },
  });
  const tokenId: string = client.body.data.relationships['oauth-tokens'].data[0].id;
  const linked = await platform(server, 'POST', `/organizations/${ORG}/registry-modules/vcs`, {
    body: {
      data: {
        type: 'registry-modules',
        attributes: { 'vcs-repo': { identifier: 'acme/terraform-aws-hooked', 'oauth-token-id': tokenId } },
      },
    },
  });
  expect(linked.status).toBe(201);
  return { upload: version.body.data.links.upload, webhook: linked.body.data.attributes['vcs-repo']['webhook-url'] };
}

const lastSegment = (url: string) => url.slice(url.lastIndexOf('/') + 1);
const putArchive = async (url: string) =>
  fetch(url, {
    method: 'PUT',
    headers: { 'content-type': 'application/octet-stream' },
    body: new Uint8Array(await tarball(moduleFiles('hi'))),
  });

describe('registry secrets at rest', () => {
  it('the store file holds neither the upload id nor the webhook secret; both links keep working after a restart', async () => {
    const file = join(work, 'fresh.db');
    let server = await startServer({ UNDERSTUDY_STORE: file });
    const { upload, webhook } = await makeSecrets(server, 'fresh');
    await server.close();

    for (const secret of [lastSegment(upload), lastSegment(webhook)]) {
      expect(secret.length).toBeGreaterThanOrEqual(32);
      expect(storeBytes(file)).not.toContain(secret);
      expect(storeRows(file)).not.toContain(secret);
    }

    server = await startServer({ UNDERSTUDY_STORE: file });
    try {
      // Shown again, the same, while the version is pending and the module linked.
      const version = await readVersion(server, 'fresh');
      expect(version.status).toBe(200);
      expect(lastSegment(version.body.data.links.upload)).toBe(lastSegment(upload));
      const module = await platform(server, 'GET', modulePath('hooked'));
      expect(lastSegment(module.body.data.attributes['vcs-repo']['webhook-url'])).toBe(lastSegment(webhook));

      expect((await putArchive(`${server.baseUrl}/api/registry/uploads/v1/object/not-the-secret`)).status).toBe(404);
      expect((await putArchive(version.body.data.links.upload)).status).toBe(200);
      const uploaded = await readVersion(server, 'fresh');
      expect(uploaded.body.data.attributes.status).toBe('ok');

      const hooked = new URL(webhook);
      const deliver = (secret: string) =>
        fetch(`${server.baseUrl}${hooked.pathname.replace(/[^/]+$/, secret)}`, {
          method: 'POST',
          body: '{}',
          headers: { 'content-type': 'application/json' },
        });
      expect((await deliver('wrong-secret')).status).toBe(404);
      expect((await deliver(lastSegment(webhook))).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('a store with plain values from before upgrades: they are re-keyed, and the links handed out before still work', async () => {
    const file = join(work, 'old.db');
    let server = await startServer({ UNDERSTUDY_STORE: file });
    await makeSecrets(server, 'old');
    await server.close();

    // Back to the old form: plain secrets in the rows, no server key, the upgrade counter before this upgrade.
    const plainUpload = 'plain-upload-id-from-an-old-store-0123';
    const plainWebhook = 'plain-webhook-secret-from-an-old-store-4567';
    const sqlite = new Database(file);
    sqlite.prepare("UPDATE registry_module_versions SET upload_id = ?, upload_sealed = NULL WHERE source = 'svc-api'").run(plainUpload);
    sqlite
      .prepare("UPDATE registry_module_versions SET upload_id = 'plain-vcs-upload-id', upload_sealed = NULL WHERE source = 'vcs'")
      .run();
    const { id, vcs_repo: repo } = sqlite.prepare('SELECT id, vcs_repo FROM registry_modules WHERE vcs_repo IS NOT NULL').get() as {
      id: string;
      vcs_repo: string;
    };
    const { webhookDigest: _digest, webhookSealed: _sealed, ...rest } = JSON.parse(repo) as Record<string, unknown>;
    sqlite
      .prepare('UPDATE registry_modules SET vcs_repo = ? WHERE id = ?')
      .run(JSON.stringify({ ...rest, webhookSecret: plainWebhook }), id);
    sqlite.prepare('DELETE FROM server_keys').run();
    sqlite.pragma('user_version = 1');
    sqlite.close();
    expect(storeRows(file)).toContain(plainUpload);

    server = await startServer({ UNDERSTUDY_STORE: file });
    try {
      const version = await readVersion(server, 'old');
      expect(lastSegment(version.body.data.links.upload)).toBe(plainUpload);
      const module = await platform(server, 'GET', modulePath('hooked'));
      const webhook: string = module.body.data.attributes['vcs-repo']['webhook-url'];
      expect(lastSegment(webhook)).toBe(plainWebhook);

      expect((await putArchive(version.body.data.links.upload)).status).toBe(200);
      expect((await fetch(webhook, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })).status).toBe(200);
    } finally {
      await server.close();
    }
    expect(storeRows(file)).not.toContain(plainUpload);
    expect(storeRows(file)).not.toContain(plainWebhook);
  });
});
