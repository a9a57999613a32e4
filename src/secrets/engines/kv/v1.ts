import { badRequest, notFound } from '../../../core/errors.js';
import { parseDurationSeconds } from '../../../core/duration.js';
import { entryPathProblem } from '../../framework/entries.js';
import { missingDataFields } from '../../framework/errors.js';
import type { HandlerRequest, LogicalResponse } from '../../framework/types.js';
import { effectiveTtls } from '../../leases/ttl.js';
import { V1_PREFIX } from './store.js';

/**
 * Version 1 of the key/value engine: one JSON object per path, replaced on write. Reads carry a
 * lease duration without a lease (the mount's default TTL, or the entry's own `ttl`/`lease`),
 * as the real service's non-versioned engine answers.
 */

function entryKey(path: string): string {
  const problem = entryPathProblem(path);
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
  exists: (request: HandlerRequest): boolean => {
    return entryPathProblem(request.path) === undefined && request.storage.get(`${V1_PREFIX}${request.path}`) !== undefined;
  },

  read: (request: HandlerRequest): LogicalResponse => {
    const data = request.storage.get<Record<string, unknown>>(entryKey(request.path));
    if (data === undefined) throw notFound();
    const ttl = entryTtl(data) ?? effectiveTtls(request.mount.config).defaultTtl;
    return { data, lease: { leaseId: '', durationSeconds: ttl, renewable: false } };
  },

  write: (request: HandlerRequest): undefined => {
    const key = entryKey(request.path);
    if (Object.keys(request.data).length === 0) throw missingDataFields();
    request.storage.put(key, request.data);
    return undefined;
  },

  list: (request: HandlerRequest): LogicalResponse => {
    const folder = request.path.replace(/\/$/, '');
    const problem = folder === '' ? undefined : entryPathProblem(folder);
    if (problem) throw badRequest(problem);
    const keys = request.storage.list(`${V1_PREFIX}${request.path}`);
    if (keys.length === 0) throw notFound();
    return { data: { keys } };
  },

  delete: (request: HandlerRequest): undefined => {
    request.storage.delete(entryKey(request.path));
    return undefined;
  },
};
