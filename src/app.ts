import type { DestinationStream } from 'pino';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Config } from './config.js';
import { ControllableClock } from './core/clock.js';
import { ApiError } from './core/errors.js';
import { controlPlugin } from './control/plugin.js';
import { Scheduler } from './core/scheduler.js';
import { platformRouterError } from './platform/jsonapi/errors.js';
import { platformPlugin } from './platform/plugin.js';
import type { Runtime } from './runtime.js';
import { secretsPlugin } from './secrets/plugin.js';
import { applySeed, readSeedFile } from './seed/seed.js';
import { openStore, wipeAndRefill } from './store/store.js';
import { requestLogSerializer } from './secrets/http/list-method.js';
import { sendSecretsError } from './secrets/http/respond.js';
import { createServerWithListMethod } from './secrets/http/server.js';

export interface App {
  readonly fastify: FastifyInstance;
  readonly runtime: Runtime;
  /** Back to the seed state; returns the time it took in milliseconds. */
  reset(): number;
}

/** Header and body paths that carry secrets: never written to a log. */
const REDACTED = [
  'req.headers.authorization',
  'req.headers["x-vault-token"]',
  'req.headers["x-store-token"]',
  'req.headers.cookie',
];

export interface BuildOptions {
  /** Where logs go (the process writes them to stderr); `false` turns logging off (tests). */
  logTo?: DestinationStream | false;
  clock?: ControllableClock;
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
  if (request.url.startsWith('/api/v2/')) platformRouterError(error, reply);
  else if (isSecretsPath(request.url)) sendSecretsError(reply, new ApiError(400, error.message, { messages: [] }));
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
  reply.code(404).send({ error: `no route for ${request.method} ${request.url.split('?')[0]}; the APIs live under /api/v2, /v1 and /_emulator` });
}

/** Builds the whole server: store (migrated), seed, and the three trees on one Fastify instance. */
export async function buildApp(config: Config, options: BuildOptions = {}): Promise<App> {
  const store = openStore(config.store);
  const clock = options.clock ?? new ControllableClock();
  const seed = readSeedFile(config.seed);
  const fastify = Fastify({
    logger: loggerOptions(config, options.logTo),
    serverFactory: createServerWithListMethod,
    // Lists and paths carry brackets and percent-encoding that must reach the routes untouched.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1000 },
    bodyLimit: 10 * 1024 * 1024,
    frameworkErrors: routerError,
  });
  const runtime: Runtime = { config, store, clock, log: fastify.log, scheduler: new Scheduler(clock, fastify.log) };
  const seedTokens = { adminToken: config.adminToken, rootToken: config.rootToken };

  store.db.transaction((tx) => applySeed(store.db, tx, clock, seed, seedTokens));
  let ready = false;

  const reset = (): number => {
    const started = performance.now();
    clock.reset();
    wipeAndRefill(store, (tx) => applySeed(store.db, tx, clock, seed, seedTokens));
    runtime.scheduler.reset();
    return Math.round((performance.now() - started) * 100) / 100;
  };

  fastify.setNotFoundHandler(unrouted);
  await fastify.register(async (scoped) => platformPlugin(scoped, runtime), { prefix: '/api/v2' });
  await fastify.register(async (scoped) => secretsPlugin(scoped, runtime));
  await fastify.register(controlPlugin, { prefix: '/_emulator', runtime, hooks: { isReady: () => ready, reset } });
  fastify.addHook('onReady', async () => {
    ready = true;
  });
  fastify.addHook('onClose', async () => {
    await runtime.scheduler.stop();
    store.close();
  });
  await fastify.ready();
  return { fastify, runtime, reset };
}
