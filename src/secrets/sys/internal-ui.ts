import { ApiError } from '../../core/errors.js';
import { PERMISSION_DENIED } from '../framework/errors.js';
import type { SecretsContext } from '../context.js';
import type { PathSpec } from '../framework/types.js';
import { mountPath } from '../mounts/mount-table.js';
import { mountInfoWire } from './mounts.js';

/**
 * `sys/internal/ui/mounts/:path`: the mount a path belongs to, which the official CLI reads to
 * tell a version-2 key/value mount (and where it is) before it rewrites `secret/x` to
 * `secret/data/x`. Not policy-checked as a path; the caller needs some grant inside the mount.
 */
export function internalUiPaths(context: SecretsContext): PathSpec[] {
  return [
    {
      pattern: 'internal/ui/mounts/:path*',
      summary: 'The mount a path belongs to (type, options, path), for callers with access inside it.',
      fields: { path: { type: 'string', description: 'Any path; its mount is described.' } },
      unauthenticated: ['read'],
      operations: {
        read: (request) => {
          const path = mountPath(request.params['path'] ?? '');
          if (!request.token) throw PERMISSION_DENIED;
          const refused = new ApiError(403, 'preflight capability check failed', {
            messages: [`preflight capability check returned 403, please ensure client's policies grant access to path "${path}"`],
          });
          const mount = context.mounts.longestPrefix(path.replace(/\/$/, ''));
          if (!mount || !context.acl.aclFor(request.token).grantsUnder(mount.path)) throw refused;
          return { data: { ...mountInfoWire(mount), path: mount.path } };
        },
      },
    },
  ];
}
