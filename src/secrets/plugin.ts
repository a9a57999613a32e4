import { identityBackend } from './identity/backend.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../core/errors.js';
import { markSecretBodies } from '../core/redact.js';
import { CLOSE_STEP_MS, settleWithin } from '../core/shutdown.js';
import type { Runtime } from '../runtime.js';
import { Authorizer } from './acl/authorizer.js';
import { AuditBroker } from './audit/broker.js';
import { loginLimits } from './auth/login.js';
import { AUTH_METHODS } from './auth/methods.js';
import { PolicyStore } from './acl/policy-store.js';
import type { EngineFactory, SecretsContext } from './context.js';
import { cubbyholeEngine } from './engines/cubbyhole/backend.js';
import { databaseEngine } from './engines/database/backend.js';
import { kvEngine } from './engines/kv/backend.js';
import { pkiEngine } from './engines/pki/backend.js';
import { inDialect, internalError } from './framework/errors.js';
import type { Dialect } from '../core/dialect.js';
import { sshEngine } from './engines/ssh/backend.js';
import { transitEngine } from './engines/transit/backend.js';
import type { Backend } from './framework/types.js';
import { sendLogical, sendSecretsError } from './http/respond.js';
import { toLogicalRequest } from './http/request.js';
import { IDENTITY_MOUNT_UUID, IdentityStore } from './identity/identity-store.js';
import { OidcProvider } from './identity/oidc/provider.js';
import { MountStorage } from './storage/mount-storage.js';
import { LeaseManager } from './leases/lease-manager.js';
import { managedKeyService } from './managed-keys/types.js';
import { AUTH_MOUNTS, MountTable } from './mounts/mount-table.js';
import { SecretsRouter } from './router.js';
import { TokenService } from './tokens/token-service.js';
import { ResponseWrapper } from './wrapping/response-wrapper.js';
import { quotaRequest } from './quotas/login-role.js';
import { RateLimiter } from './quotas/rate-limiter.js';

/**
 * Engines that can be mounted, by type: the default list of every server. Read-only: a server
 * given other engines (tests add their own) gets them through `buildApp`'s `engines` option.
 */
export const ENGINES: ReadonlyMap<string, EngineFactory> = new Map<string, EngineFactory>([
  ['cubbyhole', cubbyholeEngine],
  ['pki', pkiEngine()],
  ['database', databaseEngine],
  ['kv', kvEngine],
  // The real service's old name for the key/value engine: a mount of this type keeps the type
  // `generic` in listings and, without a `version` option, behaves as version 1.
  ['generic', kvEngine],
  ['transit', transitEngine],
  ['ssh', sshEngine],
]);

function secretsErrorHandler(error: unknown, request: FastifyRequest, reply: FastifyReply, dialect: Dialect): FastifyReply {
  if (error instanceof ApiError) return sendSecretsError(reply, inDialect(error, dialect));
  const status = (error as { statusCode?: number }).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return sendSecretsError(reply, new ApiError(status, (error as Error).message));
  }
  request.log.error({ err: error }, 'unexpected error in the secrets API');
  return sendSecretsError(reply, internalError('internal error'));
}

/** Where this server answers on loopback (the built-in key-service stand-ins are reached there). */
function localBaseUrl(app: FastifyInstance): string {
  const address = app.server.address();
  if (address === null || typeof address === 'string')
    throw new Error('the server is not listening, so the built-in stand-ins cannot be reached');
  const host =
    address.family === 'IPv6'
      ? address.address === '::'
        ? '[::1]'
        : `[${address.address}]`
      : address.address === '0.0.0.0'
        ? '127.0.0.1'
        : address.address;
  return `http://${host}:${address.port}`;
}

