import { existsSync, linkSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { v1 } from '../core/client.js';
import { auditDir, records } from './support.js';

// Issue 31 item 9: an audit device may not write into the store's own files, nor create a
// program (setuid, setgid, sticky or executable modes). Any other path stays the operator's choice.

describe('audit device targets', () => {
  let server: TestServer;
  const dir = auditDir();
  const store = join(dir, 'store.db');
  beforeAll(async () => {
    server = await startServer({ UNDERSTUDY_STORE: store });
  });
  afterAll(() => server.close());

  const enable = (path: string, options: Record<string, string>) =>
    v1(server, 'PUT', `sys/audit/${path}`, { body: { type: 'file', options } });

  it("refuses the store's database, WAL and shared-memory files, also through links, and stores nothing", async () => {
    const before = readFileSync(store).subarray(0, 100);
    const link = join(dir, 'alias.db');
    symlinkSync(store, link);
    const hard = join(dir, 'hard-wal');
    expect(existsSync(`${store}-wal`)).toBe(true);
    linkSync(`${store}-wal`, hard);
    for (const target of [store, `${store}-wal`, `${store}-shm`, link, hard, `${dir}/./store.db`]) {
      const reply = await enable('store', { file_path: target });
      expect(reply.status, target).toBe(400);
      expect(reply.body.errors[0]).toContain("is one of the store's own files");
    }
    expect((await v1(server, 'GET', 'sys/audit')).body.data).toEqual({});
    expect(readFileSync(store).subarray(0, 100).equals(before)).toBe(true);
    const sqlite = new Database(store, { readonly: true });
    try {
      expect(sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      sqlite.close();
    }
  });

  it('refuses setuid, setgid, sticky and executable modes, and creates no file', async () => {
    for (const mode of ['4777', '2644', '1600', '0755', '0700', '0611']) {
      const file = join(dir, `mode-${mode}.log`);
      const reply = await enable(`mode-${mode}`, { file_path: file, mode });
      expect(reply.status, mode).toBe(400);
      expect(reply.body.errors).toEqual([`file mode ${mode} is not allowed: audit files may not be executable, setuid, setgid or sticky`]);
      expect(existsSync(file)).toBe(false);
    }
    expect((await v1(server, 'GET', 'sys/audit')).body.data).toEqual({});
  });

  it('keeps any other path and a read-write mode, as the real service does', async () => {
    const file = join(dir, 'elsewhere.log');
    expect((await enable('fine', { file_path: file, mode: '0640' })).status).toBe(204);
    expect((await v1(server, 'GET', 'sys/mounts')).status).toBe(200);
    expect(statSync(file).mode & 0o7777).toBe(0o640 & ~process.umask());
    expect(records(file).length).toBeGreaterThan(0);
    expect((await v1(server, 'DELETE', 'sys/audit/fine')).status).toBe(204);
  });
});
