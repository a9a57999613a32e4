import type { FastifyRequest } from 'fastify';
import { safeEqual } from '../core/crypto.js';

/** The cookie a browser keeps the control token in, after the inspector's login form. */
export const CONTROL_COOKIE = 'understudy-control';

/** The control token a request presents: `Authorization: Bearer …`, else the login cookie. */
function presented(request: FastifyRequest): string {
  const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
  if (bearer !== undefined) return bearer;
  for (const pair of (request.headers.cookie ?? '').split(';')) {
    const [name, ...value] = pair.trim().split('=');
    if (name === CONTROL_COOKIE) {
      try {
        return decodeURIComponent(value.join('='));
      } catch {
        return '';
      }
    }
  }
  return '';
}

/** Whether the request may use the control plane (always, when no control token is set). */
export function controlAuthorized(request: FastifyRequest, guard: string | null): boolean {
  return guard === null || safeEqual(presented(request), guard);
}
