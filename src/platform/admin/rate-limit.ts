import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { ApiError } from '../../core/errors.js';
import type { Runtime } from '../../runtime.js';
import type { DbOrTx } from '../../store/store.js';
import { bearerToken, isLiveToken } from '../auth/authenticate.js';
import { sendError } from '../jsonapi/errors.js';
import { defaults } from './fields.js';
import { findSettings } from './repo.js';

/** What the general settings say about limiting, as the limiter reads it on every request. */
export interface LimitPolicy {
  enabled: boolean;
  /** Requests per second per client. */
  limit: number;
}

/**
 * The policy is read from the store once and kept until the general settings change (a PATCH,
 * a reset), so the limiter costs a map lookup per request, not a query.
 */
const policies = new WeakMap<DbOrTx, LimitPolicy>();

export function limitPolicy(db: DbOrTx): LimitPolicy {
  let policy = policies.get(db);
  if (!policy) {
    const general = { ...defaults('general'), ...findSettings(db, 'general') };
    policy = { enabled: general['api-rate-limiting-enabled'] === true, limit: general['api-rate-limit'] as number };
    policies.set(db, policy);
  }
  return policy;
}

/** Called whenever the general settings are written or the store is reset: the next request reads them again. */
export function forgetLimitPolicy(db: DbOrTx): void {
  policies.delete(db);
}

/** Fixed one-second windows: every client's count for the current second of the injectable clock. */
class Limiter {
  private window = Number.NaN;
  private readonly counts = new Map<string, number>();

  constructor(private readonly runtime: Runtime) {}

  /** Every client starts a fresh window (after a reset or a snapshot restore). */
  clear(): void {
    this.counts.clear();
    this.window = Number.NaN;
  }

  check(request: FastifyRequest, reply: FastifyReply): boolean {
    const policy = limitPolicy(this.runtime.store.db);
    if (!policy.enabled) return true;
    const nowMs = this.runtime.clock.nowMs();
    const window = Math.floor(nowMs / 1000);
    if (window !== this.window) {
      // Only the current second matters, so the map never holds more than one second's clients.
      this.counts.clear();
      this.window = window;
    }
    // Per token when it is a live one (its text is only a map key, never logged), else per address:
    // a made-up token per request must not buy a fresh budget, as it does not on the real service.
    const token = bearerToken(request.headers.authorization);
    const key = token && isLiveToken(this.runtime.store.db, this.runtime.clock, token) ? `token ${token}` : `address ${request.ip}`;
    const used = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, used);
    reply.header('X-RateLimit-Limit', String(policy.limit));
    reply.header('X-RateLimit-Remaining', String(Math.max(0, policy.limit - used)));
    const resetMs = (window + 1) * 1000 - nowMs;
    reply.header('X-RateLimit-Reset', (resetMs / 1000).toFixed(3));
    if (used <= policy.limit) return true;
    // For generic HTTP clients, which know Retry-After (whole seconds) rather than X-RateLimit-Reset.
    reply.header('Retry-After', String(Math.ceil(resetMs / 1000)));
    return false;
  }
}

const limiters = new WeakMap<Runtime, Limiter>();

/** Called when the store is reset or restored: counts from the world before do not carry over. */
export function forgetRateLimitWindows(runtime: Runtime): void {
  limiters.get(runtime)?.clear();
}

const TOO_MANY = new ApiError(429, 'API rate limit exceeded; retry after the number of seconds in X-RateLimit-Reset', {
  title: 'too many requests',
});

/**
 * The `onRequest` hook that applies the administrator's API rate limit. Every tree the limit
 * covers (`/api/v2`, the registry protocol) adds it with `app.addHook('onRequest', rateLimitHook(runtime))`;
 * they share one count per client, so a client's budget is the same whichever tree it calls.
 * Register it before authentication, so refused requests cost nothing more. The control plane
 * and the secrets API never add it.
 */
export function rateLimitHook(runtime: Runtime) {
  let limiter = limiters.get(runtime);
  if (!limiter) {
    limiter = new Limiter(runtime);
    limiters.set(runtime, limiter);
  }
  const shared = limiter;
  return function rateLimit(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
    if (shared.check(request, reply)) return done();
    sendError(reply, TOO_MANY);
  };
}
