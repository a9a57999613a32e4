import { redactUrl } from './core/redact.js';
import { stateObjectPlugin } from './platform/state-versions/object-routes.js';
import { OBJECT_PREFIX } from './platform/state-versions/links.js';
import { RUN_OBJECT_PREFIX } from './platform/configuration-versions/links.js';
import { runObjectPlugin } from './platform/runs/object-routes.js';
import type { DestinationStream } from 'pino';
import cors from '@fastify/cors';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Config } from './config.js';
import { storedClockOffset, storeClockOffset } from './store/clock-offset.js';
import { ControllableClock } from './core/clock.js';
import { ApiError } from './core/errors.js';
import { controlPlugin } from './control/plugin.js';
import { appLinkRoutes } from './control/app-links.js';
import { standInsPlugin } from './control/stand-ins/plugin.js';
import { registerOpenApi, type RegisteredRoute } from './control/openapi.js';
import { Scheduler } from './core/scheduler.js';
import { platformRouterError } from './platform/jsonapi/errors.js';
import { platformPlugin } from './platform/plugin.js';
import { buildPlatformContext, type PlatformContext } from './platform/services.js';
import { createHarness, type Harness } from './control/harness/harness.js';
import { installHarness } from './control/harness/hooks.js';
import { isStoreFile } from './control/harness/snapshots.js';
import { signingKeyDiscoveryRoutes } from './platform/workload-identity/well-known.js';
import { registryProtocolPlugin } from './platform/registry/protocol-routes.js';
import { providerRegistryPlugin } from './platform/registry-providers/registry-routes.js';
import { agentApiPlugin } from './platform/agents/agent-api-routes.js';
import { ipRangesPlugin } from './platform/meta/ip-ranges.js';
import { editionAllows } from './core/edition.js';
import type { Runtime } from './runtime.js';
import { secretsPlugin } from './secrets/plugin.js';
import type { EngineFactory } from './secrets/context.js';
import { applySeed, readSeedFile, SeedError } from './seed/seed.js';
import { isEmptyStore, openStore, wipeAndRefill } from './store/store.js';
import { requestChildLogger, requestLogSerializer } from './logging.js';
import { sendSecretsError } from './secrets/http/respond.js';
import { createServerWithListMethod, destroyAllConnections } from './server/server.js';
import { lazyValidation } from './server/lazy-validation.js';
import { answerHeadThroughGet, restoreHeadMethod, routeHeadAsGet } from './server/head-requests.js';
import { prepareTls, type TlsMaterial } from './server/tls/material.js';
import { publicUrl } from './server/address.js';
import { CLOSE_STEP_MS, SHUTDOWN_GRACE_MS, settleWithin } from './core/shutdown.js';

export interface App {
  readonly fastify: FastifyInstance;
  readonly runtime: Runtime;
  /** The platform's services, as the platform tree uses them (tests reach the run engine's seams here). */
  readonly platform: PlatformContext;
  /** Back to the seed state; returns the time it took in milliseconds. */
  reset(): number;
  /** Every route registered, as Fastify saw it (the OpenAPI document must describe each). */
  readonly routes: readonly RegisteredRoute[];
  /** Request journal, fault rules and snapshots. */
  readonly harness: Harness;
  /** What HTTPS serves with (UNDERSTUDY_TLS, UNDERSTUDY_TLS_CERT); null: plain HTTP. */
  readonly tls: TlsMaterial | null;
}

/** Header and body paths that carry secrets: never written to a log. */
const REDACTED = ['req.headers.authorization', 'req.headers["x-vault-token"]', 'req.headers["x-store-token"]', 'req.headers.cookie'];

export interface BuildOptions {
  /** Where logs go (the process writes them to stderr); `false` turns logging off (tests). */
  logTo?: DestinationStream | false;
  clock?: ControllableClock;
  /** The secrets engines that can be mounted, by type; `ENGINES` (every shipped one) unless given (tests add their own). */
  engines?: ReadonlyMap<string, EngineFactory>;
}

/** The one logger configuration: level from the config, secrets redacted, LIST shown as LIST. */
function loggerOptions(config: Config, logTo: DestinationStream | false | undefined) {
  if (logTo === false) return false;
  return {
    level: config.logLevel,
    redact: { paths: REDACTED, censor: '[redacted]' },
    serializers: { req: requestLogSerializer },
    ...(logTo ? { stream: logTo } : {}),
  };
}

/**
 * The router's own refusals (bad percent-encoding, overlong path segments) happen before any
 * tree's error handler runs; the platform tree still owes its callers JSON:API error documents.
 * Elsewhere Fastify's default answer stands (sending the error keeps its status).
 */
