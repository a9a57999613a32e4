import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findSettings } from '../../src/platform/admin-settings/repo.js';
import { control, platform, startServer, type TestServer } from '../helpers/app.js';
import { newWorkspace, ORG } from '../platform/runs/helpers.js';
import { v1 } from '../secrets/core/client.js';
import { storeText, unsealToOldForm } from './sealed-secrets.js';

// A snapshot made before hidden values were sealed (clear values in its rows, and clear values an
// older server overwrote still lying in its free pages) is imported or found in the snapshots
// directory, then restored. Afterwards no file under the store's directory (the store, its -wal
// and -shm, every snapshot and partial file) holds a byte of any clear value, while the server
// runs and after it stops; the restored world still reads every value.

/** Every clear value below starts with this; sealed values are base64url and never contain it. */
const MARK = 'RESIDUE-CLEAR-';
const SMTP = `${MARK}smtp-password`;
const HMAC = `${MARK}hmac-key`;
const VARIABLE = `${MARK}sensitive-variable`;
/** Large values (overflow pages) and enough of them that the restore's copy is several MB. */
const KV_COUNT = 150;
/** Made of the mark over and over, so any fragment of it (an overflow page) shows the mark. */
const kvValue = (i: number) => Array.from({ length: 600 }, () => `${MARK}kv-${i}`).join('|');
/** A value the older server overwrote: gone from the rows, left in the file's free pages. */
const OVERWRITTEN = `${MARK}overwritten-earlier`;

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'understudy-residue-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

const start = (file: string) => startServer({ UNDERSTUDY_STORE: file, UNDERSTUDY_EXECUTOR: 'simulated' });

/** Every regular file under `dir`, at any depth. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** The files under `dir` whose bytes hold the mark, with how many times. */
function clearCopiesUnder(dir: string): Record<string, number> {
  const found: Record<string, number> = {};
  for (const file of filesUnder(dir)) {
    const count = readFileSync(file).toString('latin1').split(MARK).length - 1;
    if (count > 0) found[file] = count;
  }
  return found;
}

async function ok(status: number, what: string, body: unknown) {
  expect(status, `${what}: ${JSON.stringify(body)}`).toBeLessThan(300);
}

/** A snapshot file in the form the version before sealing wrote, with clear values in rows and in free pages. */
async function oldSnapshot(): Promise<string> {
  const file = join(work, 'source', 'store.db');
  const server = await start(file);
  try {
    let reply = await platform(server, 'PATCH', '/admin/smtp-settings', {
      body: { data: { type: 'smtp-settings', attributes: { auth: 'plain', username: 'mailer', password: SMTP } } },
    });
    await ok(reply.status, 'smtp', reply.body);
    const task = { name: 'residue', url: 'http://127.0.0.1:9/hook', description: 'checks', category: 'task', 'hmac-key': HMAC };
    reply = await platform(server, 'POST', `/organizations/${ORG}/tasks`, { body: { data: { type: 'tasks', attributes: task } } });
    await ok(reply.status, 'task', reply.body);
    const ws = await newWorkspace(server, 'residue');
    const variable = { key: 'SECRET', value: VARIABLE, category: 'env', sensitive: true };
    reply = await platform(server, 'POST', `/workspaces/${ws}/vars`, { body: { data: { type: 'vars', attributes: variable } } });
    await ok(reply.status, 'variable', reply.body);
    const mount = await v1(server, 'POST', 'sys/mounts/residue', { body: { type: 'kv' } });
    await ok(mount.status, 'mount', mount.body);
    for (let i = 0; i < KV_COUNT; i++) {
      const written = await v1(server, 'POST', `residue/k${i}`, { body: { value: kvValue(i) } });
      await ok(written.status, 'kv', written.body);
    }
    const taken = await control(server, 'POST', '/snapshots', { name: 'old' });
    await ok(taken.status, 'snapshot', taken.body);
  } finally {
    await server.close();
  }
  const old = join(work, 'old.sqlite');
  copyFileSync(join(work, 'source', 'snapshots', 'old.sqlite'), old);
  unsealToOldForm(old);
  // The older server wrote without secure_delete: a value it overwrote stays in the free pages.
  const sqlite = new Database(old);
  try {
    sqlite.pragma('secure_delete = OFF');
    const { mount } = sqlite.prepare('SELECT mount_uuid AS mount FROM secret_entries LIMIT 1').get() as { mount: string };
    // Larger than what sealing the values adds, so the pages it frees are not all taken up again.
    const overwritten = Array.from({ length: 100_000 }, () => OVERWRITTEN).join('|');
    sqlite.prepare('INSERT INTO secret_entries (mount_uuid, key, value) VALUES (?, ?, ?)').run(mount, 'overwritten', overwritten);
    sqlite.prepare("DELETE FROM secret_entries WHERE key = 'overwritten'").run();
  } finally {
    sqlite.close();
  }
  // The precondition: the file holds every value in clear, the overwritten one outside any row.
  const { bytes, rows } = storeText(old);
  for (const clear of [SMTP, HMAC, VARIABLE, `${MARK}kv-0|`, `${MARK}kv-${KV_COUNT - 1}|`, OVERWRITTEN])
    expect(bytes.includes(clear), clear).toBe(true);
  expect(rows.includes(OVERWRITTEN)).toBe(false);
  return old;
}

