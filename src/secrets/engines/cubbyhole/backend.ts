import { ApiError, badRequest, notFound } from '../../../core/errors.js';
import type { EngineFactory } from '../../context.js';
import { entryPathProblem } from '../../framework/entries.js';
import { missingDataFields } from '../../framework/errors.js';
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
        const key = request.token && !entryPathProblem(request.path) ? `${request.token.accessor}/${request.path}` : undefined;
        return key !== undefined && request.storage.has(key);
      },
      operations: {
        read: (request) => {
          // Answered as it is, so the opened entry is shared while unchanged (a write seals new text).
          const value = request.storage.getShared<Record<string, unknown>>(ownerKey(request));
          if (value === undefined) throw notFound();
          return { data: value };
        },
        list: (request) => {
          const folder = request.path.replace(/\/$/, '');
          const problem = folder === '' ? undefined : entryPathProblem(folder);
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

/** `<accessor>/<path>`: the storage key of the caller's entry. */
function ownerKey(request: HandlerRequest): string {
  const problem = entryPathProblem(request.path);
  if (problem) throw badRequest(problem);
  return `${accessorOf(request)}/${request.path}`;
}

function write(request: HandlerRequest): LogicalResponse | undefined {
  const key = ownerKey(request);
  if (Object.keys(request.data).length === 0) throw missingDataFields();
  request.storage.put(key, request.data);
  return undefined;
}
