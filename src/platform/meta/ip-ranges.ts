import type { FastifyInstance } from 'fastify';
import { registerPlatformConventions } from '../conventions.js';
import type { PlatformContext } from '../context.js';

/**
 * The address ranges each kind of the service's traffic comes from. understudy's API, its
 * notifications and run-task calls, its policy checks and its git clones all come from the machine
 * it runs on, so every list is the loopback ranges.
 */
const LOOPBACK = ['127.0.0.0/8', '::1/128'];

/** `If-Modified-Since` at or after `lastModified` (HTTP dates count whole seconds): nothing changed since. */
function notModifiedSince(header: string | undefined, lastModified: Date): boolean {
  if (header === undefined) return false;
  const since = Date.parse(header);
  return !Number.isNaN(since) && Math.floor(lastModified.getTime() / 1000) <= Math.floor(since / 1000);
}

/**
 * `GET /api/meta/ip-ranges` (hosted edition): plain JSON, no token needed. The ranges never change
 * while the server runs, so they were last modified when it started (on the emulated clock); an
 * `If-Modified-Since` from then on is a 304 with no body.
 */
export async function ipRangesPlugin(app: FastifyInstance, context: PlatformContext): Promise<void> {
  registerPlatformConventions(app, context, { ownNotFound: false });
  const lastModified = context.clock.now();
  app.get('/api/meta/ip-ranges', { config: { public: true } }, async (request, reply) => {
    reply.header('Last-Modified', lastModified.toUTCString());
    if (notModifiedSince(request.headers['if-modified-since'], lastModified)) return reply.code(304).send();
    return reply.code(200).type('application/json').send({ api: LOOPBACK, notifications: LOOPBACK, sentinel: LOOPBACK, vcs: LOOPBACK });
  });
}
