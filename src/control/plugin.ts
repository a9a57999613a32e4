import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { safeEqual } from '../core/crypto.js';
import { VERSION } from '../core/version.js';
import type { Runtime } from '../runtime.js';
import { clockRoutes } from './clock.js';
import { platformFixtureRoutes } from './platform-fixtures.js';

export interface ControlHooks {
  /** True once migrations and the seed are done. */
  isReady(): boolean;
  /** Back to the seed state, atomically; returns how long it took in milliseconds. */
  reset(): number;
}

function controlError(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply.code(status).send({ error: message });
}

/** `/_emulator`: the stable control plane scripts and CI jobs use. */
export async function controlPlugin(app: FastifyInstance, options: { runtime: Runtime; hooks: ControlHooks }): Promise<void> {
  const { runtime, hooks } = options;
  const guard = runtime.config.controlToken;

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (guard === null || request.url.split('?')[0] === '/_emulator/health') return;
    const token = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1] ?? '';
    if (!safeEqual(token, guard)) return controlError(reply, 401, 'the control plane requires UNDERSTUDY_CONTROL_TOKEN as a bearer token');
  });
  app.setNotFoundHandler((_request, reply) => controlError(reply, 404, 'no such control endpoint'));

  app.get('/health', async (_request, reply) => {
    if (!hooks.isReady()) return reply.code(503).send({ status: 'starting' });
    return { status: 'ok' };
  });

  app.get('/info', async () => ({
    name: 'understudy',
    version: VERSION,
    dialect: runtime.config.dialect,
    store: runtime.store.ephemeral ? ':memory:' : runtime.store.location,
    seed: runtime.config.seed,
    clock: runtime.clock.now().toISOString(),
    prefixes: ['/api/v2', '/v1', '/_emulator'],
  }));

  app.post('/reset', async () => ({ status: 'reset', 'duration-ms': hooks.reset() }));

  await clockRoutes(app, runtime);
  await platformFixtureRoutes(app, runtime);
}
