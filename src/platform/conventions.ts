import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { ApiError } from '../core/errors.js';
import { parseJson } from '../core/json.js';
import { authenticate, bearerToken } from './auth/authenticate.js';
import type { Principal } from './auth/principal.js';
import { runOfTaskAccessToken } from './task-stages/access.js';
import type { Runtime } from '../runtime.js';
import type { PlatformContext } from './services.js';
import { NOT_FOUND, platformErrorHandler, sendError } from './jsonapi/errors.js';
import { platformValidatorCompiler } from './jsonapi/validation.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the platform authentication hook on every non-public route. */
    principal: Principal;
    /** On `taskAccess` routes: the run whose task service's access token came instead of an API token (then `principal` is unset). */
    taskRunId: string | null;
  }
  interface FastifyContextConfig {
    /** Routes that answer without a token (ping, discovery, upload links). */
    public?: boolean;
    /** Routes a run task payload's `access_token` may also read (its run's plan JSON and configuration). */
    taskAccess?: boolean;
  }
}

/**
 * Bodies are JSON whatever the declared type: real clients send `application/vnd.api+json`,
 * scripts often `application/json` or curl's form default. An empty body is no body (go-tfe sends
 * a Content-Type on every DELETE), and unparseable JSON is a 422, never a 5xx. The size limit is
 * the route's `bodyLimit` (default: the server's), so an upload route can raise it for itself.
 */
function parseBody(_request: FastifyRequest, body: string, done: (error: Error | null, value?: unknown) => void): void {
  if (body.trim() === '') return done(null, undefined);
  try {
    done(null, parseJson(body));
  } catch (error) {
    done(new ApiError(422, `malformed JSON body: ${(error as Error).message}`, { title: 'invalid body', pointer: '' }));
  }
}

/**
 * The platform's bearer-token rule as one hook: every route not marked `config: { public: true }`
 * needs a valid token, and the request carries its principal.
 */
export function platformAuthentication(context: Runtime): onRequestHookHandler {
  // A callback hook, not an async one: it runs on every request and never awaits, so the promise
  // and the microtask an async hook costs buy nothing. A refusal goes to `done` as the error.
  return function authenticatePlatformRequest(request, _reply, done) {
    // `routeOptions` is a getter that builds a fresh object on every read: read it once.
    const { config } = request.routeOptions;
    if (config.public) return done();
    if (config.taskAccess) {
      const runId = runOfTaskAccessToken(context.store.db, bearerToken(request.headers.authorization));
      if (runId !== undefined) {
        request.taskRunId = runId;
        return done();
      }
    }
    try {
      request.principal = authenticate(context.store.db, context.clock, bearerToken(request.headers.authorization));
    } catch (error) {
      return done(error as Error);
    }
    done();
  };
}

const serializeAsIs = (data: unknown): string => JSON.stringify(data);

/**
 * Everything that makes a Fastify scope speak the platform API: JSON bodies whatever the content
 * type, TypeBox route schemas checked into JSON:API errors, JSON:API error and not-found
 * documents, the administrator's rate limit and bearer-token authentication. `/api/v2` uses it; so can `/api/registry/…`,
 * `/.well-known/…` and upload links, each in its own encapsulated scope. A scope that takes
 * binary uploads adds its own content-type parser after this call. A scope registered without a
 * prefix shares the root's not-found handler (Fastify allows one per prefix), so it says
 * `ownNotFound: false`.
 */
export function registerPlatformConventions(scope: FastifyInstance, context: PlatformContext, { ownNotFound = true } = {}): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', { parseAs: 'string' }, parseBody);
  scope.setValidatorCompiler(platformValidatorCompiler);
  scope.setErrorHandler(platformErrorHandler);
  // Response schemas document (jsonapi/responses.ts); they never shape an answer. Fastify's default
  // would compile each into a serializer that drops undeclared members: this one writes what it gets.
  scope.setSerializerCompiler(() => serializeAsIs);
  if (ownNotFound) scope.setNotFoundHandler((_request: FastifyRequest, reply: FastifyReply) => sendError(reply, NOT_FOUND));
  // Filled by the hook; null until then (routes marked public never read it).
  if (!scope.hasRequestDecorator('principal')) scope.decorateRequest('principal', null as never);
  if (!scope.hasRequestDecorator('taskRunId')) scope.decorateRequest('taskRunId', null);
  // The administrator's API rate limit, before authentication (a refused request costs nothing more).
  scope.addHook('onRequest', context.services.rateLimiter.hook);
  scope.addHook('onRequest', platformAuthentication(context));
}
