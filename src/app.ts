import type { DestinationStream } from 'pino';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { ControllableClock } from './core/clock.js';
import { controlPlugin } from './control/plugin.js';
import { Scheduler } from './core/scheduler.js';
import { platformPlugin } from './platform/plugin.js';
import type { Runtime } from './runtime.js';
import { secretsPlugin } from './secrets/plugin.js';
import { applySeed, readSeedFile } from './seed/seed.js';
import { openStore, wipeAndRefill } from './store/store.js';
import { requestLogSerializer } from './secrets/http/list-method.js';
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
