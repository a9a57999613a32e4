import { readdirSync } from 'node:fs';
import { request } from 'node:http';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spoolDirectoryPath, withSpooledUpload } from '../../src/core/upload-spool.js';
import { platform, startServer, type TestServer } from '../helpers/app.js';

const CHUNK = 64 * 1024;
const tooLarge = () => new Error('too large');
const leftovers = () => {
  const directory = spoolDirectoryPath();
  return directory === undefined ? [] : readdirSync(directory);
};

/** A body of `chunks` 64 KB chunks that counts how many were pulled from it. */
function countedBody(chunks: number): { body: Readable; pulled: () => number } {
  let pulled = 0;
  const body = Readable.from(
    (function* () {
      for (; pulled < chunks;) {
        pulled += 1;
        yield Buffer.alloc(CHUNK, 120);
      }
    })(),
  );
  return { body, pulled: () => pulled };
}

describe('spooling uploads to disk', () => {
  it('hands the parser a stream of the file and removes the file afterwards, whatever the outcome', async () => {
    const seen = await withSpooledUpload(Buffer.from('hello'), 100, tooLarge, async (upload) => {
      expect(leftovers()).toHaveLength(1);
      return { size: upload.size, streamed: await text(upload.stream()), read: (await upload.read()).toString() };
    });
    expect(seen).toEqual({ size: 5, streamed: 'hello', read: 'hello' });
    expect(leftovers()).toEqual([]);
    await expect(
      withSpooledUpload(Buffer.from('bad'), 100, tooLarge, async () => {
        throw new Error('the parser refused it');
      }),
    ).rejects.toThrow('the parser refused it');
    expect(leftovers()).toEqual([]);
  });

  it('refuses a body over the limit as soon as it passes it: the rest is never read, nothing stays on disk', async () => {
    const { body, pulled } = countedBody(160); // 10 MB offered
    let used = false;
    await expect(
      withSpooledUpload(body, 1024 * 1024, tooLarge, async () => {
        used = true;
      }),
    ).rejects.toThrow('too large');
    expect(used).toBe(false);
    expect(pulled()).toBeLessThan(40); // 1 MB is 16 chunks; a stream reads a little ahead, never the whole body
    expect(leftovers()).toEqual([]);
  });

  it('a body that breaks off mid-way fails the upload and leaves nothing behind', async () => {
    const body = new Readable({ read() {} });
    body.push(Buffer.alloc(CHUNK));
    setTimeout(() => body.destroy(new Error('connection reset')), 10);
    // The client's fault, not the server's: a 400 the error handlers do not log as internal.
    await expect(withSpooledUpload(body, 1024 * 1024, tooLarge, async () => undefined)).rejects.toMatchObject({
      statusCode: 400,
      message: 'the upload was aborted before its end',
    });
    expect(leftovers()).toEqual([]);
  });
});

describe('upload routes refuse a declared oversize body before reading it', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  /** Sends only the head of a PUT declaring a 200 MB body, and resolves with the status the server answers without it. */
  const declareHugeBody = (url: string) =>
    new Promise<number>((resolve, reject) => {
      const put = request(url, {
        method: 'PUT',
        headers: { 'content-type': 'application/octet-stream', 'content-length': 200 * 1024 * 1024 },
      });
      put.on('response', (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
        put.destroy();
      });
      put.on('error', reject);
      put.flushHeaders();
    });

  it('a module upload', async () => {
    const created = await platform(server, 'POST', '/organizations/understudy/registry-modules', {
      body: { data: { type: 'registry-modules', attributes: { name: 'huge', provider: 'aws' } } },
    });
    expect(created.status).toBe(201);
    const version = await platform(server, 'POST', '/organizations/understudy/registry-modules/private/understudy/huge/aws/versions', {
      body: { data: { type: 'registry-module-versions', attributes: { version: '1.0.0' } } },
    });
    expect(await declareHugeBody(version.body.data.links.upload)).toBe(413);
    const after = await platform(server, 'GET', '/organizations/understudy/registry-modules/private/understudy/huge/aws');
    expect(after.body.data.attributes['version-statuses']).toEqual([{ version: '1.0.0', status: 'pending' }]);
  });

  it('a configuration version upload', async () => {
    const workspace = await platform(server, 'POST', '/organizations/understudy/workspaces', {
      body: { data: { type: 'workspaces', attributes: { name: 'huge-slug' } } },
    });
    const made = await platform(server, 'POST', `/workspaces/${workspace.body.data.id}/configuration-versions`, {
      body: { data: { type: 'configuration-versions', attributes: { 'auto-queue-runs': false } } },
    });
    expect(await declareHugeBody(made.body.data.attributes['upload-url'])).toBe(413);
    const after = await platform(server, 'GET', `/configuration-versions/${made.body.data.id}`);
    expect(after.body.data.attributes.status).toBe('pending');
  });
});
