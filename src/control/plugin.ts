import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { controlAuthorized } from './control-token.js';
import { VERSION } from '../core/version.js';
import type { PlatformContext } from '../platform/context.js';
import { clockRoutes } from './clock.js';
import { outboxRoutes } from './outbox.js';
import { bulkRoutes } from './bulk.js';
import { docsRoutes } from './docs.js';
import { platformFixtureRoutes } from './platform-fixtures.js';
import { harnessRoutes, type Harness } from './harness/harness.js';
import { runControlRoutes } from './runs.js';
import { inspectorRunRoutes } from './harness/ui-runs.js';
import { workloadIdentityControlRoutes } from './workload-identity.js';

export interface ControlHooks {
  /** True once migrations and the seed are done. */
  isReady(): boolean;
  /** Back to the seed state, atomically; returns how long it took in milliseconds. */
  reset(): number;
}

function controlError(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply.code(status).send({ error: message });
}

/** Control paths answered without the token: health, and the pages that show the login form. */
const OPEN_PATHS = new Set(['/_emulator/health', '/_emulator/ui', '/_emulator/ui/login', '/_emulator/docs']);

/** `/_emulator`: the stable control plane scripts and CI jobs use. */
export async function controlPlugin(
  app: FastifyInstance,
  options: { runtime: PlatformContext; hooks: ControlHooks; harness: Harness },
): Promise<void> {
  const { runtime, hooks, harness } = options;
  const guard = runtime.config.controlToken;

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    // Health is never guarded, however the path is spelled (the router ignores a trailing slash too);
    // the inspector page and the API reference answer with the login form themselves, and the
    // reference's static files are Swagger UI's own (the document they read stays guarded).
    const path = request.url.split('?')[0]?.replace(/\/+$/, '') ?? '';
    if (OPEN_PATHS.has(path) || path.startsWith('/_emulator/docs/static/')) return;
    if (!controlAuthorized(request, guard))
      return controlError(reply, 401, 'the control plane requires UNDERSTUDY_CONTROL_TOKEN as a bearer token');
  });
  app.setNotFoundHandler((_request, reply) => controlError(reply, 404, 'no such control endpoint'));

  // Every body is read as JSON whatever its content type (curl -d sends a form type), and an
  // empty body is no body; what cannot be read is a 400 in the control plane's own error form.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, text, done) => {
    if ((text as string).trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text as string));
    } catch (error) {
      done(Object.assign(new Error(`the body is not valid JSON (${(error as Error).message})`), { statusCode: 400 }), undefined);
    }
  });
  app.setErrorHandler((error: FastifyError, request, reply) => {
    // A snapshot directory that is not a writable directory is the setup's to fix, not the server's failure.
    if (refusedByFileSystem(error))
      return controlError(reply, 409, `the file system refused: ${error.message} (check UNDERSTUDY_SNAPSHOT_DIR); nothing was changed`);
    const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 600 ? error.statusCode : 500;
    if (status >= 500) request.log.error({ err: error }, 'control plane request failed');
    return controlError(reply, status, status >= 500 ? 'internal error; see the server log' : error.message);
  });

  app.get('/health', async (_request, reply) => {
    if (!hooks.isReady()) return reply.code(503).send({ status: 'starting' });
    return { status: 'ok' };
  });

  app.get('/info', async () => ({
    name: 'understudy',
    version: VERSION,
    dialect: runtime.config.dialect,
    edition: runtime.config.edition,
    store: runtime.store.ephemeral ? ':memory:' : runtime.store.location,
    seed: runtime.config.seed,
    clock: runtime.clock.now().toISOString(),
    prefixes: ['/api/v2', '/v1', '/_emulator'],
  }));

  app.post('/reset', async () => ({ status: 'reset', 'duration-ms': hooks.reset() }));

  // The OpenAPI 3.1 document of every tree, and a browsable reference built from it.
  app.get('/openapi.json', async () => app.swagger());
  docsRoutes(app, guard);

  await clockRoutes(app, runtime);
  await platformFixtureRoutes(app, runtime);
  await outboxRoutes(app, runtime);
  await bulkRoutes(app, runtime);
  await harnessRoutes(app, harness, runtime);
  await runControlRoutes(app, runtime);
  inspectorRunRoutes(app, runtime);
  await workloadIdentityControlRoutes(app, runtime);
}

/** Errors of a file system that will not take a write or a read where the control plane keeps files. */
const FILE_SYSTEM_REFUSALS = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'EISDIR', 'ENOSPC', 'EDQUOT']);

function refusedByFileSystem(error: unknown): boolean {
  const { code, syscall } = error as NodeJS.ErrnoException;
  return typeof syscall === 'string' && typeof code === 'string' && FILE_SYSTEM_REFUSALS.has(code);
}
