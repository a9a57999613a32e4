import { posix } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import tar from 'tar-stream';
import { ApiError } from '../../core/errors.js';

/** Limits on what one module archive may unpack to. */
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

/** What the details extractor reads; other files are counted and skipped. */
const KEPT = (path: string) => path.endsWith('.tf') || /(^|\/)readme(\.md)?$/i.test(path);
/** A kept file larger than this is not read (it is still part of the archive). */
const MAX_KEPT_FILE = 1024 * 1024;

export interface UnpackedArchive {
  /** The gzip bytes as received, to serve on download. */
  archive: Buffer;
  /** `.tf` and README files by their normalised path inside the module. */
  files: Map<string, string>;
}

const rejected = (detail: string) => new ApiError(422, `the module archive was rejected: ${detail}`, { title: 'invalid archive' });

/** The entry's path inside the module, or a rejection for anything that would leave the root. */
function entryPath(name: string): string {
  if (name.includes('\0') || name.includes('\\')) throw rejected(`entry ${JSON.stringify(name)} has a forbidden character`);
  if (name.startsWith('/')) throw rejected(`entry ${JSON.stringify(name)} is an absolute path`);
  if (name.split('/').includes('..')) throw rejected(`entry ${JSON.stringify(name)} contains ..`);
  const normalised = posix.normalize(name).replace(/\/$/, '');
  return normalised === '.' ? '' : normalised.replace(/^\.\//, '');
}

function checkLink(path: string, target: string, hard: boolean): void {
  if (target.startsWith('/')) throw rejected(`link ${JSON.stringify(path)} points to an absolute path`);
  const resolved = posix.normalize(hard ? target : posix.join(posix.dirname(path), target));
  if (resolved === '..' || resolved.startsWith('../')) throw rejected(`link ${JSON.stringify(path)} points outside the module`);
}

/**
 * Streams a gzip tarball through gunzip and tar-stream, checking every entry as it comes. A bad
 * archive throws a 422 before anything is stored; the caller records the result only on success.
 */
export async function unpackModule(body: Readable | Buffer, limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS): Promise<UnpackedArchive> {
  const chunks: Buffer[] = [];
  let archiveBytes = 0;
  let unpackedBytes = 0;
  let entries = 0;
  const files = new Map<string, string>();
  const extract = tar.extract();

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

  const readEntry = (header: tar.Header, stream: tar.ExtractEvents['entry'][1], next: () => void): void => {
    const path = entryPath(header.name);
    entries += 1;
    if (entries > limits.maxFiles) throw rejected(`more than ${limits.maxFiles} entries`);
    switch (header.type) {
      case 'file':
      case 'contiguous-file':
      case 'directory':
        break;
      case 'symlink':
      case 'link':
        checkLink(path, header.linkname ?? '', header.type === 'link');
        break;
      default:
        throw rejected(`entry ${JSON.stringify(header.name)} is a ${header.type ?? 'special'} entry, not a file or directory`);
    }
    unpackedBytes += header.size ?? 0;
    if (unpackedBytes > limits.maxUnpackedBytes) throw rejected(`unpacks to more than ${limits.maxUnpackedBytes} bytes`);
    const keep = header.type === 'file' && KEPT(path) && (header.size ?? 0) <= MAX_KEPT_FILE;
    const parts: Buffer[] = [];
    stream.on('data', (chunk: unknown) => {
      if (keep) parts.push(chunk as Buffer);
    });
    stream.on('end', () => {
      if (keep) files.set(path, Buffer.concat(parts).toString('utf8'));
      next();
    });
    stream.resume();
  };

  const source = Buffer.isBuffer(body) ? Readable.from([body]) : body;
  const counter = async function* (input: AsyncIterable<Buffer>) {
    for await (const chunk of input) {
      archiveBytes += chunk.length;
      if (archiveBytes > limits.maxArchiveBytes) throw rejected(`the archive is larger than ${limits.maxArchiveBytes} bytes`);
      chunks.push(chunk);
      yield chunk;
    }
  };
  try {
    await pipeline(source, counter, createGunzip(), extract);
  } catch (error) {
    if (error instanceof ApiError) throw error;
    const code = (error as { code?: string }).code ?? '';
    if (code.startsWith('Z_')) throw rejected('the body is not a gzip stream');
    throw rejected(`the body is not a tar archive (${(error as Error).message})`);
  }
  if (entries === 0) throw rejected('the archive is empty');
  return { archive: Buffer.concat(chunks), files };
}
