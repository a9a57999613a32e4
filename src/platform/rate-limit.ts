import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { ApiError } from '../core/errors.js';
import type { Runtime } from '../runtime.js';
import { StoreDerived } from '../store/generation.js';
import { bearerToken, isLiveToken } from './auth/authenticate.js';
import { sendError } from './jsonapi/errors.js';

/** What the general settings say about limiting, as the limiter reads it on every request. */
export interface LimitPolicy {
  enabled: boolean;
  /** Requests per second per client. */
  limit: number;
}

/** The clients counted in the current second of the clock (NaN: none yet). */
interface Window {
  second: number;
  readonly counts: Map<string, number>;
}

const TOO_MANY = new ApiError(429, 'API rate limit exceeded; retry after the number of seconds in X-RateLimit-Reset', {
  title: 'too many requests',
});

/**
 * The administrator's API rate limit: fixed one-second windows of the injectable clock, one count
 * per client. One per server, made in the door (services.ts); every tree the limit covers
 * (`/api/v2`, the registry protocol) adds its `hook` through `registerPlatformConventions`, so
 * they share the counts and a client's budget is the same whichever tree it calls. The control
 * plane and the secrets API never add it. The counts belong to the store's content: a reset or a
 * restore starts every client afresh.
 */
export class RateLimiter {
  private readonly window: StoreDerived<Window>;

  constructor(
    private readonly runtime: Runtime,
    /** The policy in force (the admin settings service keeps it between its writes). */
    private readonly policy: () => LimitPolicy,
  ) {
    this.window = new StoreDerived(runtime.store.sqlite, () => ({ second: Number.NaN, counts: new Map() }));
  }

  /**
   * The `onRequest` hook. Register it before authentication, so refused requests cost nothing more.
   * A callback, not an async function: it runs on every request.
   */
  readonly hook = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    if (this.check(request, reply)) return done();
    sendError(reply, TOO_MANY);
  };

  private check(request: FastifyRequest, reply: FastifyReply): boolean {
    const policy = this.policy();
    if (!policy.enabled) return true;
    const nowMs = this.runtime.clock.nowMs();
    const second = Math.floor(nowMs / 1000);
    const window = this.window.get();
    if (second !== window.second) {
      // Only the current second matters, so the map never holds more than one second's clients.
      window.counts.clear();
      window.second = second;
    }
    // Per token when it is a live one (its text is only a map key, never logged), else per address:
    // a made-up token per request must not buy a fresh budget, as it does not on the real service.
    const token = bearerToken(request.headers.authorization);
    const { db } = this.runtime.store;
    const key = token && isLiveToken(db, this.runtime.clock, token) ? `token ${token}` : `address ${request.ip}`;
    const used = (window.counts.get(key) ?? 0) + 1;
    window.counts.set(key, used);
    reply.header('X-RateLimit-Limit', String(policy.limit));
    reply.header('X-RateLimit-Remaining', String(Math.max(0, policy.limit - used)));
    const resetMs = (second + 1) * 1000 - nowMs;
    reply.header('X-RateLimit-Reset', (resetMs / 1000).toFixed(3));
    if (used <= policy.limit) return true;
    // For generic HTTP clients, which know Retry-After (whole seconds) rather than X-RateLimit-Reset.
    reply.header('Retry-After', String(Math.ceil(resetMs / 1000)));
    return false;
  }
}
