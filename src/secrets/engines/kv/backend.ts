import type { EngineFactory } from '../../context.js';
import { UNSUPPORTED_OPERATION } from '../../framework/errors.js';
import type { Handler, HandlerRequest, LogicalResponse, Operation, PathSpec } from '../../framework/types.js';
import { upgradeV1Entries } from './store.js';
import { v1 } from './v1.js';
import { DeletedVersion, v2Handlers } from './v2.js';

/** The CLI sub-command the real service names when a v2 mount is addressed without `data/` or `metadata/`. */
const CLI_VERB: Record<Operation, string> = { read: 'get', list: 'list', create: 'put', update: 'put', delete: 'delete', patch: 'patch' };

const isVersioned = (request: HandlerRequest) => request.mount.options?.['version'] === '2';

/** A path of a v2 mount that is not one of its endpoints: a 404 whose warning points at the right API. */
function invalidPath(request: HandlerRequest): LogicalResponse {
  const verb = CLI_VERB[request.operation];
  return {
    warnings: [
      'Invalid path for a versioned K/V secrets engine. See the API docs for the appropriate API endpoints to use. ' +
        `If using the Vault CLI, use 'vault kv ${verb}' for this operation.`,
    ],
    status: 404,
  };
}

const V1_OPERATIONS: Record<Operation, Handler | undefined> = {
  read: v1.read,
  list: v1.list,
  create: v1.write,
  update: v1.write,
  delete: v1.delete,
  patch: undefined,
};

/**
 * The key/value engine (`kv`; `kv-v2` is an alias `sys/mounts` resolves). One table serves both
 * versions, chosen per request by the mount's `options.version`: on a version-1 mount every path
 * is an entry (`data/x` included); on a version-2 mount the first segment names the endpoint.
 * A v1 mount tuned to `version=2` has its entries turned into version 1 of each key on first use.
 */
export const kvEngine: EngineFactory = (context) => {
  const v2 = v2Handlers(context.clock);
  const upgraded = new Set<string>();

  const dispatch =
    (operation: Operation, versioned: Handler | undefined, catchAll: boolean): Handler =>
    async (request) => {
      if (!isVersioned(request)) {
        // v1 entries written now are upgraded if the mount is tuned to version 2 again.
        upgraded.delete(request.mount.uuid);
        const plain = V1_OPERATIONS[operation];
        if (!plain) throw UNSUPPORTED_OPERATION;
        return plain(request);
      }
      if (!upgraded.has(request.mount.uuid)) {
        upgradeV1Entries(request.storage, context.clock.now());
        upgraded.add(request.mount.uuid);
      }
      if (!versioned) {
        if (catchAll || operation === 'list') return invalidPath(request);
        throw UNSUPPORTED_OPERATION;
      }
      try {
        return await versioned(request);
      } catch (error) {
        if (error instanceof DeletedVersion) return error.response;
        throw error;
      }
    };

  /** A v2 endpoint; its operations also answer as plain entries on a v1 mount. */
  const endpoint = (
    pattern: string,
    summary: string,
    handlers: Partial<Record<Operation, Handler>>,
    fields: PathSpec['fields'] = {},
    exists?: (request: HandlerRequest) => boolean,
  ): PathSpec => {
    const operations: Partial<Record<Operation, Handler>> = {};
    for (const operation of Object.keys(CLI_VERB) as Operation[]) {
      const versioned = handlers[operation] ?? (operation === 'create' ? handlers.update : undefined);
      operations[operation] = dispatch(operation, versioned, pattern === ':path*');
    }
    return {
      pattern,
      summary,
      // Typed by the handlers: on a v1 mount the same body is an arbitrary entry and must not be converted.
      fields: Object.fromEntries(
        Object.entries(fields).map(([name, spec]) => [name, { ...spec, type: 'any' as const, documentedAs: spec.type }]),
      ),
      existenceCheck: (request) => (isVersioned(request) ? (exists ? exists(request) : true) : v1.exists(request)),
      operations,
    };
  };

  return {
    type: 'kv',
    paths: [
      endpoint('config', 'v2: mount-wide max_versions, cas_required and delete_version_after.', v2.config, v2.fields.config),
      endpoint('data/:path*', 'v2: read (?version=), write (options.cas), patch, soft-delete.', v2.data, v2.fields.data, v2.exists),
      endpoint('metadata/:path*', "v2: a key's versions and settings; list; delete all.", v2.metadata, v2.fields.metadata, v2.exists),
      endpoint('delete/:path*', 'v2: soft-delete the given versions.', v2.delete),
      endpoint('undelete/:path*', 'v2: restore soft-deleted versions.', v2.undelete),
      endpoint('destroy/:path*', 'v2: remove the given versions for good.', v2.destroy),
      endpoint('subkeys/:path*', "v2: a version's keys, with values replaced by null (?version=, ?depth=).", v2.subkeys, v2.fields.subkeys),
      endpoint(':path*', 'v1: read, write, list and delete entries (on a v2 mount: a 404 pointing at data/ and metadata/).', {}),
    ],
  };
};
