import { mkdir, realpath, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, posix, relative, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { DEFAULT_ARCHIVE_LIMITS, readTarGz, type ArchiveLimits, type ArchiveEntry } from '../../core/tar-archive.js';

/** A configuration slug the hostile-archive rules refused; the message says why. */
export class SlugRejected extends Error {}

const reject = (detail: string) => new SlugRejected(`the configuration archive was rejected: ${detail}`);

/** Reads a `.tar.gz` configuration slug under the shared rules, keeping every file's bytes. */
export function readSlug(body: Readable | Buffer, limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS) {
  return readTarGz(body, { limits, reject, root: 'configuration', keep: () => true });
}

/** Checks a slug under the same rules without keeping any file's bytes (an upload's validation). */
export function checkSlug(body: Readable | Buffer, limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS) {
  return readTarGz(body, { limits, reject, root: 'configuration', keep: () => false });
}

const inside = (root: string, path: string) => {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !rel.startsWith(sep));
};

/**
 * Writes a slug's entries under `root` (an empty directory). Nothing is written through a link:
 * an entry below a path the archive made a symlink is refused, files are created exclusively, and
 * hard links become copies. Symlinks were checked lexically when read; once all are on disk,
 * each must also really resolve inside `root` (a chain of links can escape where each link alone
 * does not). On a refusal the caller removes `root`.
 */
export async function writeSlug(root: string, entries: ArchiveEntry[]): Promise<void> {
  const links = new Set<string>();
  const contents = new Map<string, Buffer>();
  const throughLink = (path: string) => {
    for (let parent = path; parent.includes('/');) {
      parent = parent.slice(0, parent.lastIndexOf('/'));
      if (links.has(parent)) return true;
    }
    return false;
  };
  for (const entry of entries) {
    if (entry.path === '') continue;
    if (throughLink(entry.path) || links.has(entry.path)) throw reject(`entry ${JSON.stringify(entry.path)} is written through a link`);
    const target = join(root, entry.path);
    switch (entry.type) {
      case 'directory':
        await mkdir(target, { recursive: true });
        break;
      case 'file':
        await mkdir(dirname(target), { recursive: true });
        await writeFile(target, entry.content ?? Buffer.alloc(0), { flag: 'wx' }).catch((error: NodeJS.ErrnoException) => {
          if (error.code === 'EEXIST') throw reject(`entry ${JSON.stringify(entry.path)} appears twice`);
          throw error;
        });
        contents.set(entry.path, entry.content ?? Buffer.alloc(0));
        break;
      case 'link': {
        const source = contents.get(posix.normalize(entry.target ?? '').replace(/^\.\//, ''));
        if (source === undefined) throw reject(`hard link ${JSON.stringify(entry.path)} names no earlier file`);
        await mkdir(dirname(target), { recursive: true });
        await writeFile(target, source, { flag: 'wx' });
        contents.set(entry.path, source);
        break;
      }
      case 'symlink':
        await mkdir(dirname(target), { recursive: true });
        await symlink(entry.target ?? '', target);
        links.add(entry.path);
        break;
    }
  }
  const realRoot = await realpath(root);
  for (const link of links) {
    const path = join(root, link);
    // A dangling link leads nowhere and is harmless; one that resolves must stay inside.
    const resolved = await realpath(path).catch(() => null);
    if (resolved !== null && !inside(realRoot, resolved)) throw reject(`link ${JSON.stringify(link)} points outside the configuration`);
  }
}

/** Reads and writes in one step: the slug's files under `root`, or a `SlugRejected`. */
export async function unpackSlug(body: Buffer, root: string, limits?: ArchiveLimits): Promise<void> {
  const { entries } = await readSlug(body, limits);
  await writeSlug(root, entries);
}
