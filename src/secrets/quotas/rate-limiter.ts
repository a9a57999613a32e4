import type { Clock } from '../../core/clock.js';
import { StoreDerived } from '../../store/generation.js';
import { sqliteOf, type DbOrTx } from '../../store/store.js';
import { MountStorage } from '../storage/mount-storage.js';

/**
 * A rate-limit quota as stored. `mount_path` (`kv/`, `auth/approle/`, empty for global) and
 * `path_suffix` (what follows the mount, possibly ending in `*`) are what requests match on;
 * `interval` and `block_interval` are seconds.
 */
export interface RateLimitQuota {
  name: string;
  mount_path: string;
  path_suffix: string;
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

/** What the limiter needs of a request: its path, the mount it falls in, the login role it names. */
export interface QuotaRequest {
  path: string;
  mountPath: string;
  /** The role a login body resolves to on an auth mount with role quotas; empty otherwise. */
  role: string;
  clientAddress: string;
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

/** One client's bucket under one quota: windows are counted from `start`, as the real limiter does. */
interface Bucket {
  start: number;
  tick: number;
  available: number;
  blockedAt?: number;
}

/** Whole seconds until `ms`, truncated as the real service prints them. */
const secondsUntil = (ms: number, now: number) => String(Math.trunc((ms - now) / 1000));

/** The quota that governs a request, most specific first: role, path suffix (exact, then `*` globs), mount, global. */
export function governingQuota(quotas: RateLimitQuota[], request: QuotaRequest): RateLimitQuota | undefined {
  const onMount = quotas.filter((quota) => quota.mount_path === request.mountPath);
  if (request.role !== '') {
    const byRole = onMount.find((quota) => quota.role === request.role && quota.path_suffix === '');
    if (byRole) return byRole;
  }
  const suffix = request.path.slice(request.mountPath.length).replace(/\/$/, '');
  const withSuffix = onMount.filter((quota) => quota.role === '' && quota.path_suffix !== '');
  const exact = withSuffix.find((quota) => quota.path_suffix === suffix);
  if (exact) return exact;
  // Longest glob first, as the real service trims one character at a time from the end.
  for (let end = suffix.length; end >= 0; end -= 1) {
    const glob = withSuffix.find((quota) => quota.path_suffix === `${suffix.slice(0, end)}*`);
    if (glob) return glob;
  }
  const mountWide = onMount.find((quota) => quota.role === '' && quota.path_suffix === '');
  if (mountWide && request.mountPath !== '') return mountWide;
  return quotas.find((quota) => quota.mount_path === '' && quota.path_suffix === '' && quota.role === '');
}

/**
 * Rate-limit quotas: per client address, `rate` requests per `interval`. Like the real limiter,
 * a client's bucket starts at its first request and refills whole at each interval boundary
 * counted from then (fixed windows, read from the injectable clock, so advancing the clock opens
 * the next one). Past the limit, a quota with `block_interval` refuses the client that long.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly storage: (db: DbOrTx) => MountStorage;
  /**
   * The stored state, read (and unsealed) once rather than on every request of the secrets API,
   * which all pass `check`; `save` drops it, and a reset or restore replaces it (store generation).
   */
  private readonly stored: StoreDerived<QuotaState>;

  constructor(
    private readonly db: DbOrTx,
    private readonly clock: Clock,
  ) {
    this.storage = (handle) => new MountStorage(handle, 'builtin-quotas');
    this.stored = new StoreDerived(sqliteOf(db), () => this.read(this.db));
  }

  /** The quotas and their settings; callers copy before changing them (the value is shared). */
  state(db: DbOrTx = this.db): QuotaState {
    return db === this.db ? this.stored.get() : this.read(db);
  }

  save(state: QuotaState, db: DbOrTx = this.db): void {
    this.stored.drop();
    this.storage(db).put('quotas', state);
  }

  private read(db: DbOrTx): QuotaState {
    return this.storage(db).get<QuotaState>('quotas') ?? { config: DEFAULT_CONFIG, rateLimits: {} };
  }

  /** Counters of a changed or deleted quota start again. */
  forget(name: string): void {
    for (const key of this.buckets.keys()) if (key.startsWith(`${name}\u0000`)) this.buckets.delete(key);
  }

  /** Whether some quota names a role on this mount: only then is a login body read for its role. */
  static hasRoleQuota(state: QuotaState, mountPath: string): boolean {
    return Object.values(state.rateLimits).some((quota) => quota.role !== '' && quota.mount_path === mountPath);
  }

  private exempt(config: QuotaConfig, path: string): boolean {
    return [...ALWAYS_EXEMPT, ...config.rate_limit_exempt_paths].some(
      (prefix) => path === prefix.replace(/\/$/, '') || path.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`),
    );
  }

  /**
   * The verdict on a request to `path`; `describe` (its mount and login role: lookups) runs only
   * when some quota exists and the path is not exempt, so a server without quotas pays one read.
   */
  check(path: string, describe: (state: QuotaState) => QuotaRequest): QuotaVerdict | undefined {
    const state = this.state();
    const quotas = Object.values(state.rateLimits);
    if (quotas.length === 0 || this.exempt(state.config, path)) return undefined;
    const request = describe(state);
    const quota = governingQuota(quotas, request);
    if (!quota) return undefined;
    const verdict = this.take(quota, request.clientAddress);
    return state.config.enable_rate_limit_response_headers ? verdict : { allowed: verdict.allowed, headers: {} };
  }

  private take(quota: RateLimitQuota, clientAddress: string): QuotaVerdict {
    const now = this.clock.nowMs();
    const intervalMs = (quota.interval || 1) * 1000;
    const blockMs = quota.block_interval * 1000;
    const limit = Math.round(quota.rate);
    const key = `${quota.name}\u0000${clientAddress}`;
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = { start: now, tick: 0, available: limit };
      this.buckets.set(key, bucket);
    }
    // A blocked client hears only when to come back.
    if (bucket.blockedAt !== undefined) {
      if (now - bucket.blockedAt < blockMs) {
        return { allowed: false, headers: { 'Retry-After': secondsUntil(bucket.blockedAt + blockMs, now) } };
      }
      bucket.blockedAt = undefined;
    }
    const tick = Math.floor((now - bucket.start) / intervalMs);
    if (tick > bucket.tick) {
      bucket.tick = tick;
      bucket.available = limit;
    }
    const reset = secondsUntil(bucket.start + (tick + 1) * intervalMs, now);
    const allowed = bucket.available > 0;
    if (allowed) bucket.available -= 1;
    const headers: Record<string, string> = {
      'X-Ratelimit-Limit': String(limit),
      'X-Ratelimit-Remaining': String(allowed ? bucket.available : 0),
      'X-Ratelimit-Reset': reset,
    };
    if (allowed) return { allowed, headers };
    if (blockMs > 0) {
      bucket.blockedAt = now;
      return { allowed, headers: { ...headers, 'Retry-After': secondsUntil(now + blockMs, now) } };
    }
    return { allowed, headers: { ...headers, 'Retry-After': reset } };
  }
}