/** Wires the secrets services together; backends are built lazily, once per engine type. */
export function buildSecretsContext(
  runtime: Runtime,
  engines: ReadonlyMap<string, EngineFactory>,
  localBaseUrl: () => string = () => `http://127.0.0.1:${runtime.config.port}`,
): SecretsContext {
  const { db } = runtime.store;
  const built = new Map<string, Backend>();
  const mounts = new MountTable(db, runtime.clock);
  const authMounts = new MountTable(db, runtime.clock, AUTH_MOUNTS);
  const policies = new PolicyStore(db, runtime.clock);
  const leases = new LeaseManager({
    db,
    clock: runtime.clock,
    scheduler: runtime.scheduler,
    log: runtime.log,
    backend: (type) => backend(type),
  });
  const tokens = new TokenService({
    db,
    clock: runtime.clock,
    scheduler: runtime.scheduler,
    leases,
    mounts,
    policyExists: (name) => policies.exists(name),
  });
  const managedKeys = managedKeyService(runtime, mounts, localBaseUrl);
  const identity = new IdentityStore(runtime.store, runtime.clock, mounts, authMounts);
  const context: SecretsContext = {
    ...runtime,
    mounts,
    authMounts,
    authMethods: AUTH_METHODS,
    engines,
    backend,
    policies,
    acl: new Authorizer(policies, identity),
    tokens,
    leases,
    managedKeys,
    audit: new AuditBroker(db, runtime.clock, runtime.log),
    wrapping: new ResponseWrapper({ store: runtime.store, clock: runtime.clock, scheduler: runtime.scheduler, tokens, mounts }),
    identity,
    oidc: new OidcProvider(runtime.store, runtime.clock, new MountStorage(db, IDENTITY_MOUNT_UUID), runtime.scheduler),
    quotas: new RateLimiter(db, runtime.clock),
  };
  tokens.loginLimits = (token) => loginLimits(context, token);
  tokens.entityOfAlias = (alias) => identity.linkLogin(identity.tokenMountAccessor(), { name: alias, metadata: {} }).entityId;
  function backend(type: string): Backend | undefined {
    let found = built.get(type);
    if (!found) {
      const factory = engines.get(type) ?? AUTH_METHODS.get(type);
      if (!factory) return undefined;
      found = factory(context);
      built.set(type, found);
    }
    return found;
  }
  return context;
}

/** The `/v1` tree: every request becomes a logical request routed through path tables; `engines` are those that can be mounted. */
export async function secretsPlugin(
  app: FastifyInstance,
  runtime: Runtime,
  engines: ReadonlyMap<string, EngineFactory> = ENGINES,
): Promise<void> {
  const context = buildSecretsContext(runtime, engines, () => localBaseUrl(app));
  const closeWithin = (what: string, work: Promise<unknown>) =>
    settleWithin(work, CLOSE_STEP_MS, () => runtime.log.warn(`shutdown: ${what} did not close within ${CLOSE_STEP_MS} ms`));
  app.addHook('onClose', () => closeWithin('managed keys', context.managedKeys.close()));
  app.addHook('onClose', async () => context.audit.close());
  const router = new SecretsRouter(context);
  runtime.scheduler.register(context.leases.dueSource());
  runtime.scheduler.register(context.tokens.dueSource());
  // Engines with timed work of their own (database static roles) are built now so it runs.
  const engineBackends = [...context.engines.keys()].map((type) => context.backend(type));
  for (const source of engineBackends.flatMap((backend) => backend?.dueSources ?? [])) runtime.scheduler.register(source);
  // Identity token keys rotate and expire on the clock too.
  for (const source of identityBackend(context).dueSources ?? []) runtime.scheduler.register(source);
  app.addHook('onClose', async () => {
    await Promise.all(engineBackends.map((backend) => closeWithin(`the ${backend?.type} engine`, Promise.resolve(backend?.close?.()))));
  });

  // Bodies are parsed by the logical layer, which must produce the real service's exact errors.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
  app.setErrorHandler((error, request, reply) => secretsErrorHandler(error, request, reply, runtime.config.dialect));

  app.route({
    method: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'],
    url: '/v1/*',
    exposeHeadRoute: false,
    handler: async (request, reply) => {
      const logical = toLogicalRequest(request);
      const verdict = context.quotas.check(logical.path, (state) => quotaRequest(context, logical, state));
      if (verdict) reply.headers(verdict.headers);
      if (verdict && !verdict.allowed) {
        return sendSecretsError(reply, new ApiError(429, `request path "${logical.path}": rate limit quota exceeded`));
      }
      let response;
      try {
        response = await router.handle(logical);
      } finally {
        // Before anything is sent: the journal records the request once the answer has gone.
        if (logical.secretBodies) markSecretBodies(request);
      }
      return sendLogical(reply, response);
    },
  });
  app.all('/v1', async (_request, reply) => sendSecretsError(reply, new ApiError(404, 'not found', { messages: [] })));
}
