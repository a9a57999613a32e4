import { copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { control, secrets } from './control.js';

/**
 * A snapshot whose schema is right but whose rows are not (a mount's JSON config cut short, a
 * time that is text): refused on import (400) and on restore (409), the world kept, and the
 * secrets API answering as before.
 */
describe('a hostile snapshot', () => {
  let server: TestServer;
  const directory = mkdtempSync(join(tmpdir(), 'understudy-hostile-snapshot-'));
  beforeAll(async () => {
    server = await startServer({ UNDERSTUDY_SNAPSHOT_DIR: directory });
  });
  afterAll(() => server.close());

  /** A copy of a good snapshot with `damage` applied to its rows, left in the snapshot directory as `name`. */
  function damaged(name: string, damage: string): string {
    const file = join(directory, `${name}.sqlite`);
    copyFileSync(join(directory, 'good.sqlite'), file);
    const sqlite = new Database(file);
    sqlite.exec(damage);
    sqlite.close();
    return file;
  }

  it('is refused on import and on restore, and nothing changes', async () => {
    await secrets(server, 'POST', 'secret/data/kept', { data: { v: 'before' } });
    expect((await control(server, 'POST', '/snapshots', { name: 'good' })).status).toBe(201);
    await secrets(server, 'POST', 'secret/data/kept', { data: { v: 'after' } });

    for (const [name, damage] of [
      ['bad-json', "UPDATE mounts SET config = '{' WHERE path = 'secret/'"],
      ['bad-time', "UPDATE secret_tokens SET created_at = 'yesterday'"],
    ] as const) {
      const file = damaged(name, damage);
      const imported = await fetch(`${server.baseUrl}/_emulator/snapshots/import?name=${name}-imported`, {
        method: 'POST',
        body: readFileSync(file),
      });
      expect(imported.status, name).toBe(400);
      expect(await imported.text()).toContain('cannot be read');
      const restored = await control(server, 'POST', `/snapshots/${name}/restore`);
      expect(restored.status, name).toBe(409);
      expect(restored.body.error).toContain('nothing was changed');
      const mounts = await secrets(server, 'GET', 'sys/mounts');
      expect(mounts.status).toBe(200);
      expect((await secrets(server, 'GET', 'secret/data/kept')).body.data.data).toEqual({ v: 'after' });
    }
    // The good one still restores.
    expect((await control(server, 'POST', '/snapshots/good/restore')).status).toBe(200);
    expect((await secrets(server, 'GET', 'secret/data/kept')).body.data.data).toEqual({ v: 'before' });
  });

  it('is refused when a snapshot restored before was damaged on disk since', async () => {
    expect((await control(server, 'POST', '/snapshots', { name: 'once-good', replace: true })).status).toBe(201);
    expect((await control(server, 'POST', '/snapshots/once-good/restore')).status).toBe(200);
    // Written in place (same file, same size): a restore must not take its earlier check for this content.
    const sqlite = new Database(join(directory, 'once-good.sqlite'));
    sqlite.exec("UPDATE mounts SET config = '{' WHERE path = 'secret/'");
    sqlite.close();
    const restored = await control(server, 'POST', '/snapshots/once-good/restore');
    expect(restored.status).toBe(409);
    expect(restored.body.error).toContain('cannot be read');
    expect((await secrets(server, 'GET', 'sys/mounts')).status).toBe(200);
  });
});
