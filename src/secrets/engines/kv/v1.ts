import { ApiError, badRequest, notFound } from '../../../core/errors.js';
import { parseDurationSeconds } from '../../../core/duration.js';
import type { HandlerRequest, LogicalResponse } from '../../framework/types.js';
import { effectiveTtls } from '../../leases/ttl.js';
import { V1_PREFIX } from './store.js';

/**
 * Version 1 of the key/value engine: one JSON object per path, replaced on write. Reads carry a
 * lease duration without a lease (the mount's default TTL, or the entry's own `ttl`/`lease`),
 * as the real service's non-versioned engine answers.
 */

/** Why `path` cannot name an entry, if it cannot. */
export function pathProblem(path: string): string | undefined {
  if (path === '') return 'missing path';
  const segments = path.split('/');
  if (segments.some((segment) => segment === '')) return `invalid path "${path}": empty segments are not allowed`;
  if (segments.some((segment) => segment === '..' || segment === '.')) return `invalid path "${path}": "." and ".." segments are not allowed`;
  return undefined;
}

function entryKey(path: string): string {
  const problem = pathProblem(path);
  if (problem) throw badRequest(problem);
  return `${V1_PREFIX}${path}`;
}

/** The entry's own `ttl` (or legacy `lease`) in seconds; one that does not parse is ignored, as in the real service. */
function entryTtl(data: Record<string, unknown>): number | undefined {
  const raw = data['ttl'] ?? data['lease'];
  if (raw === undefined) return undefined;
  try {
    return parseDurationSeconds(raw);
  } catch {
    return undefined;
  }
}

export const v1 = {
  exists(request: HandlerRequest): boolean {
    return pathProblem(request.path) === undefined && request.storage.get(`${V1_PREFIX}${request.path}`) !== undefined;
  },

  read(request: HandlerRequest): LogicalResponse {
    const data = request.storage.get<Record<string, unknown>>(entryKey(request.path));
    if (data === undefined) throw notFound();
    const ttl = entryTtl(data) ?? effectiveTtls(request.mount.config).defaultTtl;
    return { data, lease: { leaseId: '', durationSeconds: ttl, renewable: false } };
  },

  write(request: HandlerRequest): undefined {
    const key = entryKey(request.path);
    if (Object.keys(request.data).length === 0) {
      // As the cubbyhole engine: the real service fails this with a Go error (a 500 with this text).
      throw new ApiError(500, 'missing data fields', { messages: ['1 error occurred:\n\t* missing data fields\n\n'] });
    }
    request.storage.put(key, request.data);
    return undefined;
  },

  list(request: HandlerRequest): LogicalResponse {
    const folder = request.path.replace(/\/$/, '');
    const problem = folder === '' ? undefined : pathProblem(folder);
    if (problem) throw badRequest(problem);
    const keys = request.storage.list(`${V1_PREFIX}${request.path}`);
    if (keys.length === 0) throw notFound();
    return { data: { keys } };
  },

  delete(request: HandlerRequest): undefined {
    request.storage.delete(entryKey(request.path));
    return undefined;
  },
};