function routerError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  // No onRequest hook runs before this answer: a HEAD request routed as GET reads as HEAD again here.
  restoreHeadMethod(request);
  if (request.url.startsWith('/api/v2/') || request.url.startsWith('/api/registry/')) platformRouterError(error, reply);
  else if (isSecretsPath(request.url)) sendSecretsError(reply, new ApiError(400, error.message, { messages: [] }));
  else if (request.url.startsWith('/_emulator')) reply.code(error.statusCode ?? 400).send({ error: error.message });
  else reply.send(error);
}

const isSecretsPath = (url: string) => url === '/v1' || url.startsWith('/v1/') || url.startsWith('/v1?');

/**
 * Requests no tree routes. Under `/v1` every path is routed for the methods the secrets API
 * knows, so what lands here is another method: 405 with no messages, as the real service
 * answers. Anywhere else, a 404 that says where the APIs are.
 */
function unrouted(request: FastifyRequest, reply: FastifyReply): void {
  if (isSecretsPath(request.url)) {
    sendSecretsError(reply, new ApiError(405, 'unsupported method', { messages: [] }));
    return;
  }
  // The path is echoed with any link credential redacted: the journal keeps this answer.
  const path = redactUrl(request.url.split('?')[0] ?? '');
  reply.code(404).send({ error: `no route for ${request.method} ${path}; the APIs live under /api/v2, /v1 and /_emulator` });
}

/**
 * CORS for browser-based tools, only when `UNDERSTUDY_CORS_ORIGINS` names origins (or `*`).
 * Preflights are answered before any tree sees them, so no tree's authentication refuses them.
 */
function corsOptions(origins: string) {
  return {
    origin: origins === '*' ? '*' : origins.split(',').map((origin) => origin.trim()),
    // LIST is the secrets API's own verb (the Vault CLI and browser tools send it as a method).
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'LIST'],
    // Without this a browser script cannot read the headers it needs to back off or report a request.
    exposedHeaders: ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After', 'X-Request-Id'],
    maxAge: 600,
  };
}

