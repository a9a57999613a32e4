import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform, startServer, type TestServer } from '../../helpers/app.js';
import { moduleFiles, tarball, type Entry } from './archives.js';
import { unpackModule } from '../../../src/platform/registry/archive.js';

let server: TestServer;
const ORG = 'understudy';
let link = '';

beforeAll(async () => {
  server = await startServer();
  await platform(server, 'POST', `/organizations/${ORG}/registry-modules`, {
    body: { data: { type: 'registry-modules', attributes: { name: 'hostile', provider: 'aws' } } },
  });
  const version = await platform(server, 'POST', `/organizations/${ORG}/registry-modules/private/${ORG}/hostile/aws/versions`, {
    body: { data: { type: 'registry-module-versions', attributes: { version: '1.0.0' } } },
  });
  link = version.body.data.links.upload;
});
afterAll(async () => server.close());

const put = (body: Buffer) =>
  fetch(link, { method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body: new Uint8Array(body) });
const state = async () =>
  (await platform(server, 'GET', `/organizations/${ORG}/registry-modules/private/${ORG}/hostile/aws`)).body.data.attributes;

async function expectRejected(body: Buffer, message: RegExp) {
  const before = await state();
  const response = await put(body);
  expect(response.status).toBe(422);
  const document = (await response.json()) as { errors: { detail: string }[] };
  expect(document.errors[0]!.detail).toMatch(message);
  // Nothing changed: same statuses, same timestamps.
  expect(await state()).toEqual(before);
}

const good = moduleFiles('x');
const withEntry = (entry: Entry) => tarball([...good, entry]);

describe('module archive upload rejections', () => {
  it('leaves a never-uploaded version pending after a rejection', async () => {
    await expectRejected(Buffer.from('nope'), /not a gzip/);
    expect((await state())['version-statuses']).toEqual([{ version: '1.0.0', status: 'pending' }]);
    expect((await state()).status).toBe('pending');
  });
  it('rejects a body that is not gzip', async () => expectRejected(Buffer.from('just text, not an archive'), /not a gzip/));
  it('rejects gzip that is not a tar', async () => expectRejected(gzipSync(Buffer.from('x'.repeat(2000))), /not a tar archive|empty/));
  it('rejects an empty archive', async () => expectRejected(await tarball([]), /empty/));
  it('rejects .. in a path', async () => expectRejected(await withEntry({ name: '../escape.tf', content: 'x' }), /contains \.\./));
  it('rejects nested .. in a path', async () => expectRejected(await withEntry({ name: 'a/../../escape', content: 'x' }), /contains \.\./));
  it('rejects absolute paths', async () => expectRejected(await withEntry({ name: '/etc/passwd', content: 'x' }), /absolute path/));
  it('rejects symlinks that leave the root', async () =>
    expectRejected(await withEntry({ name: 'link', type: 'symlink', linkname: '../../etc/passwd' }), /outside the module/));
  it('rejects absolute symlinks', async () =>
    expectRejected(await withEntry({ name: 'link', type: 'symlink', linkname: '/etc/passwd' }), /absolute path/));
  it('rejects hard links that leave the root', async () =>
    expectRejected(await withEntry({ name: 'hard', type: 'link', linkname: '../outside' }), /outside the module/));
  it('rejects device files', async () => expectRejected(await withEntry({ name: 'dev', type: 'character-device' }), /character-device/));
  it('rejects fifos', async () => expectRejected(await withEntry({ name: 'pipe', type: 'fifo' }), /fifo/));
  it('rejects .tf files that are not HCL', async () =>
    expectRejected(await withEntry({ name: 'broken.tf', content: 'variable "x" {' }), /broken\.tf is not valid HCL/));

  it('accepts symlinks that stay inside, and then marks the version ok', async () => {
    expect((await put(await withEntry({ name: 'modules/inner/alias.md', type: 'symlink', linkname: '../../README.md' }))).status).toBe(200);
    expect((await state())['version-statuses']).toEqual([{ version: '1.0.0', status: 'ok' }]);
  });

  it('answers 404 for an unknown upload link', async () => {
    expect(
      (await fetch(`${server.baseUrl}/api/registry/uploads/v1/object/nope`, { method: 'PUT', body: new Uint8Array(await tarball(good)) }))
        .status,
    ).toBe(404);
  });

  it('a secrets mount named object still works under /v1', async () => {
    const response = await fetch(`${server.baseUrl}/v1/sys/mounts/object`, {
      method: 'POST',
      headers: { 'x-vault-token': server.config.rootToken },
      body: JSON.stringify({ type: 'cubbyhole' }),
    });
    expect(response.status).toBeLessThan(500);
  });
});

describe('archive limits (streaming)', () => {
  it('stops at the unpacked-size limit, even for a small gzip bomb', async () => {
    const bomb = await tarball([{ name: 'zeros.bin', content: Buffer.alloc(5 * 1024 * 1024) }]);
    expect(bomb.length).toBeLessThan(64 * 1024);
    await expect(unpackModule(bomb, { maxUnpackedBytes: 1024 * 1024, maxFiles: 100, maxArchiveBytes: 1024 * 1024 })).rejects.toThrow(
      /more than 1048576 bytes/,
    );
  });

  it('stops at the file-count limit', async () => {
    const many = await tarball(Array.from({ length: 30 }, (_, i) => ({ name: `f${i}.txt`, content: 'x' })));
    await expect(unpackModule(many, { maxUnpackedBytes: 1024 * 1024, maxFiles: 20, maxArchiveBytes: 1024 * 1024 })).rejects.toThrow(
      /more than 20 entries/,
    );
  });

  it('rejects the default 100 MB limit through the HTTP upload', async () => {
    const bomb = await tarball([...good, { name: 'big.bin', content: Buffer.alloc(101 * 1024 * 1024) }]);
    await expectRejected(bomb, /more than 104857600 bytes/);
  });
});
