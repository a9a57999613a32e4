import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform, startServer, type TestServer } from '../../helpers/app.js';
import { control, secrets } from './control.js';

/**
 * A restore of the same unchanged snapshot file copies nothing while no row changed since the
 * last restore (snapshots.ts, `lastRestore`). Each test here changes the world between two
 * restores on a path the shortcut must notice, then reads what the snapshot holds.
 */
describe('a restore repeated with nothing changed in between', () => {
  let server: TestServer;
  const directory = mkdtempSync(join(tmpdir(), 'understudy-restore-unchanged-'));
  beforeAll(async () => {
    server = await startServer({ UNDERSTUDY_SNAPSHOT_DIR: directory });
    const made = await platform(server, 'POST', '/organizations/understudy/workspaces', {
      body: { data: { type: 'workspaces', attributes: { name: 'alpha-kept' } } },
    });
    expect(made.status).toBe(201);
    expect((await secrets(server, 'POST', 'secret/data/app', { data: { v: 'a' } })).status).toBe(200);
    expect((await control(server, 'POST', '/snapshots', { name: 'a' })).status).toBe(201);
  });
  afterAll(() => server.close());

  const restore = async (name: string) => expect((await control(server, 'POST', `/snapshots/${name}/restore`)).status).toBe(200);
  const names = async (query = '') =>
    (await platform(server, 'GET', `/organizations/understudy/workspaces${query}`)).body.data.map(
      (item: { attributes: { name: string } }) => item.attributes.name,
    );
  const secret = async () => (await secrets(server, 'GET', 'secret/data/app')).body.data.data;
  const sqlite = () => server.app.runtime.store.sqlite;

  it('brings back the snapshot after an API write, twice over, with the name search and list count whole', async () => {
    await restore('a');
    await restore('a');
    const made = await platform(server, 'POST', '/organizations/understudy/workspaces', {
      body: { data: { type: 'workspaces', attributes: { name: 'alpha-later' } } },
    });
    expect(made.status).toBe(201);
    await secrets(server, 'POST', 'secret/data/app', { data: { v: 'changed' } });
    await restore('a');
    expect(await names()).toEqual(['alpha-kept']);
    expect(await secret()).toEqual({ v: 'a' });
    expect(await names('?search%5Bname%5D=alpha')).toEqual(['alpha-kept']);
    await restore('a');
    const list = await platform(server, 'GET', '/organizations/understudy/workspaces');
    expect(list.body.meta.pagination['total-count']).toBe(1);
    // The full-text index takes writes after a copy-free restore.
    await platform(server, 'POST', '/organizations/understudy/workspaces', {
      body: { data: { type: 'workspaces', attributes: { name: 'alpha-after' } } },
    });
    expect(await names('?search%5Bname%5D=alpha')).toEqual(['alpha-after', 'alpha-kept']);
    // FTS5's own check of the index against the rows (it throws on a mismatch).
    expect(() => sqlite().prepare("INSERT INTO workspace_names(workspace_names, rank) VALUES ('integrity-check', 1)").run()).not.toThrow();
  });

  it('brings back rows written, changed and deleted with SQL straight to the store', async () => {
    await restore('a');
    await restore('a');
    sqlite().prepare("UPDATE workspaces SET name = 'alpha-renamed'").run();
    await restore('a');
    expect(await names()).toEqual(['alpha-kept']);
    sqlite().prepare('DELETE FROM secret_entries').run();
    await restore('a');
    expect(await secret()).toEqual({ v: 'a' });
    // A write rolled back still counts as a change: the restore copies, and the world is the snapshot's.
    expect(() =>
      sqlite().transaction(() => {
        sqlite().prepare("UPDATE workspaces SET name = 'alpha-rolled-back'").run();
        throw new Error('roll back');
      })(),
    ).toThrow('roll back');
    await restore('a');
    expect(await names()).toEqual(['alpha-kept']);
  });

  it('restores snapshot A after B, and B after A, with nothing written in between', async () => {
    await restore('a');
    await platform(server, 'POST', '/organizations/understudy/workspaces', {
      body: { data: { type: 'workspaces', attributes: { name: 'bravo-only' } } },
    });
    expect((await control(server, 'POST', '/snapshots', { name: 'b' })).status).toBe(201);
    await restore('a');
    await restore('b');
    expect(await names()).toEqual(['alpha-kept', 'bravo-only']);
    await restore('a');
    expect(await names()).toEqual(['alpha-kept']);
    expect(await names('?search%5Bname%5D=bravo')).toEqual([]);
    await restore('b');
    expect(await names('?search%5Bname%5D=bravo')).toEqual(['bravo-only']);
  });

  it('restores what a snapshot taken again under the same name holds', async () => {
    await restore('a');
    await platform(server, 'POST', '/organizations/understudy/workspaces', {
      body: { data: { type: 'workspaces', attributes: { name: 'charlie' } } },
    });
    expect((await control(server, 'POST', '/snapshots', { name: 'c' })).status).toBe(201);
    await restore('a');
    expect((await control(server, 'POST', '/snapshots', { name: 'c', replace: true })).status).toBe(201);
    await restore('c');
    await restore('a');
    expect(await names()).toEqual(['alpha-kept']);
    await restore('c');
    expect(await names()).toEqual(['alpha-kept']);
  });

  it('brings back the snapshot after a reset', async () => {
    await restore('a');
    expect((await control(server, 'POST', '/reset')).status).toBe(200);
    await restore('a');
    expect(await names()).toEqual(['alpha-kept']);
    expect(await secret()).toEqual({ v: 'a' });
  });
});
