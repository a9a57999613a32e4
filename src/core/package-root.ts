import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The directory holding understudy's package.json, found by walking up from this module. The
 * code runs from `src/` (tsx), from `dist/` as one bundle, or from a container's /app, so a fixed
 * number of `..` would be right for only one of them.
 */
function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'migrations'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('understudy: cannot find its package directory (package.json next to migrations/)');
    dir = parent;
  }
  return dir;
}

export const PACKAGE_ROOT = findPackageRoot();

/** A path inside the package, e.g. `packagePath('migrations')`. */
export const packagePath = (...parts: string[]): string => join(PACKAGE_ROOT, ...parts);
