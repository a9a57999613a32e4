import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { safeEqual } from '../../core/crypto.js';
import type { Runtime } from '../../runtime.js';
import { CONTROL_COOKIE, controlAuthorized } from '../control-token.js';
import { invalid } from './errors.js';
import { inspectorPage, loginPage } from './ui-page.js';
import { worldOverview } from './world.js';

/** An HTML page with its inline script allowed by nonce only. */
export function sendPage(reply: FastifyReply, status: number, page: (nonce: string) => string): FastifyReply {
  const nonce = randomBytes(16).toString('base64');
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('content-security-policy', `default-src 'self'; script-src 'nonce-${nonce}'; style-src 'unsafe-inline'; frame-ancestors 'none'`)
    .send(page(nonce));
}

/**
 * `/_emulator/ui`: the inspector page, its world overview, and — when a control token is set — a
 * login that keeps the token in an HttpOnly, same-site cookie the control plane accepts.
 */
export function inspectorRoutes(app: FastifyInstance, runtime: Runtime): void {
  const guard = runtime.config.controlToken;
  app.get(
    '/ui',
    { schema: { summary: 'the inspector page (HTML): world, live requests, faults, clock, snapshots' } },
    async (request, reply) => (controlAuthorized(request, guard) ? sendPage(reply, 200, inspectorPage) : sendPage(reply, 401, loginPage)),
  );
  app.get('/ui/world', { schema: { summary: "the inspector's overview: organizations, workspaces, modules, mounts, leases" } }, async () =>
    worldOverview(runtime.store.db, runtime.clock.nowMs()),
  );
  app.post('/ui/login', { schema: { summary: 'the inspector login: {"token": …} sets the control cookie' } }, async (request, reply) => {
    const token = (request.body as { token?: unknown } | undefined)?.token;
    if (typeof token !== 'string') throw invalid('"token" is required');
    if (guard === null) return reply.code(204).send();
    if (!safeEqual(token, guard)) return reply.code(401).send({ error: 'that is not the control token' });
    return reply
      .code(204)
      .header('set-cookie', `${CONTROL_COOKIE}=${encodeURIComponent(token)}; Path=/_emulator; HttpOnly; SameSite=Strict`)
      .send();
  });
}