/** The restored world reads each value again. */
async function readsEveryValue(server: TestServer) {
  for (const i of [0, KV_COUNT - 1]) {
    const read = await v1(server, 'GET', `residue/k${i}`);
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual({ value: kvValue(i) });
  }
  expect(findSettings(server.app.runtime.store.db, 'smtp')?.['password']).toBe(SMTP);
}

let old: string;
beforeAll(async () => {
  old = await oldSnapshot();
}, 120_000);

describe('restoring a snapshot made before sealing leaves no clear copy behind', () => {
  it('through an import: the store, its WAL and the snapshots directory hold none, running and stopped', async () => {
    const dir = join(work, 'imported');
    const server = await start(join(dir, 'store.db'));
    try {
      const imported = await fetch(`${server.baseUrl}/_emulator/snapshots/import?name=old`, { method: 'POST', body: readFileSync(old) });
      expect(imported.status).toBe(201);
      const restored = await control(server, 'POST', '/snapshots/old/restore');
      expect(restored.status, JSON.stringify(restored.body)).toBe(200);
      await readsEveryValue(server);
      expect(clearCopiesUnder(dir)).toEqual({});
    } finally {
      await server.close();
    }
    expect(clearCopiesUnder(dir)).toEqual({});
  }, 120_000);

  it('found in the snapshots directory (left by an older server): the snapshot file is sealed too', async () => {
    const dir = join(work, 'placed');
    mkdirSync(join(dir, 'snapshots'), { recursive: true, mode: 0o700 });
    copyFileSync(old, join(dir, 'snapshots', 'old.sqlite'));
    const server = await start(join(dir, 'store.db'));
    try {
      const restored = await control(server, 'POST', '/snapshots/old/restore');
      expect(restored.status, JSON.stringify(restored.body)).toBe(200);
      await readsEveryValue(server);
      expect(clearCopiesUnder(dir)).toEqual({});
      // The sealed snapshot restores again to the same world.
      expect((await v1(server, 'DELETE', 'residue/k0')).status).toBe(204);
      expect((await control(server, 'POST', '/snapshots/old/restore')).status).toBe(200);
      await readsEveryValue(server);
    } finally {
      await server.close();
    }
    expect(clearCopiesUnder(dir)).toEqual({});
  }, 120_000);

  it('given as the seed (UNDERSTUDY_SEED): the store and its WAL hold none; the seed file is not rewritten', async () => {
    const dir = join(work, 'seeded');
    const seed = join(work, 'seed.sqlite');
    copyFileSync(old, seed);
    const before = readFileSync(seed);
    const server = await startServer({ UNDERSTUDY_STORE: join(dir, 'store.db'), UNDERSTUDY_EXECUTOR: 'simulated', UNDERSTUDY_SEED: seed });
    try {
      await readsEveryValue(server);
      expect(clearCopiesUnder(dir)).toEqual({});
      expect((await control(server, 'POST', '/reset')).status).toBe(200);
      await readsEveryValue(server);
      expect(clearCopiesUnder(dir)).toEqual({});
    } finally {
      await server.close();
    }
    expect(clearCopiesUnder(dir)).toEqual({});
    expect(readFileSync(seed).equals(before)).toBe(true);
  }, 120_000);
});
