import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';

/**
 * HEAD answered by the GET route of the path, as Fastify's automatic HEAD routes answer it, without
 * registering those routes. Fastify's `exposeHeadRoutes` puts a HEAD twin beside every GET route:
 * some 200 more routes, each with its own context, hooks and router branch, which made a third of
 * the routes and a fifth of the server's CPU to ready (issue 32). With it off (see app.ts):
 *
 * - {@link routeHeadAsGet}, Fastify's `rewriteUrl`, runs before routing: a HEAD request is routed
 *   as GET. Node has already decided, from the method the client sent, that the answer to it has
 *   no body (light-my-request does the same for injected requests).
 * - {@link restoreHeadMethod}, in the root's first `onRequest` hook (and in the router's error
 *   answer, which no hook precedes), puts `HEAD` back, so every hook and handler (journal, fault
 *   rules, logs, the not-found answer) sees the method the client sent.
 * - {@link answerHeadLikeGet}, an `onRoute` hook, gives each GET route the twin's one difference:
 *   its last `onSend` step, a copy of Fastify's own (lib/head-route.js), which answers with the
 *   GET body's length and no body.
 *
 * A route that declares HEAD itself (the secrets API's catch-all, static files) declares GET with
 * it, in the same route: a HEAD request routed as GET reaches the same route, which answers HEAD
 * itself as before. A HEAD-only route, or one that opts out of HEAD, would be answered wrongly, so
 * `answerHeadLikeGet` refuses them at start.
 */

/** Requests that arrived as HEAD and are being routed as GET. */
const routedAsGet = new WeakSet<IncomingMessage>();

/** Fastify's `rewriteUrl` option: leaves the URL as it is and routes a HEAD request as GET. */
export function routeHeadAsGet(request: IncomingMessage): string {
  if (request.method === 'HEAD') {
    routedAsGet.add(request);
    request.method = 'GET';
  }
  return request.url ?? '/';
}

/** The method the client sent: `HEAD` for a request routed as GET, else the request's own. */
export function sentMethod(request: Pick<FastifyRequest, 'raw' | 'method'>): string {
  return routedAsGet.has(request.raw) ? 'HEAD' : request.method;
}

/** A HEAD request routed as GET reads as HEAD again from here on. */
export function restoreHeadMethod(request: FastifyRequest): void {
  if (routedAsGet.has(request.raw)) request.raw.method = 'HEAD';
}

/** The root's first `onRequest` hook, so every hook after it sees the method the client sent. */
function restoreBeforeHooks(request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  restoreHeadMethod(request);
  done();
}

/** Fastify's HEAD twin's last `onSend` step, for HEAD requests only; GET requests pass untouched. */
function headOnSend(request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload?: unknown) => void): void {
  if (request.method !== 'HEAD') return done(null, payload);
  if (payload === undefined) {
    reply.header('content-length', '0');
    return done(null, null);
  }
  const stream = payload as { resume?: unknown; getReader?: unknown; on(event: 'error', listener: (error: Error) => void): void };
  if (typeof stream.resume === 'function') {
    stream.on('error', (error) => reply.log.error({ err: error }, 'Error on Stream found for HEAD route'));
    (payload as NodeJS.ReadableStream).resume();
    return done(null, null);
  }
  if (typeof stream.getReader === 'function') {
    (payload as ReadableStream).cancel('Stream cancelled by HEAD route').catch((error: unknown) => {
      reply.log.error({ err: error }, 'Error on Stream found for HEAD route');
    });
    return done(null, null);
  }
  reply.header('content-length', String(Buffer.byteLength(payload as string | Buffer)));
  done(null, null);
}

type OnSend = NonNullable<RouteOptions['onSend']>;

/** An `onRoute` hook: a GET route also answers HEAD as its automatic twin would have. */
export function answerHeadLikeGet(route: RouteOptions): void {
  const methods = [route.method].flat();
  if (methods.includes('HEAD')) {
    if (!methods.includes('GET')) throw new Error(`HEAD ${route.url}: a route that answers HEAD must answer GET too (head-requests.ts)`);
    return;
  }
  if (!methods.includes('GET')) return;
  if (route.exposeHeadRoute === false) throw new Error(`GET ${route.url}: every GET route answers HEAD (see head-requests.ts)`);
  const own: OnSend = route.onSend ?? [];
  route.onSend = [...(Array.isArray(own) ? own : [own]), headOnSend] as OnSend;
}

/** Installs the two hooks; call it on the root before any route is registered. */
export function answerHeadThroughGet(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', restoreBeforeHooks);
  fastify.addHook('onRoute', answerHeadLikeGet);
}
