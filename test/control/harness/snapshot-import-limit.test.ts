import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, watch } from 'node:fs';
import { request, type ClientRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { control } from './control.js';

const LIMIT_MIB = 2;
const LIMIT_BYTES = LIMIT_MIB * 1024 * 1024;
const CHUNK = 64 * 1024;

/** Resolves with the directory's entries once `test` holds for them, checked now and on every change. */
function directoryUntil(directory: string, test: (entries: string[]) => boolean): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const watcher = watch(directory);
    const check = () => {
      const entries = readdirSync(directory).sort();
      if (!test(entries)) return;
      watcher.close();
      resolve(entries);
    };
    watcher.on('change', check).on('error', reject);
    check();
  });
}

const partials = (entries: string[]) => entries.filter((entry) => entry.endsWith('.partial'));

interface Answer {
  status: number;
  body: string;
}

/** The answer to `post`, read whole; an error after the answer arrived (the server closing) is ignored. */
function answerOf(post: ClientRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let answered = false;
    post.on('response', (response) => {
      answered = true;
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      response.on('error', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    post.on('error', (error) => {
      if (!answered) reject(error);
    });
  });
}

/**
 * The snapshot import with a small limit (UNDERSTUDY_SNAPSHOT_IMPORT_LIMIT_MB=2; a seeded world's
 * store file is about 1.1 MiB): the body is written to disk as it arrives, and one over the limit,
 * or one that breaks off, leaves the snapshots and their directory as they were.
 */
describe('snapshot import limit', () => {
  let server: TestServer;
  let exported: Buffer;
  const directory = mkdtempSync(join(tmpdir(), 'understudy-snapshot-import-'));
  const importUrl = (query: string) => `${server.baseUrl}/_emulator/snapshots/import?${query}`;

  beforeAll(async () => {
    server = await startServer({ UNDERSTUDY_SNAPSHOT_DIR: directory, UNDERSTUDY_SNAPSHOT_IMPORT_LIMIT_MB: String(LIMIT_MIB) });
    expect((await control(server, 'POST', '/snapshots', { name: 'kept' })).status).toBe(201);
    exported = readFileSync(join(directory, 'kept.sqlite'));
    expect(exported.length).toBeLessThan(LIMIT_BYTES);
  });
  afterAll(() => server.close());

  /** What must not change: the listed snapshots, the directory's files, and the bytes of `kept`. */
  const world = async () => ({
    listed: (await control(server, 'GET', '/snapshots')).body,
    files: readdirSync(directory).sort(),
    // A digest: comparing a megabyte buffer element by element takes the matcher seconds.
    kept: createHash('sha256')
      .update(readFileSync(join(directory, 'kept.sqlite')))
      .digest('hex'),
  });

  it('takes a store file under the limit', async () => {
    const imported = await fetch(importUrl('name=copy'), { method: 'POST', body: new Uint8Array(exported) });
    expect(imported.status).toBe(201);
    expect(await imported.json()).toMatchObject({ name: 'copy', 'size-bytes': exported.length });
    expect(partials(readdirSync(directory))).toEqual([]);
    expect((await control(server, 'POST', '/snapshots/copy/restore')).status).toBe(200);
  });

  it('refuses a body of no declared length with 413 once it passes the limit; nothing is kept or replaced', async () => {
    const before = await world();
    // A real store file with more after it, sent chunked, replacing `kept`.
    const post = request(importUrl('name=kept&replace=true'), { method: 'POST', headers: { 'transfer-encoding': 'chunked' } });
    const answer = answerOf(post);
    let answered = false;
    const settled = answer.then(
      () => (answered = true),
      () => (answered = true),
    );
    const body = Buffer.concat([exported, Buffer.alloc(3 * LIMIT_BYTES - exported.length, 7)]);
    // Chunk by chunk, each once the last was taken, until the server answers (it may before the end).
    for (let offset = 0; offset < body.length && !answered && !post.destroyed; offset += CHUNK) {
      const written = new Promise<void>((resolve) => post.write(body.subarray(offset, offset + CHUNK), () => resolve()));
      await Promise.race([written, settled]);
    }
    if (!answered && !post.destroyed) post.end();
    const { status, body: text } = await answer;
    expect(status).toBe(413);
    expect(JSON.parse(text).error).toBe(
      `the store file is larger than the import limit of ${LIMIT_MIB} MiB (UNDERSTUDY_SNAPSHOT_IMPORT_LIMIT_MB); nothing was stored`,
    );
    expect(await world()).toEqual(before);
  });

  it('refuses a body whose declared length is over the limit before reading it', async () => {
    const before = await world();
    const post = request(importUrl('name=declared'), { method: 'POST', headers: { 'content-length': LIMIT_BYTES + 1 } });
    const answer = answerOf(post);
    post.flushHeaders();
    const { status } = await answer;
    post.destroy();
    expect(status).toBe(413);
    expect(await world()).toEqual(before);
  });

  it('a body that breaks off mid-way leaves nothing behind, and the next import works', async () => {
    const before = await world();
    // Half a store file of a declared whole: the server starts writing it, then the client goes.
    const post = request(importUrl('name=broken'), { method: 'POST', headers: { 'content-length': exported.length } });
    post.on('error', () => undefined);
    const started = directoryUntil(directory, (entries) => partials(entries).length === 1);
    post.write(exported.subarray(0, exported.length / 2));
    await started;
    const gone = directoryUntil(directory, (entries) => partials(entries).length === 0);
    post.destroy();
    await gone;
    expect(await world()).toEqual(before);
    expect((await control(server, 'GET', '/snapshots/broken')).status).toBe(404);

    const whole = await fetch(importUrl('name=broken'), { method: 'POST', body: new Uint8Array(exported) });
    expect(whole.status).toBe(201);
    expect((await control(server, 'GET', '/snapshots/broken')).body['size-bytes']).toBe(exported.length);
  });
});