/** Builds the whole server: store (migrated), seed, and the three trees on one Fastify instance. */
export async function buildApp(config: Config, options: BuildOptions = {}): Promise<App> {
  // Before the store opens: a TLS mistake is a configuration error, and leaves nothing open behind it.
  const tls = prepareTls(config);
  const store = openStore(config.store);
  const clock = options.clock ?? new ControllableClock();
  // A store file remembers where the clock was moved to, so a restart does not step back behind its rows.
  clock.resume(storedClockOffset(store.sqlite));
  clock.onChange = (offset) => storeClockOffset(store.sqlite, offset);
  // The seed is a JSON world description, or a snapshot (a store file) to start from.
  const snapshotSeed = isStoreFile(config.seed) ? config.seed : null;
  const seed = snapshotSeed === null ? readSeedFile(config.seed) : null;
  const fastify = Fastify({
    logger: loggerOptions(config, options.logTo),
    ...(options.logTo === false ? {} : { childLoggerFactory: requestChildLogger }),
    serverFactory: createServerWithListMethod,
    // Read by the server factory (and by Fastify for the address it logs).
    // A client certificate is asked for but not required: `auth/cert` logins read it, nothing else needs one.
    ...(tls ? { https: { key: tls.key, cert: tls.cert, requestCert: true, rejectUnauthorized: false } } : {}),
    // Lists and paths carry brackets and percent-encoding that must reach the routes untouched.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1000 },
    bodyLimit: 10 * 1024 * 1024,
    frameworkErrors: routerError,
    schemaController: lazyValidation,
    // HEAD is answered by each GET route instead of a twin route per GET route (head-requests.ts).
    exposeHeadRoutes: false,
    rewriteUrl: routeHeadAsGet,
  });
  answerHeadThroughGet(fastify);
  // The port is known once the server listens (UNDERSTUDY_PORT=0 picks one); before, the configured one.
  // Kept once known: it never changes while the server listens, and asking the socket is a system
  // call per workload identity token (the issuer is in every one).
  let boundPort: number | undefined;
  const listeningPort = () => (boundPort ??= (fastify.server.address() as { port: number } | null)?.port) ?? config.port;
  const runtime: Runtime = {
    config,
    store,
    clock,
    log: fastify.log,
    scheduler: new Scheduler(clock, fastify.log),
    publicUrl: () => publicUrl(config, listeningPort(), tls),
  };
  const platform = buildPlatformContext(runtime);
  const seedTokens = { adminToken: config.adminToken, rootToken: config.rootToken, edition: config.edition };

  let ready = false;

  /**
   * After the store's content was replaced (reset, snapshot restore). What memory merely derived
   * from it (the limit policy and counts, the journal's subjects) compares the store generation
   * (store/generation.ts) and needs no call here; this is for what must act on the change.
   */
  const afterStoreReplaced = () => {
    // Sources drop their caches; the database engine closes its connection pools.
    runtime.scheduler.reset();
    // The replaced rows may hold another offset than the clock's (a snapshot restored without its time).
    storeClockOffset(store.sqlite, clock.offset);
  };
  const harness = createHarness(runtime, afterStoreReplaced);

  /** The seed's world: the JSON seed's additions, or the snapshot's content (into an empty store only, at start). */
  const loadSnapshotSeed = (file: string) => {
    try {
      harness.snapshots.load(file, file);
    } catch (error) {
      throw new SeedError(`UNDERSTUDY_SEED=${file}: ${(error as Error).message}`);
    }
  };
  if (seed !== null) {
    const seedWarnings = store.db.transaction((tx) => applySeed(platform, tx, seed, seedTokens));
    for (const warning of seedWarnings) fastify.log.warn(warning);
  } else if (snapshotSeed !== null && isEmptyStore(store)) loadSnapshotSeed(snapshotSeed);

  const reset = (): number => {
    const started = performance.now();
    clock.reset();
    if (seed !== null) wipeAndRefill(store, (tx) => applySeed(platform, tx, seed, seedTokens));
    else if (snapshotSeed !== null) loadSnapshotSeed(snapshotSeed);
    afterStoreReplaced();
    harness.faults.clear();
    return Math.round((performance.now() - started) * 100) / 100;
  };

  fastify.setNotFoundHandler(unrouted);
  // Every answer names its request as the journal does (`request-id`), so a call seen in a test log
  // or a browser tool can be found in `GET /_emulator/requests`.
  // A callback, not an async function: a promise per request for one header is most of its cost.
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    done();
  });
  // Before any tree, so journal and faults see every request once, wherever it is routed.
  installHarness(fastify, runtime, harness);
  if (config.corsOrigins !== null) await fastify.register(cors, corsOptions(config.corsOrigins));
  const routes = await registerOpenApi(fastify, runtime, options.engines);
  await fastify.register(async (scoped) => platformPlugin(scoped, platform), { prefix: '/api/v2' });
  await fastify.register(async (scoped) => registryProtocolPlugin(scoped, platform));
  await fastify.register(async (scoped) => providerRegistryPlugin(scoped, platform));
  await fastify.register(async (scoped) => agentApiPlugin(scoped, platform));
  if (editionAllows.ipRanges(config.edition)) await fastify.register(async (scoped) => ipRangesPlugin(scoped, platform));
  await fastify.register(async (scoped) => stateObjectPlugin(scoped, platform), { prefix: OBJECT_PREFIX });
  await fastify.register(async (scoped) => runObjectPlugin(scoped, platform), { prefix: RUN_OBJECT_PREFIX });
  await fastify.register(async (scoped) => secretsPlugin(scoped, runtime, options.engines));
  await fastify.register(async (scoped) => signingKeyDiscoveryRoutes(scoped, platform));
  await fastify.register(controlPlugin, { prefix: '/_emulator', runtime: platform, hooks: { isReady: () => ready, reset }, harness });
  await fastify.register(standInsPlugin, { runtime });
  // The web UI's links the CLI prints (a run's, the tokens page) open the inspector or say what is here instead.
  await fastify.register(async (scoped) => appLinkRoutes(scoped), { prefix: '/app' });
  // Someone who opens the bare address in a browser lands on the API reference.
  fastify.get('/', { schema: { summary: 'redirects to the API reference at /_emulator/docs' } }, async (_request, reply) =>
    reply.redirect('/_emulator/docs'),
  );
  fastify.addHook('onReady', async () => {
    ready = true;
  });
  // Requests in flight get a grace period; then every connection is cut, whatever its state.
  fastify.addHook('preClose', async () => {
    const cut = setTimeout(() => destroyAllConnections(fastify.server), SHUTDOWN_GRACE_MS);
    cut.unref();
    fastify.server.once('close', () => clearTimeout(cut));
  });
  fastify.addHook('onClose', async () => {
    await settleWithin(runtime.scheduler.stop(), CLOSE_STEP_MS, () =>
      fastify.log.warn(`shutdown: a scheduler pass did not finish within ${CLOSE_STEP_MS} ms`),
    );
    // Runs still working are interrupted and their working directories removed.
    await settleWithin(platform.services.runs.engine.close(), CLOSE_STEP_MS, () =>
      fastify.log.warn(`shutdown: run working directories were not all removed within ${CLOSE_STEP_MS} ms`),
    );
    store.close();
    harness.snapshots.close();
  });
  await fastify.ready();
  return { fastify, runtime, platform, reset, routes, harness, tls };
}
