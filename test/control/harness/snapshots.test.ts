import { mkdtempSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { SHIPPED_SEED } from '../../../src/config.js';
import { ControllableClock } from '../../../src/core/clock.js';
import { ADMIN_TOKEN, platform, startServer, testConfig, type TestServer } from '../../helpers/app.js';
import { writeSeed } from '../../platform/identity/helpers.js';
import { control, secrets } from './control.js';

const workspace = (name: string) => ({ body: { data: { type: 'workspaces', attributes: { name } } } });

describe('snapshots', () => {
  let server: TestServer;
  const directory = mkdtempSync(join(tmpdir(), 'understudy-snapshot-test-'));
  beforeAll(async () => {
    server = await startServer({ UNDERSTUDY_SNAPSHOT_DIR: directory });
  });
  afterAll(() => server.close());

  const workspaceNames = async (query = '') =>
    (await platform(server, 'GET', `/organizations/understudy/workspaces${query}`)).body.data.map(
      (item: { attributes: { name: string } }) => item.attributes.name,
    );

  it('takes, lists, restores and deletes a snapshot of both APIs; restore keeps the clock unless asked', async () => {
    expect((await platform(server, 'POST', '/organizations/understudy/workspaces', workspace('kept'))).status).toBe(201);
    await secrets(server, 'POST', 'secret/data/app', { data: { v: 'before' } });
    const taken = await control(server, 'POST', '/snapshots', { name: 'base' });
    expect(taken.status).toBe(201);
    expect(taken.body).toMatchObject({ name: 'base', 'size-bytes': statSync(join(directory, 'base.sqlite')).size });
    expect((await control(server, 'GET', '/snapshots')).body.snapshots).toEqual([taken.body]);

    expect((await platform(server, 'POST', '/organizations/understudy/workspaces', workspace('added-later'))).status).toBe(201);
    await secrets(server, 'POST', 'secret/data/app', { data: { v: 'after' } });
    await control(server, 'POST', '/clock', { advance: '48h' });
    const clockBefore = (await control(server, 'GET', '/clock')).body.now;

    const restored = await control(server, 'POST', '/snapshots/base/restore');
    expect(restored.status).toBe(200);
    expect(restored.body.status).toBe('restored');
    // The clock runs on in real time; it stayed two days ahead of the snapshot's.
    expect(Date.parse(restored.body.clock)).toBeGreaterThanOrEqual(Date.parse(clockBefore));
    expect(await workspaceNames()).toEqual(['kept']);
    expect((await secrets(server, 'GET', 'secret/data/app')).body.data.data).toEqual({ v: 'before' });
    // Counts, the name index and the triggers behind them came back with the rows.
    const list = await platform(server, 'GET', '/organizations/understudy/workspaces');
    expect(list.body.meta.pagination['total-count']).toBe(1);
    expect(await workspaceNames('?search%5Bname%5D=kep')).toEqual(['kept']);
    expect((await platform(server, 'POST', '/organizations/understudy/workspaces', workspace('after-restore'))).status).toBe(201);
    expect(await workspaceNames('?search%5Bname%5D=after')).toEqual(['after-restore']);

    const withClock = await control(server, 'POST', '/snapshots/base/restore', { clock: true });
    expect(Date.parse(withClock.body.clock) - Date.parse(taken.body.clock)).toBeLessThan(60_000);
    expect(Date.parse(withClock.body.clock)).toBeGreaterThanOrEqual(Date.parse(taken.body.clock));

    expect((await control(server, 'DELETE', '/snapshots/base')).status).toBe(204);
    expect((await control(server, 'POST', '/snapshots/base/restore')).status).toBe(404);
    expect((await control(server, 'GET', '/snapshots')).body.snapshots).toEqual([]);
  });

  it('refuses a bad name, an existing name unless replaced, and a missing snapshot', async () => {
    for (const name of ['', '../up', 'a b', '.hidden', 'x'.repeat(101)])
      expect((await control(server, 'POST', '/snapshots', { name })).status, name).toBe(400);
    expect((await control(server, 'POST', '/snapshots', {})).status).toBe(400);
    expect((await control(server, 'POST', '/snapshots', { name: 'twice' })).status).toBe(201);
    expect((await control(server, 'POST', '/snapshots', { name: 'twice' })).status).toBe(409);
    expect((await control(server, 'POST', '/snapshots', { name: 'twice', replace: true })).status).toBe(201);
    expect((await control(server, 'GET', '/snapshots/nope')).status).toBe(404);
    expect((await control(server, 'GET', '/snapshots/nope/export')).status).toBe(404);
    expect((await control(server, 'POST', '/snapshots/twice/restore', { clock: 'yes' })).status).toBe(400);
  });

  it('restores what a snapshot taken again under the same name holds, not what the name held when last restored', async () => {
    // Restores read the snapshot file through a memory map: a retaken file is a new file, read anew.
    expect((await platform(server, 'POST', '/organizations/understudy/workspaces', workspace('retaken-first'))).status).toBe(201);
    expect((await control(server, 'POST', '/snapshots', { name: 'retaken', replace: true })).status).toBe(201);
    expect((await control(server, 'POST', '/snapshots/retaken/restore')).status).toBe(200);
    expect((await platform(server, 'POST', '/organizations/understudy/workspaces', workspace('retaken-second'))).status).toBe(201);
    expect((await control(server, 'POST', '/snapshots', { name: 'retaken', replace: true })).status).toBe(201);
    expect((await platform(server, 'POST', '/organizations/understudy/workspaces', workspace('retaken-third'))).status).toBe(201);
    expect((await control(server, 'POST', '/snapshots/retaken/restore')).status).toBe(200);
    const names = await workspaceNames('?search%5Bname%5D=retaken');
    expect(names.sort()).toEqual(['retaken-first', 'retaken-second']);
  });

  it('a restore repeated over a changed world brings back emptied tables and empties filled ones; cached reads see it', async () => {
    const names = async (path: string, attribute: string) =>
      (await platform(server, 'GET', path)).body.data.map((item: { attributes: Record<string, string> }) => item.attributes[attribute]);
    const keys = () => names('/organizations/understudy/reserved-tag-keys', 'key');
    const variables = () => names('/vars?filter%5Borganization%5D%5Bname%5D=understudy&filter%5Bworkspace%5D%5Bname%5D=again-base', 'key');
    expect((await platform(server, 'POST', '/organizations/understudy/workspaces', workspace('again-base'))).status).toBe(201);
    const key = { body: { data: { type: 'reserved-tag-keys', attributes: { key: 'base-key' } } } };
    expect((await platform(server, 'POST', '/organizations/understudy/reserved-tag-keys', key)).status).toBe(201);
    await control(server, 'POST', '/snapshots', { name: 'again', replace: true });
    const workspacesBefore = await workspaceNames();
    // Restored twice in a row first: later restores read the unchanged file from what the first learned of it.
    expect((await control(server, 'POST', '/snapshots/again/restore')).status).toBe(200);
    for (let round = 0; round < 3; round++) {
      // A table the snapshot has no rows in gets one (a variable), others more (a workspace, a token)…
      const variable = {
        body: {
          data: { type: 'vars', attributes: { key: `k${round}`, value: 'v', category: 'env' } },
          filter: { organization: { name: 'understudy' }, workspace: { name: 'again-base' } },
        },
      };
      expect((await platform(server, 'POST', '/vars', variable)).status).toBe(201);
      expect((await platform(server, 'POST', '/organizations/understudy/workspaces', workspace(`fresh-${round}`))).status).toBe(201);
      const token = await secrets(server, 'POST', 'auth/token/create', { policies: ['default'] });
      const fresh = token.body.auth.client_token as string;
      expect((await secrets(server, 'GET', 'auth/token/lookup-self', undefined, fresh)).status).toBe(200);
      // …and one it has rows in is emptied.
      const [reserved] = (await platform(server, 'GET', '/organizations/understudy/reserved-tag-keys')).body.data;
      expect((await platform(server, 'DELETE', `/reserved-tag-keys/${reserved.id}`)).status).toBe(204);
      expect(await keys()).toEqual([]);

      expect((await control(server, 'POST', '/snapshots/again/restore')).status).toBe(200);
      expect(await variables()).toEqual([]);
      expect(await keys()).toEqual(['base-key']);
      expect(await workspaceNames()).toEqual(workspacesBefore);
      expect((await platform(server, 'GET', '/organizations/understudy/workspaces')).body.meta.pagination['total-count']).toBe(
        workspacesBefore.length,
      );
      expect(await workspaceNames(`?search%5Bname%5D=fresh-${round}`)).toEqual([]);
      // The token made after the snapshot was looked up (and remembered) before the restore: it is gone.
      expect((await secrets(server, 'GET', 'auth/token/lookup-self', undefined, fresh)).status).toBe(403);
    }
  });

  it('answers 409 with the reason when the snapshot directory is not a directory it can write to', async () => {
    const notADirectory = join(directory, 'a-file');
    writeFileSync(notADirectory, 'not a directory');
    const misplaced = await startServer({ UNDERSTUDY_SNAPSHOT_DIR: notADirectory });
    try {
      const taken = await control(misplaced, 'POST', '/snapshots', { name: 'nowhere' });
      expect(taken.status).toBe(409);
      expect(taken.body.error).toMatch(/^the file system refused: ENOTDIR.*UNDERSTUDY_SNAPSHOT_DIR.*nothing was changed$/);
      const listed = await control(misplaced, 'GET', '/snapshots');
      expect(listed.status).toBe(409);
      expect(listed.body.error).toContain(notADirectory);
      expect(readFileSync(notADirectory, 'utf8')).toBe('not a directory');
    } finally {
      await misplaced.close();
    }
  });

  it('a restore that fails half-way leaves the world as it was', async () => {
    await secrets(server, 'POST', 'secret/data/app', { data: { v: 'current' } });
    expect((await control(server, 'POST', '/snapshots', { name: 'broken' })).status).toBe(201);
    const file = join(directory, 'broken.sqlite');
    // The schema pages survive; the table pages the copy needs do not.
    truncateSync(file, Math.floor(statSync(file).size / 2));
    const before = await workspaceNames();
    const failed = await control(server, 'POST', '/snapshots/broken/restore');
    expect(failed.status).toBe(409);
    expect(failed.body.error).toContain('nothing was changed');
    expect(await workspaceNames()).toEqual(before);
    expect((await secrets(server, 'GET', 'secret/data/app')).body.data.data).toEqual({ v: 'current' });
    expect((await platform(server, 'POST', '/organizations/understudy/workspaces', workspace('still-writable'))).status).toBe(201);
  });

  it('exports a store file and imports it under another name; refuses a file that is not a store', async () => {
    await secrets(server, 'POST', 'secret/data/exported', { data: { v: 'exported' } });
    expect((await control(server, 'POST', '/snapshots', { name: 'to-export' })).status).toBe(201);
    const exported = await fetch(`${server.baseUrl}/_emulator/snapshots/to-export/export`);
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-disposition')).toBe('attachment; filename="to-export.sqlite"');
    const bytes = Buffer.from(await exported.arrayBuffer());
    expect(bytes.subarray(0, 15).toString()).toBe('SQLite format 3');
    expect(bytes.equals(readFileSync(join(directory, 'to-export.sqlite')))).toBe(true);

    await secrets(server, 'DELETE', 'secret/metadata/exported');
    const imported = await fetch(`${server.baseUrl}/_emulator/snapshots/import?name=imported`, { method: 'POST', body: bytes });
    expect(imported.status).toBe(201);
    expect(((await imported.json()) as { name: string }).name).toBe('imported');
    expect((await control(server, 'POST', '/snapshots/imported/restore')).status).toBe(200);
    expect((await secrets(server, 'GET', 'secret/data/exported')).body.data.data).toEqual({ v: 'exported' });

    const garbage = await fetch(`${server.baseUrl}/_emulator/snapshots/import?name=garbage`, {
      method: 'POST',
      body: 'not a database at all',
    });
    expect(garbage.status).toBe(400);
    expect(((await garbage.json()) as { error: string }).error).toMatch(/not an understudy store/);
    expect((await control(server, 'GET', '/snapshots/garbage')).status).toBe(404);
    const unnamed = await fetch(`${server.baseUrl}/_emulator/snapshots/import`, { method: 'POST', body: bytes });
    expect(unnamed.status).toBe(400);
  });

  it('is consistent when taken while requests write', async () => {
    const writes = Array.from({ length: 30 }, (_, i) => secrets(server, 'POST', `secret/data/load-${i}`, { data: { i: String(i) } }));
    const taken = control(server, 'POST', '/snapshots', { name: 'under-load', replace: true });
    const results = await Promise.all([...writes, taken]);
    expect(results.every((result) => result.status < 300)).toBe(true);
    expect((await control(server, 'POST', '/snapshots/under-load/restore')).status).toBe(200);
    // Whatever the snapshot caught, it is whole: each secret it holds reads back in full.
    const listed = await secrets(server, 'GET', 'secret/metadata/?list=true');
    expect(listed.status).toBe(200);
    for (const key of (listed.body.data.keys as string[]).filter((name) => name.startsWith('load-'))) {
      const read = await secrets(server, 'GET', `secret/data/${key}`);
      expect(read.body.data.data).toEqual({ i: key.slice('load-'.length) });
    }
  });
});

describe('a restore forgets what memory knew about the world before', () => {
  it('starts every client on a fresh rate-limit window', async () => {
    const seed = writeSeed({
      ...JSON.parse(readFileSync(SHIPPED_SEED, 'utf8')),
      'admin-settings': { general: { 'api-rate-limiting-enabled': true, 'api-rate-limit': 30 } },
    });
    // A clock that stands still: every request falls in the same one-second window.
    const clock = new ControllableClock(() => Date.parse('2030-01-01T00:00:00.250Z'));
    const app = await buildApp(testConfig({ UNDERSTUDY_SEED: seed }), { logTo: false, clock });
    try {
      await app.harness.snapshots.create('limits', false);
      const get = () =>
        app.fastify.inject({ url: '/api/v2/organizations/understudy', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      for (let index = 0; index < 30; index++) expect((await get()).statusCode).toBe(200);
      expect((await get()).statusCode).toBe(429);
      app.harness.snapshots.restore('limits', false);
      const after = await get();
      expect(after.statusCode).toBe(200);
      expect(after.headers['x-ratelimit-remaining']).toBe('29');
    } finally {
      await app.fastify.close();
    }
  });
});

describe('a snapshot as the seed (UNDERSTUDY_SEED naming a store file)', () => {
  it('starts from the snapshot and resets back to it', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'understudy-snapshot-seed-'));
    const source = await startServer({ UNDERSTUDY_SNAPSHOT_DIR: directory });
    try {
      expect((await platform(source, 'POST', '/organizations/understudy/workspaces', workspace('from-snapshot'))).status).toBe(201);
      await secrets(source, 'POST', 'secret/data/seeded', { data: { v: 'snap' } });
      expect((await control(source, 'POST', '/snapshots', { name: 'world' })).status).toBe(201);
    } finally {
      await source.close();
    }
    const server = await startServer({ UNDERSTUDY_SEED: join(directory, 'world.sqlite') });
    try {
      const names = async () =>
        (await platform(server, 'GET', '/organizations/understudy/workspaces')).body.data.map(
          (item: { attributes: { name: string } }) => item.attributes.name,
        );
      expect(await names()).toEqual(['from-snapshot']);
      expect((await secrets(server, 'GET', 'secret/data/seeded')).body.data.data).toEqual({ v: 'snap' });
      expect((await platform(server, 'POST', '/organizations/understudy/workspaces', workspace('later'))).status).toBe(201);
      await secrets(server, 'DELETE', 'secret/metadata/seeded');
      expect((await control(server, 'POST', '/reset')).status).toBe(200);
      expect(await names()).toEqual(['from-snapshot']);
      expect((await secrets(server, 'GET', 'secret/data/seeded')).body.data.data).toEqual({ v: 'snap' });
    } finally {
      await server.close();
    }
  });

  it('refuses to start from a store file it cannot read', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'understudy-bad-seed-')), 'broken.sqlite');
    writeFileSync(file, Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(200)]));
    await expect(startServer({ UNDERSTUDY_SEED: file })).rejects.toThrow(/UNDERSTUDY_SEED=.*broken\.sqlite/);
  });
});
