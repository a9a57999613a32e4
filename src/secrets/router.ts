import { ApiError } from '../core/errors.js';
import { addressInCidrs } from './auth/cidr.js';
import type { AuditTrail } from './audit/broker.js';
import type { SecretsContext } from './context.js';
import { PERMISSION_DENIED, UNSUPPORTED_OPERATION, UNSUPPORTED_PATH } from './framework/errors.js';
import { FieldData } from './framework/fields.js';
import { RoutedRequest } from './framework/handler-request.js';
import { PathTable, type PathMatch } from './framework/paths.js';
import type { HandlerRequest, LogicalResponse, MountInfo, Operation } from './framework/types.js';
import { MountStorage } from './storage/mount-storage.js';
import { identityBackend } from './identity/backend.js';
import { isEmptyResponse } from './http/respond.js';
import { carriesSecretBodies } from './http/secret-bodies.js';
import { systemBackend } from './sys/backend.js';
import { tokenBackend } from './tokens/backend.js';

/** The operation an HTTP request asks for; `write` becomes create or update by existence. */
export type RequestedOperation = 'read' | 'list' | 'write' | 'delete' | 'patch';

export interface LogicalRequest {
  operation: RequestedOperation;
  /** Path after `/v1/`, without a leading slash. */
  path: string;
  data: Record<string, unknown>;
  clientToken: string | undefined;
  /** The client's address (token and secret ID CIDR bindings check it). */
  clientAddress?: string;
  /** Seconds of wrapped answer asked for with `X-Vault-Wrap-TTL`; absent or 0 for none. */
  wrapTtl?: number;
  /** Scheme and host the request came to (the identity token issuer's default). */
  origin?: string;
  /** Set once routed: whether the bodies carry secrets the journal must not keep (secret-bodies.ts). */
  secretBodies?: boolean;
  /** Called once routed, when `secretBodies` is set: the body text, parsed into `data` and kept by no journal, can go. */
  releaseBodyText?: () => void;
  /** The TLS client certificate (DER) the connection presented, if any (`auth/cert` logins). */
  clientCertificate?: Buffer;
}

/** The path the ACL sees: list requests end in `/`, so `secret/` matches `secret/*` rules. */
function listPathOf(request: LogicalRequest): string {
  return request.operation === 'list' && !request.path.endsWith('/') ? `${request.path}/` : request.path;
}

interface Route {
  mount: MountInfo;
  table: PathTable;
}

/**
 * Routes logical requests to backends: the built-in `sys/` and `auth/token/` plus every mounted
 * engine, by longest prefix. Order of checks follows the real service: find the path, decide
 * create vs update, check the token and its policy, then run the handler.
 */
export class SecretsRouter {
  private readonly builtIns: { prefix: string; route: Route }[];
  private readonly tables = new Map<string, PathTable>();

  constructor(private readonly context: SecretsContext) {
    const builtIn = (prefix: string, type: string, table: PathTable): { prefix: string; route: Route } => ({
      prefix,
      route: { mount: { path: prefix, type, uuid: `builtin-${type}`, accessor: `${type}_builtin`, config: {} }, table },
    });
    this.builtIns = [
      builtIn('sys/', 'system', new PathTable(systemBackend(context))),
      builtIn('auth/token/', 'token', new PathTable(tokenBackend(context))),
      builtIn('identity/', 'identity', new PathTable(identityBackend(context))),
    ];
  }

  private tableFor(type: string): PathTable | undefined {
    let table = this.tables.get(type);
    if (!table) {
      const backend = this.context.backend(type);
      if (!backend) return undefined;
      table = new PathTable(backend);
      this.tables.set(type, table);
    }
    return table;
  }

  private resolve(path: string): Route | undefined {
    const builtIn = this.builtIns.find(({ prefix }) => `${path}/`.startsWith(prefix));
    if (builtIn) return builtIn.route;
    // Auth methods live in their own table, with paths relative to `auth/`.
    if (path.startsWith('auth/')) {
      const method = this.context.authMounts.longestPrefix(path.slice('auth/'.length));
      const table = method && this.tableFor(method.type);
      return method && table ? { mount: { ...method, path: `auth/${method.path}` }, table } : undefined;
    }
    const mount = this.context.mounts.longestPrefix(path);
    if (!mount) return undefined;
    const table = this.tableFor(mount.type);
    return table ? { mount, table } : undefined;
  }

  /** Routes one request; with audit devices enabled, a request record before the handler and a response record after. */
  async handle(request: LogicalRequest): Promise<LogicalResponse | undefined> {
    const trail = this.context.audit.trail(request);
    if (!trail) return this.route(request);
    try {
      const response = await this.route(request, trail);
      trail.response(response);
      return response;
    } catch (error) {
      trail.failure(error);
      throw error;
    }
  }

