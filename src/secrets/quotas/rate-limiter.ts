import type { Clock } from '../../core/clock.js';
import type { DbOrTx } from '../../store/store.js';
import { MountStorage } from '../storage/mount-storage.js';

/** A rate-limit quota as stored and read back (`interval`, `block_interval` in seconds). */
export interface RateLimitQuota {
  name: string;
  path: string;
  role: string;
  rate: number;
  interval: number;
  block_interval: number;
  inheritable: boolean;
}

export interface QuotaConfig {
  rate_limit_exempt_paths: string[];
  enable_rate_limit_audit_logging: boolean;
  enable_rate_limit_response_headers: boolean;
}

/** Every quota definition in one entry: requests read it once each. */
export interface QuotaState {
  config: QuotaConfig;
  rateLimits: Record<string, RateLimitQuota>;
}

/** Paths the real service never limits. */
const ALWAYS_EXEMPT = ['sys/health', 'sys/seal-status', 'sys/unseal', 'sys/generate-root/attempt', 'sys/generate-root/update'];

export const DEFAULT_CONFIG: QuotaConfig = {
  rate_limit_exempt_paths: [],
  enable_rate_limit_audit_logging: false,
  enable_rate_limit_response_headers: false,
};

/** What a request learns from the limiter: allowed or not, and the headers to send. */
export interface QuotaVerdict {
  allowed: boolean;
  headers: Record<string, string>;
}

interface Window {
  start: number;
  used: number;
  blockedUntil: number;
}

/** Go's RFC 1123 time as the real service writes `X-Ratelimit-Reset`. */
const rfc1123 = (ms: number) => new Date(ms).toUTCString().replace('GMT', 'UTC');

/**
 * Rate-limit quotas: per client address, `rate` requests per `interval` in fixed windows read
 * from the injectable clock (so advancing the clock opens the next window); past the limit a
 * client with a `block_interval` stays refused that long. The most specific quota applies:
 * a path prefix over a mount over the global one.
 */
export class RateLimiter {
  private readonly windows = new Map<string, Window>();
  private readonly storage: (db: DbOrTx) => MountStorage;

  constructor(
    private readonly db: DbOrTx,
    private readonly clock: Clock,
  ) {
    this.storage = (handle) => new MountStorage(handle, 'builtin-quotas');
  }

  state(db: DbOrTx = this.db): QuotaState {
    return this.storage(db).get<QuotaState>('quotas') ?? { config: DEFAULT_CONFIG, rateLimits: {} };
  }

  save(state: QuotaState, db: DbOrTx = this.db): void {
    this.storage(db).put('quotas', state);
  }

  /** Counters of a changed or deleted quota start again. */
  forget(name: string): void {
    for (const key of this.windows.keys()) if (key.startsWith(`${name}\u0000`)) this.windows.delete(key);
  }

  /** The quota that governs `path`: the longest matching path, a mount-wide one, else the global one. */
  private governing(quotas: RateLimitQuota[], path: string): RateLimitQuota | undefined {
    let best: RateLimitQuota | undefined;
    for (const quota of quotas) {
      const prefix = quota.path;
      if (prefix !== '' && !path.startsWith(prefix) && !`${path}/`.startsWith(prefix)) continue;
      if (!best || prefix.length > best.path.length) best = quota;
    }
    return best;
  }

  check(path: string, clientAddress: string): QuotaVerdict | undefined {
    const state = this.state();
    const quotas = Object.values(state.rateLimits);
    if (quotas.length === 0) return undefined;
    const exempt = [...ALWAYS_EXEMPT, ...state.config.rate_limit_exempt_paths];
    if (exempt.some((prefix) => path === prefix.replace(/\/$/, '') || path.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`)))
      return undefined;
    const quota = this.governing(quotas, path);
    if (!quota) return undefined;
    const now = this.clock.nowMs();
    const intervalMs = quota.interval * 1000;
    const limit = Math.max(1, Math.floor(quota.rate));
    const key = `${quota.name}\u0000${clientAddress}`;
    let window = this.windows.get(key);
    if (!window || now >= window.start + intervalMs) {
      window = { start: now, used: 0, blockedUntil: window?.blockedUntil ?? 0 };
      this.windows.set(key, window);
    }
    const headersOn = state.config.enable_rate_limit_response_headers;
    const headers = (remaining: number, resetMs: number, blocked: boolean): Record<string, string> => {
      if (!headersOn) return {};
      const reset = rfc1123(resetMs);
      return {
        'X-Ratelimit-Limit': String(limit),
        'X-Ratelimit-Remaining': String(remaining),
        'X-Ratelimit-Reset': reset,
        ...(blocked ? { 'Retry-After': reset } : {}),
      };
    };
    if (now < window.blockedUntil) return { allowed: false, headers: headers(0, window.blockedUntil, true) };
    if (window.used >= limit) {
      if (quota.block_interval > 0) window.blockedUntil = now + quota.block_interval * 1000;
      const reset = Math.max(window.blockedUntil, window.start + intervalMs);
      return { allowed: false, headers: headers(0, reset, true) };
    }
    window.used += 1;
    return { allowed: true, headers: headers(limit - window.used, window.start + intervalMs, false) };
  }
}
