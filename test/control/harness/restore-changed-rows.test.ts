import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform, startServer, type TestServer } from '../../helpers/app.js';
import { control, secrets } from './control.js';

/**
 * A restore of the snapshot restored last, into a store written since, puts back only the rows
 * written (snapshots.ts, `copyChangedRows`). Each test writes on a path that restore must undo,
 * restores, and reads the world as a client would; the store's schema version tells which way the
 * restore went (a whole copy drops and makes again the triggers and full-text tables; putting rows
 * back changes no schema).
 */
describe('a restore that puts back only the rows written since the last one', () => {
  let server: TestServer;
  const directory = mkdtempSync(join(tmpdir(), 'understudy-restore-changed-'));
  const WORKSPACES = 30;
  beforeAll(async () => {
    server = await startServer({ UNDERSTUDY_SNAPSHOT_DIR: directory });
    const bulk = await control(server, 'POST', '/organizations/understudy/workspaces/bulk', { count: WORKSPACES, prefix: 'kept' });
    expect(bulk.status).toBeLessThan(300);
    for (const name of ['one', 'two', 'three'])
      expect((await secrets(server, 'POST', `secret/data/${name}`, { data: { name } })).status).toBe(200);
    expect((await control(server, 'POST', '/snapshots', { name: 'world' })).status).toBe(201);
  });
  afterAll(() => server.close());

  const sqlite = () => server.app.runtime.store.sqlite;
  const schemaVersion = () => sqlite().pragma('schema_version', { simple: true }) as number;
  const restore = async () => expect((await control(server, 'POST', '/snapshots/world/restore')).status).toBe(200);
  /**
   * The snapshot restored so that what is written next is recorded: the store records writes from
   * a whole copy of the snapshot restored last on (a copy after a write, the usual restore before each test).
   */
  const restoreRecording = async () => {
    await restore();
    expect((await secrets(server, 'PUT', 'cubbyhole/before', { value: 'written' })).status).toBe(204);
    await restore();
  };
  const workspaces = async (query = '') => {
    const page = await platform(server, 'GET', `/organizations/understudy/workspaces?page%5Bsize%5D=100${query}`);
    return {
      names: page.body.data.map((item: { attributes: { name: string } }) => item.attributes.name).sort() as string[],
      total: page.body.meta.pagination['total-count'] as number,
    };
  };
  const workspace = (name: string) => `/organizations/understudy/workspaces/${name}`;
  const secret = async (name: string) => (await secrets(server, 'GET', `secret/data/${name}`)).body?.data?.data;
  const snapshotNames = Array.from({ length: WORKSPACES }, (_, index) => `kept-${String(index + 1).padStart(2, '0')}`);

  it('undoes renames, deletions and creations of workspaces and secrets, with the counts and the name search whole', async () => {
    await restoreRecording();
    const version = schemaVersion();
    const renamed = await platform(server, 'PATCH', workspace('kept-01'), {
      body: { data: { type: 'workspaces', attributes: { name: 'renamed-01' } } },
    });
    expect(renamed.status).toBe(200);
    expect((await platform(server, 'DELETE', workspace('kept-02'))).status).toBeLessThan(300);
    const made = await platform(server, 'POST', '/organizations/understudy/workspaces', {
      body: { data: { type: 'workspaces', attributes: { name: 'made-later' } } },
    });
    expect(made.status).toBe(201);
    expect((await secrets(server, 'POST', 'secret/data/one', { data: { name: 'changed' } })).status).toBe(200);
    expect((await secrets(server, 'DELETE', 'secret/metadata/two')).status).toBe(204);
    expect((await secrets(server, 'PUT', 'cubbyhole/note', { value: 'written since' })).status).toBe(204);

    await restore();
    expect(schemaVersion()).toBe(version);
    expect(await workspaces()).toEqual({ names: snapshotNames, total: WORKSPACES });
    expect((await workspaces('&search%5Bname%5D=kept-01')).names).toEqual(['kept-01']);
    expect((await workspaces('&search%5Bname%5D=renamed')).names).toEqual([]);
    expect((await workspaces('&search%5Bname%5D=made-later')).names).toEqual([]);
    expect(await secret('one')).toEqual({ name: 'one' });
    expect(await secret('two')).toEqual({ name: 'two' });
    expect((await secrets(server, 'GET', 'cubbyhole/note')).status).toBe(404);
    // FTS5's own check of the index against the rows (it throws on a mismatch).
    expect(() => sqlite().prepare("INSERT INTO workspace_names(workspace_names, rank) VALUES ('integrity-check', 1)").run()).not.toThrow();
    // The world written again after the restore reads as written (the index and counts take writes).
    await platform(server, 'POST', '/organizations/understudy/workspaces', {
      body: { data: { type: 'workspaces', attributes: { name: 'kept-after' } } },
    });
    expect((await workspaces('&search%5Bname%5D=kept-a')).names).toEqual(['kept-after']);
    expect((await workspaces()).total).toBe(WORKSPACES + 1);
  });

  it('brings back a row a REPLACE conflict deleted, which no trigger sees', async () => {
    await restoreRecording();
    // Each row is deleted by the conflict and written again under a new rowid.
    sqlite().prepare('INSERT OR REPLACE INTO secret_entries SELECT * FROM secret_entries').run();
    sqlite().prepare('DELETE FROM secret_entries WHERE rowid = (SELECT max(rowid) FROM secret_entries)').run();
    await restore();
    for (const name of ['one', 'two', 'three']) expect(await secret(name)).toEqual({ name });
  });

  it('copies every table when more rows were written than it puts back one by one', async () => {
    await restoreRecording();
    const version = schemaVersion();
    const bulk = await control(server, 'POST', '/organizations/understudy/workspaces/bulk', { count: 2500, prefix: 'many' });
    expect(bulk.status).toBeLessThan(300);
    await restore();
    expect(schemaVersion()).not.toBe(version);
    expect(await workspaces()).toEqual({ names: snapshotNames, total: WORKSPACES });
  });

  it('copies every table after a reset, whose writes nothing recorded', async () => {
    await restoreRecording();
    expect((await control(server, 'POST', '/reset')).status).toBe(200);
    await restore();
    expect(await workspaces()).toEqual({ names: snapshotNames, total: WORKSPACES });
    expect(await secret('three')).toEqual({ name: 'three' });
  });
});