  private async route(request: LogicalRequest, trail?: AuditTrail): Promise<LogicalResponse | undefined> {
    const { db } = this.context.store;
    const { tokens, acl } = this.context;
    const route = this.resolve(request.path);
    const relative = route ? `${request.path}/`.slice(route.mount.path.length).replace(/\/+$/, '') : request.path;
    const listPath = request.operation === 'list' && relative !== '' ? `${relative}/` : relative;
    request.secretBodies = carriesSecretBodies(route?.mount.type ?? '', relative, request.wrapTtl ?? 0);
    if (request.secretBodies) request.releaseBodyText?.();
    const match = route?.table.match(listPath);

    let token = tokens.store.lookup(request.clientToken) ?? null;
    // A token bound to addresses is no token at all from anywhere else.
    if (token?.boundCidrs?.length && !addressInCidrs(request.clientAddress, token.boundCidrs)) token = null;
    trail?.identify(token, route?.mount);
    // Converted once per request: the existence check, `beforeAuth` and the handler see the same values
    // (a value that does not convert is thrown again by each, as before: nothing is cached then).
    let fields: FieldData | undefined;
    const fieldsOf = () => (fields ??= new FieldData(match?.spec.fields ?? {}, request.data, match?.params));
    // One view of the mount's storage for the existence check and the handler alike.
    const storage = new MountStorage(db, route?.mount.uuid ?? '');
    const handlerRequest = (operation: Operation): HandlerRequest =>
      new RoutedRequest(
        {
          operation,
          path: listPath,
          params: match?.params ?? {},
          fields: fieldsOf(),
          data: request.data,
          token,
          clientAddress: request.clientAddress,
          wrapTtl: request.wrapTtl ?? 0,
          mount: route?.mount ?? { path: '', type: '', uuid: '', accessor: '', config: {} },
          storage,
        },
        request,
      );

    let operation: Operation = request.operation === 'write' ? 'update' : request.operation;
    if (request.operation === 'write' && match?.spec.existenceCheck) {
      operation = (await match.spec.existenceCheck(handlerRequest('update'))) ? 'update' : 'create';
    }

    trail?.request(operation);
    match?.spec.beforeAuth?.(handlerRequest(operation), request.clientToken);
    let lastUse = false;
    if (!match?.spec.unauthenticated?.includes(operation)) {
      if (!token) throw PERMISSION_DENIED;
      acl.authorize(token, listPathOf(request), operation, match?.spec.sudo ?? false, request.wrapTtl ?? 0);
      ({ token, lastUse } = tokens.consumeUse(token));
    }
    try {
      const response = await this.dispatch(request, route, match, operation, handlerRequest);
      return this.wrapIfAsked(request, match, response);
    } finally {
      // A use-limited token's last use still answers; then the token goes, as in the real service.
      if (lastUse && token) await tokens.revokeTree(token);
    }
  }

  /**
   * Where every answer leaves the router: wrapped when the caller asked (`X-Vault-Wrap-TTL`) or
   * the handler did (a rewrap), with the shorter TTL when both did. An empty answer (204) has
   * nothing to wrap and goes out as it is, as in the real service. Nothing else bounds the TTL:
   * the real service takes the shorter of the two and makes the wrapping token with it, without
   * the mount's or the system's maximum lease TTL (those bound leases and tokens, not wrapping
   * tokens); only the header's parse (a duration Go can hold) and the policies' `min_wrapping_ttl`
   * and `max_wrapping_ttl` limit it.
   */
  private wrapIfAsked(request: LogicalRequest, match: PathMatch | undefined, response: LogicalResponse | undefined) {
    if (!response || match?.spec.neverWrapped) return response;
    const asked = [request.wrapTtl ?? 0, response.rewrap?.ttl ?? 0].filter((ttl) => ttl > 0);
    if (asked.length === 0) return response;
    if (!response.rewrap && !response.raw && isEmptyResponse(response)) return response;
    return this.context.wrapping.wrap(response, Math.min(...asked), request.path);
  }

  private async dispatch(
    request: LogicalRequest,
    route: Route | undefined,
    match: PathMatch | undefined,
    operation: Operation,
    handlerRequest: (operation: Operation) => HandlerRequest,
  ): Promise<LogicalResponse | undefined> {
    if (!route) {
      throw new ApiError(404, 'no handler for route', { messages: [`no handler for route "${request.path}". route entry not found.`] });
    }
    if (!match) throw UNSUPPORTED_PATH;
    const handler = match.spec.operations[operation] ?? (operation === 'create' ? match.spec.operations.update : undefined);
    if (!handler) throw UNSUPPORTED_OPERATION;
    return handler(handlerRequest(operation));
  }
}
