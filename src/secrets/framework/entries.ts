/**
 * Rules shared by the engines that store one JSON object per caller-chosen path (cubbyhole and
 * key/value version 1).
 */

/** Why `path` cannot name an entry, if it cannot. */
export function entryPathProblem(path: string): string | undefined {
  if (path === '') return 'missing path';
  const segments = path.split('/');
  if (segments.some((segment) => segment === '')) return `invalid path "${path}": empty segments are not allowed`;
  if (segments.some((segment) => segment === '..' || segment === '.')) {
    return `invalid path "${path}": "." and ".." segments are not allowed`;
  }
  return undefined;
}
