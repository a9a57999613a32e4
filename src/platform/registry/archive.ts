import type { Readable } from 'node:stream';
import { ApiError } from '../../core/errors.js';
import { DEFAULT_ARCHIVE_LIMITS, readTarGz, type ArchiveLimits } from '../../core/tar-archive.js';

export { DEFAULT_ARCHIVE_LIMITS, type ArchiveLimits };

/** What the details extractor reads; other files are counted and skipped. */
const KEPT = (path: string) => path.endsWith('.tf') || /(^|\/)readme(\.md)?$/i.test(path);
/** A kept file larger than this is not read (it is still part of the archive). */
const MAX_KEPT_FILE = 1024 * 1024;

export interface UnpackedArchive {
  /** `.tf` and README files by their normalised path inside the module. */
  files: Map<string, string>;
}

export const rejected = (detail: string) => new ApiError(422, `the module archive was rejected: ${detail}`, { title: 'invalid archive' });

/**
 * Reads a module tarball under the shared hostile-archive rules (core/tar-archive.ts). A bad
 * archive throws a 422 before anything is stored; the caller records the result only on success.
 */
export async function unpackModule(body: Readable | Buffer, limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS): Promise<UnpackedArchive> {
  const { entries } = await readTarGz(body, {
    limits,
    reject: rejected,
    root: 'module',
    keep: (path, size) => KEPT(path) && size <= MAX_KEPT_FILE,
  });
  const files = new Map<string, string>();
  for (const entry of entries) if (entry.content) files.set(entry.path, entry.content.toString('utf8'));
  return { files };
}
