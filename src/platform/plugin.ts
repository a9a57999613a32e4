import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../core/errors.js';
import { parseJson } from '../core/json.js';
import { authenticate, bearerToken } from './auth/authenticate.js';
import type { Principal } from './auth/principal.js';
import type { PlatformContext } from './context.js';
import { NOT_FOUND, platformErrorHandler, sendError } from './jsonapi/errors.js';
import { metaRoutes } from './meta/routes.js';
import { organizationRoutes } from './organizations/routes.js';
import { teamRoutes } from './teams/routes.js';
import { tokenRoutes } from './tokens/routes.js';
import { userRoutes } from './users/routes.js';
import { agentPoolRoutes } from './agent-pools/routes.js';
import { membershipRoutes } from './memberships/routes.js';
import { remoteStateRoutes } from './remote-state/routes.js';
import { runTaskRoutes } from './run-tasks/routes.js';
import { sshKeyRoutes } from './ssh-keys/routes.js';
import { tagRoutes } from './tags/routes.js';
import { teamAccessRoutes } from './team-access/routes.js';
import { workspaceTaskRoutes } from './workspace-tasks/routes.js';
import { workspaceActionRoutes } from './workspaces/actions.js';
import { workspaceRoutes } from './workspaces/routes.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the platform tree's auth hook on every non-public route. */
    principal: Principal;
  }
  interface FastifyContextConfig {
    /** Routes that answer without a token (ping). */
    public?: boolean;
  }
}

/**
 * Bodies are JSON whatever the declared type: real clients send `application/vnd.api+json`,
 * scripts often `application/json` or curl's form default. An empty body is no body (go-tfe sends
 * a Content-Type on every DELETE), and unparseable JSON is a 422, never a 5xx.
 */
function parseBody(_request: FastifyRequest, body: string, done: (error: Error | null, value?: unknown) => void): void {
  if (body.trim() === '') return done(null, undefined);
  try {
    done(null, parseJson(body));
  } catch (error) {
    done(new ApiError(422, `malformed JSON body: ${(error as Error).message}`, { title: 'invalid body', pointer: '' }));
  }
}

/** The `/api/v2` tree: JSON:API conventions, bearer auth, one permissions module. */
export async function platformPlugin(app: FastifyInstance, context: PlatformContext): Promise<void> {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, parseBody);
  app.setErrorHandler(platformErrorHandler);
  app.setNotFoundHandler((_request: FastifyRequest, reply: FastifyReply) => sendError(reply, NOT_FOUND));

  // Filled by the hook below; null until then (routes marked public never read it).
  app.decorateRequest('principal', null as never);
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.config.public) return;
    request.principal = authenticate(context.store.db, context.clock, bearerToken(request.headers.authorization));
  });

  await app.register(metaRoutes);
  await app.register(async (scoped) => organizationRoutes(scoped, context));
  await app.register(async (scoped) => userRoutes(scoped, context));
  await app.register(async (scoped) => teamRoutes(scoped, context));
  await app.register(async (scoped) => tokenRoutes(scoped, context));
  await app.register(async (scoped) => workspaceRoutes(scoped, context));
  await app.register(async (scoped) => workspaceActionRoutes(scoped, context));
  await app.register(async (scoped) => tagRoutes(scoped, context));
  await app.register(async (scoped) => remoteStateRoutes(scoped, context));
  await app.register(async (scoped) => agentPoolRoutes(scoped, context));
  await app.register(async (scoped) => sshKeyRoutes(scoped, context));
  await app.register(async (scoped) => teamAccessRoutes(scoped, context));
  await app.register(async (scoped) => runTaskRoutes(scoped, context));
  await app.register(async (scoped) => workspaceTaskRoutes(scoped, context));
  await app.register(async (scoped) => membershipRoutes(scoped, context));
}
