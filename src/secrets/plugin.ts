import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../core/errors.js';
import type { Runtime } from '../runtime.js';
import type { EngineFactory, SecretsContext } from './context.js';
import { sendLogical, sendSecretsError } from './http/respond.js';
import { toLogicalRequest } from './http/request.js';
import { MountTable } from './mounts/mount-table.js';
import { SecretsRouter } from './router.js';

/** Engines that can be mounted. Later work adds `cubbyhole`, `pki`, `database`. */
export const ENGINES = new Map<string, EngineFactory>();

function secretsErrorHandler(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof ApiError) return sendSecretsError(reply, error);
  const status = (error as { statusCode?: number }).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return sendSecretsError(reply, new ApiError(status, (error as Error).message));
  }
  request.log.error({ err: error }, 'unexpected error in the secrets API');
  return sendSecretsError(reply, new ApiError(500, 'internal error', { messages: ['1 error occurred:\n\t* internal error\n\n'] }));
}

/** The `/v1` tree: every request becomes a logical request routed through path tables. */
export async function secretsPlugin(app: FastifyInstance, runtime: Runtime): Promise<void> {
  const context: SecretsContext = { ...runtime, mounts: new MountTable(runtime.store.db, runtime.clock), engines: ENGINES };
  const router = new SecretsRouter(context);

  // Bodies are parsed by the logical layer, which must produce the real service's exact errors.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
  app.setErrorHandler(secretsErrorHandler);

  app.route({
    method: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'],
    url: '/v1/*',
    exposeHeadRoute: false,
    handler: async (request, reply) => sendLogical(reply, await router.handle(toLogicalRequest(request))),
  });
  app.all('/v1', async (_request, reply) => sendSecretsError(reply, new ApiError(404, 'not found', { messages: [] })));
}
