import { posix } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import tar from 'tar-stream';

/** Limits on what one uploaded archive may unpack to. */
export interface ArchiveLimits {
  maxUnpackedBytes: number;
  maxFiles: number;
  /** The gzip body itself, counted as it arrives. */
  maxArchiveBytes: number;
}

export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = {
  maxUnpackedBytes: 100 * 1024 * 1024,
  maxFiles: 10_000,
  maxArchiveBytes: 100 * 1024 * 1024,
};

/** The hostile-archive rules one caller applies, and how it words a refusal. */
export interface ArchiveRules {
  limits: ArchiveLimits;
  /** Builds the caller's error for a refused archive (a 422 for both uploads that use this). */
  reject(detail: string): Error;
  /** What the archive's root is called in refusals: `links ... point outside the <root>`. */
  root: string;
  /** Whether a regular file's bytes are kept in memory (others are counted and skipped). */
  keep(path: string, size: number): boolean;
}

export interface ArchiveEntry {
  /** Normalised path inside the root; '' for the root itself. */
  path: string;
  type: 'file' | 'directory' | 'symlink' | 'link';
  /** Link target as written in the archive (checked to stay inside the root). */
  target?: string;
  /** The file's bytes, when the rules kept it. */
  content?: Buffer;
}

export interface ReadArchive {
  entries: ArchiveEntry[];
}

class Refusal extends Error {}

/** The entry's path inside the root, or a refusal for anything that would leave it. */
function entryPath(name: string, refuse: (detail: string) => never): string {
  if (name.includes('\0') || name.includes('\\')) refuse(`entry ${JSON.stringify(name)} has a forbidden character`);
  if (name.startsWith('/')) refuse(`entry ${JSON.stringify(name)} is an absolute path`);
  if (name.split('/').includes('..')) refuse(`entry ${JSON.stringify(name)} contains ..`);
  const normalised = posix.normalize(name).replace(/\/$/, '');
  return normalised === '.' ? '' : normalised.replace(/^\.\//, '');
}

function checkLink(path: string, target: string, hard: boolean, root: string, refuse: (detail: string) => never): void {
  if (target.startsWith('/')) refuse(`link ${JSON.stringify(path)} points to an absolute path`);
  const resolved = posix.normalize(hard ? target : posix.join(posix.dirname(path), target));
  if (resolved === '..' || resolved.startsWith('../')) refuse(`link ${JSON.stringify(path)} points outside the ${root}`);
}

/**
 * Streams a gzip tarball through gunzip and tar-stream, checking every entry as it comes: no `..`,
 * no absolute path, no link leading outside the root, no device or fifo, and caps on the archive,
 * the entry count and the unpacked total. The archive's bytes are not kept (callers spool an upload
 * to a file first, see core/upload-spool.ts, or already hold it). A refused archive throws `rules.reject(...)` before the
 * caller has written anything; links are checked lexically here, and a caller that writes them to
 * disk checks where they really lead (see `adapters/executor/slug.ts`).
 */
export async function readTarGz(body: Readable | Buffer, rules: ArchiveRules): Promise<ReadArchive> {
  const { limits } = rules;
  const refuse = (detail: string): never => {
    throw new Refusal(detail);
  };
  const entries: ArchiveEntry[] = [];
  let archiveBytes = 0;
  let unpackedBytes = 0;
  const extract = tar.extract();

  const readEntry = (header: tar.Header, stream: tar.ExtractEvents['entry'][1], next: () => void): void => {
    const path = entryPath(header.name, refuse);
    if (entries.length + 1 > limits.maxFiles) refuse(`more than ${limits.maxFiles} entries`);
    let type: ArchiveEntry['type'];
    switch (header.type) {
      case 'file':
      case 'contiguous-file':
        type = 'file';
        break;
      case 'directory':
        type = 'directory';
        break;
      case 'symlink':
      case 'link':
        type = header.type;
        checkLink(path, header.linkname ?? '', header.type === 'link', rules.root, refuse);
        break;
      default:
        return refuse(`entry ${JSON.stringify(header.name)} is a ${header.type ?? 'special'} entry, not a file or directory`);
    }
    const size = header.size ?? 0;
    unpackedBytes += size;
    if (unpackedBytes > limits.maxUnpackedBytes) refuse(`unpacks to more than ${limits.maxUnpackedBytes} bytes`);
    const entry: ArchiveEntry = { path, type, ...(header.linkname ? { target: header.linkname } : {}) };
    entries.push(entry);
    const keep = type === 'file' && rules.keep(path, size);
    const parts: Buffer[] = [];
    stream.on('data', (chunk: unknown) => {
      if (keep) parts.push(chunk as Buffer);
    });
    stream.on('end', () => {
      if (keep) entry.content = Buffer.concat(parts);
      next();
    });
    stream.resume();
  };

  extract.on('entry', (header, stream, next) => {
    // A failed extraction destroys the current entry with the same error; the pipeline reports it.
    stream.on('error', () => undefined);
    try {
      readEntry(header, stream, next);
    } catch (error) {
      // tar-stream's way to fail the extraction: the pipeline ends with this error.
      stream.resume();
      next(error as Error);
    }
  });

  const source = Buffer.isBuffer(body) ? Readable.from([body]) : body;
  const counter = async function* (input: AsyncIterable<Buffer>) {
    for await (const chunk of input) {
      archiveBytes += chunk.length;
      if (archiveBytes > limits.maxArchiveBytes) refuse(`the archive is larger than ${limits.maxArchiveBytes} bytes`);
      yield chunk;
    }
  };
  try {
    await pipeline(source, counter, createGunzip(), extract);
  } catch (error) {
    if (error instanceof Refusal) throw rules.reject(error.message);
    const code = (error as { code?: string }).code ?? '';
    if (code.startsWith('Z_')) throw rules.reject('the body is not a gzip stream');
    throw rules.reject(`the body is not a tar archive (${(error as Error).message})`);
  }
  if (entries.length === 0) throw rules.reject('the archive is empty');
  return { entries };
}
