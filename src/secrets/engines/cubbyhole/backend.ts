import { ApiError, badRequest, notFound } from '../../../core/errors.js';
import type { EngineFactory } from '../../context.js';
import type { HandlerRequest, LogicalResponse } from '../../framework/types.js';

/**
 * The cubbyhole engine: key/value storage private to the calling token. Entries live under the
 * token's accessor, so another token (root included) never sees them, and revoking the token
 * deletes them (TokenService does that for every cubbyhole mount).
 */
export const cubbyholeEngine: EngineFactory = () => ({
  type: 'cubbyhole',
  paths: [
    {
      pattern: ':path*',
      summary: 'Read, list, write and delete entries private to the calling token.',
      existenceCheck: (request) => {
        const key = request.token && !pathProblem(request.path) ? `${request.token.accessor}/${request.path}` : undefined;
        return key !== undefined && request.storage.get(key) !== undefined;
      },
      operations: {
        read: (request) => {
          const value = request.storage.get<Record<string, unknown>>(ownerKey(request));
          if (value === undefined) throw notFound();
          return { data: value };
        },
        list: (request) => {
          const folder = request.path.replace(/\/$/, '');
          const problem = folder === '' ? undefined : pathProblem(folder);
          if (problem) throw badRequest(problem);
          const keys = request.storage.list(`${accessorOf(request)}/${request.path}`);
          if (keys.length === 0) throw notFound();
          return { data: { keys } };
        },
        create: write,
        update: write,
        delete: (request) => {
          request.storage.delete(ownerKey(request));
          return undefined;
        },
      },
    },
  ],
});

function accessorOf(request: HandlerRequest): string {
  // The router only runs authenticated operations with a token; cubbyhole has no unauthenticated ones.
  if (!request.token) throw new ApiError(403, 'permission denied', { messages: ['permission denied'] });
  return request.token.accessor;
}

/** Why `path` cannot name an entry, if it cannot. */
function pathProblem(path: string): string | undefined {
  if (path === '') return 'missing path';
  const segments = path.split('/');
  if (segments.some((segment) => segment === '')) return `invalid path "${path}": empty segments are not allowed`;
  if (segments.some((segment) => segment === '..' || segment === '.'))
    return `invalid path "${path}": "." and ".." segments are not allowed`;
  return undefined;
}

/** `<accessor>/<path>`: the storage key of the caller's entry. */
function ownerKey(request: HandlerRequest): string {
  const problem = pathProblem(request.path);
  if (problem) throw badRequest(problem);
  return `${accessorOf(request)}/${request.path}`;
}

function write(request: HandlerRequest): LogicalResponse | undefined {
  const key = ownerKey(request);
  if (Object.keys(request.data).length === 0) {
    // The real service fails this with a Go error, which clients see as a 500 with this text.
    throw new ApiError(500, 'missing data fields', { messages: ['1 error occurred:\n\t* missing data fields\n\n'] });
  }
  request.storage.put(key, request.data);
  return undefined;
}
