import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SlugRejected, unpackSlug } from '../../../src/adapters/executor/slug.js';
import { tarball, type Entry } from '../../platform/registry/archives.js';

const made: string[] = [];
const root = () => {
  const parent = mkdtempSync(join(tmpdir(), 'understudy-slug-test-'));
  made.push(parent);
  mkdirSync(join(parent, 'root'));
  return join(parent, 'root');
};
afterEach(() => {
  for (const path of made.splice(0)) rmSync(path, { recursive: true, force: true });
});

async function unpack(entries: Entry[]) {
  const dir = root();
  await unpackSlug(await tarball(entries), dir);
  return dir;
}

async function refused(entries: Entry[], message: RegExp) {
  const dir = root();
  const error = await unpackSlug(await tarball(entries), dir).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(SlugRejected);
  expect((error as Error).message).toMatch(message);
  // Nothing landed beside the root.
  expect(existsSync(join(dir, '..', 'escape'))).toBe(false);
}

describe('configuration slugs are unpacked under the hostile-archive rules', () => {
  it('writes files, directories, inside links, and hard links as copies', async () => {
    const dir = await unpack([
      { name: 'main.tf', content: 'output "a" { value = 1 }\n' },
      { name: 'modules/', type: 'directory' },
      { name: 'modules/m/main.tf', content: 'locals {}\n' },
      { name: 'alias.tf', type: 'symlink', linkname: 'modules/m/main.tf' },
      { name: 'copy.tf', type: 'link', linkname: 'main.tf' },
    ]);
    expect(readFileSync(join(dir, 'main.tf'), 'utf8')).toContain('output "a"');
    expect(readFileSync(join(dir, 'alias.tf'), 'utf8')).toBe('locals {}\n');
    expect(lstatSync(join(dir, 'copy.tf')).isSymbolicLink()).toBe(false);
    expect(readFileSync(join(dir, 'copy.tf'), 'utf8')).toContain('output "a"');
  });

  it('refuses .. and absolute paths', async () => {
    await refused([{ name: '../escape', content: 'x' }], /contains \.\./);
    await refused([{ name: '/tmp/escape', content: 'x' }], /absolute path/);
  });

  it('refuses links that leave the configuration, alone or chained', async () => {
    await refused([{ name: 'l', type: 'symlink', linkname: '../escape' }], /points outside the configuration/);
    await refused([{ name: 'l', type: 'symlink', linkname: '/etc' }], /absolute path/);
    // d/l -> .. is the root itself (allowed lexically); x -> d/l/.. then lands above the root.
    await refused(
      [
        { name: 'd/', type: 'directory' },
        { name: 'd/l', type: 'symlink', linkname: '..' },
        { name: 'x', type: 'symlink', linkname: 'd/l/..' },
      ],
      /link "x" points outside the configuration/,
    );
  });

  it('never writes through a link the archive made', async () => {
    await refused(
      [
        { name: 'd', type: 'symlink', linkname: '.' },
        { name: 'd/escape', content: 'x' },
      ],
      /written through a link/,
    );
  });

  it('refuses devices, a second copy of a file, and non-gzip bodies', async () => {
    await refused([{ name: 'dev', type: 'character-device' }], /character-device/);
    await refused(
      [
        { name: 'a.tf', content: '1' },
        { name: 'a.tf', content: '2' },
      ],
      /appears twice/,
    );
    const dir = root();
    await expect(unpackSlug(Buffer.from('plain text'), dir)).rejects.toThrow(/not a gzip stream/);
  });
});
