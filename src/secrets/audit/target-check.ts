import { realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { badRequest } from '../../core/errors.js';

/**
 * Mode bits a `file` device may not ask for: setuid, setgid and sticky (a log file is never a
 * program), and any execute bit, which the real service refuses too since 1.20.1.
 */
const REFUSED_MODE_BITS = 0o7111;

/** Refuses a device mode that could make its log a program (or a setuid one). */
export function checkDeviceMode(modeText: string | undefined, mode: number): void {
  if ((mode & REFUSED_MODE_BITS) !== 0) {
    throw badRequest(`file mode ${modeText ?? ''} is not allowed: audit files may not be executable, setuid, setgid or sticky`);
  }
}

/** The mode a device's file is created with: a stored device from before the check never gets more than read and write bits. */
export const safeMode = (mode: number): number => mode & 0o666;

/** `path` with its directory's symbolic links resolved (the file itself may not exist yet). */
function canonical(path: string): string {
  const absolute = resolve(path);
  try {
    return realpathSync(absolute);
  } catch {
    try {
      return join(realpathSync(dirname(absolute)), basename(absolute));
    } catch {
      return absolute;
    }
  }
}

function sameFile(a: string, b: string): boolean {
  try {
    const left = statSync(a);
    const right = statSync(b);
    return left.dev === right.dev && left.ino === right.ino;
  } catch {
    return false;
  }
}

/**
 * Refuses a `file_path` that is one of the store's own files (the database, its WAL, shared
 * memory and rollback journal): appending log lines to them would corrupt the store. Compared by
 * canonical path and, for files that exist, by device and inode, so a symbolic or hard link to
 * them is refused too. Any other path is the operator's choice, as in the real service.
 */
export function checkNotStoreFile(filePath: string, storeFile: string | undefined): void {
  if (storeFile === undefined || storeFile === '' || storeFile === ':memory:') return;
  if (filePath === 'stdout' || filePath === 'discard') return;
  const target = canonical(filePath);
  for (const suffix of ['', '-wal', '-shm', '-journal']) {
    const own = `${storeFile}${suffix}`;
    if (target === canonical(own) || sameFile(filePath, own)) {
      throw badRequest(`file_path ${JSON.stringify(filePath)} is one of the store's own files; an audit log there would corrupt the store`);
    }
  }
}
