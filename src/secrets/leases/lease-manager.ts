import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../core/clock.js';
import { badRequest } from '../../core/errors.js';
import { base62 } from '../../core/ids.js';
import type { DueSource, RanWork, Scheduler } from '../../core/scheduler.js';
import type { DbOrTx } from '../../store/store.js';
import type { Backend, LeaseInfo, LeaseRecord, MountInfo } from '../framework/types.js';
import { MountStorage } from '../storage/mount-storage.js';
import { LeaseStore } from './lease-store.js';
import { cappedTtlWarning, effectiveTtls } from './ttl.js';

/**
 * Failed revocations are retried as the real service retries them: after attempt n the next one
 * comes 2^n × 10 s later, give or take half of that (so 10-30 s after the first failure), and the
 * sixth failure ends the retries: the lease becomes irrevocable (listed by `sys/leases?type=irrevocable`)
 * until a revocation by hand succeeds. A clock jump of any size therefore runs at most six attempts.
 */
export const MAX_REVOKE_ATTEMPTS = 6;
const RETRY_BASE_MS = 10_000;
/** The real service keeps this much of the last error on an irrevocable lease. */
const MAX_IRREVOCABLE_ERROR_LENGTH = 240;

/** The latest time a Date can hold: an irrevocable lease's due time. */
const NEVER = new Date(8.64e15);

/** The delay before the attempt after `attempts` failed ones; `random` is in [0, 1). */
export function retryDelayMs(attempts: number, random: number = Math.random()): number {
  const exp = 2 ** attempts * RETRY_BASE_MS;
  return Math.round(exp / 2 + random * exp);
}

export interface FailedRevocation {
  leaseId: string;
  error: string;
}

export interface CreateLeaseInput {
  mount: MountInfo;
  /** The request path relative to the mount (`creds/web`); the lease id starts with mount + path. */
  path: string;
  /** The token the lease belongs to (revoked with it); null for none. */
  tokenId: string | null;
  /** Seconds; 0 or absent means the mount's default. Also what a renewal without increment grants. */
  ttl?: number;
  /** Seconds; 0 or absent means the mount's maximum, which also caps it. */
  maxTtl?: number;
  renewable?: boolean;
  revokeData: Record<string, unknown>;
}

export interface LeaseDependencies {
  db: DbOrTx;
  clock: Clock;
  scheduler: Scheduler;
  log: FastifyBaseLogger;
  /** The engine that owns a lease, by type, for its revoke function. */
  backend(type: string): Backend | undefined;
}

/**
 * Leases: creation for engines, renewal, revocation (explicit, by prefix, with a token or a mount,
 * and on expiry through the scheduler). A revocation that fails stays in the table as `revoking`
 * with its next attempt due, so it is retried with backoff and survives restarts.
 */
export class LeaseManager {
  private readonly store: LeaseStore;

  constructor(private readonly deps: LeaseDependencies) {
    this.store = new LeaseStore(deps.db);
  }

  create(input: CreateLeaseInput): { lease: LeaseInfo; warnings: string[] } {
    const mountTtls = effectiveTtls(input.mount.config);
    const maxTtl = Math.min(input.maxTtl || mountTtls.maxTtl, mountTtls.maxTtl);
    const requested = input.ttl || mountTtls.defaultTtl;
    const warnings = requested > maxTtl ? [cappedTtlWarning(requested, maxTtl)] : [];
    const ttl = Math.min(requested, maxTtl);
    const now = this.deps.clock.nowMs();
    const path = `${input.mount.path}${input.path}`.replace(/\/+$/, '');
    const record: LeaseRecord = {
      id: `${path}/${base62(24)}`,
      mountUuid: input.mount.uuid,
      engineType: input.mount.type,
      path,
      tokenId: input.tokenId,
      issuedAt: new Date(now),
      expiresAt: new Date(now + ttl * 1000),
      lastRenewedAt: null,
      renewable: input.renewable ?? true,
      ttlSeconds: input.ttl || mountTtls.defaultTtl,
      maxTtlSeconds: maxTtl,
      revokeData: input.revokeData,
      state: 'active',
      dueAt: new Date(now + ttl * 1000),
      revokeAttempts: 0,
      lastError: null,
    };
    this.store.insert(record);
    this.deps.scheduler.poke();
    return { lease: { leaseId: record.id, durationSeconds: ttl, renewable: record.renewable }, warnings };
  }

  get(id: string): LeaseRecord | undefined {
    return this.store.get(id);
  }

  /** Seconds left before expiry (0 once expired). */
  remainingSeconds(lease: LeaseRecord): number {
    return Math.max(0, Math.floor((lease.expiresAt.getTime() - this.deps.clock.nowMs()) / 1000));
  }

  isRenewable(lease: LeaseRecord): boolean {
    return lease.renewable && lease.state === 'active' && lease.expiresAt.getTime() > this.deps.clock.nowMs();
  }

  /** Extends a lease by `increment` seconds (or its default TTL), never past issue time + max TTL. */
  async renew(id: string, increment: number | undefined): Promise<{ lease: LeaseInfo; warnings: string[] }> {
    if (id.startsWith('auth/')) throw badRequest('tokens cannot be renewed through this endpoint');
    const lease = this.store.get(id);
    if (!lease) throw badRequest('lease not found');
    const now = this.deps.clock.nowMs();
    if (lease.state === 'irrevocable') throw badRequest('lease is expired and has failed previous revocation attempts');
    if (lease.state !== 'active' || lease.expiresAt.getTime() <= now) throw badRequest('lease expired');
    if (!lease.renewable) throw badRequest('lease is not renewable');
    const remainingMax = Math.floor((lease.issuedAt.getTime() + lease.maxTtlSeconds * 1000 - now) / 1000);
    if (remainingMax <= 0) throw badRequest('past the max TTL, cannot renew');

    const requested = increment && increment > 0 ? increment : lease.ttlSeconds;
    const warnings = requested > remainingMax ? [cappedTtlWarning(requested, remainingMax)] : [];
    const ttl = Math.min(requested, remainingMax);
    const expiresAt = new Date(now + ttl * 1000);
    const backend = this.deps.backend(lease.engineType);
    if (backend?.renewLease) {
      try {
        await backend.renewLease(lease, new MountStorage(this.deps.db, lease.mountUuid), expiresAt);
      } catch (error) {
        throw badRequest((error as Error).message);
      }
    }
    this.store.update(id, { expiresAt, dueAt: expiresAt, lastRenewedAt: new Date(now) });
    this.deps.scheduler.poke();
    return { lease: { leaseId: id, durationSeconds: ttl, renewable: true }, warnings };
  }

  /**
   * Revokes now. Unknown ids are fine (204, as the real service answers). When the engine fails,
   * the lease is kept for retries and the caller gets the real service's 400.
   */
  async revoke(id: string): Promise<void> {
    const lease = this.store.get(id);
    if (!lease) return;
    const { error } = await this.attempt(lease);
    if (error !== undefined) throw badRequest(`failed to revoke entry: ${error}`);
  }

  /**
   * Revokes every lease whose id starts with `prefix` (a `/` is added to a bare segment, unless it
   * names one lease exactly). `force` drops a lease whose engine fails to revoke it instead of
   * keeping it for retries, as the real `revoke-force` does for recovery.
   */
  async revokePrefix(prefix: string, force = false): Promise<void> {
    const exact = prefix !== '' && !prefix.endsWith('/') && this.store.get(prefix) !== undefined;
    const normalized = exact || prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`;
    const ids = exact ? [prefix] : this.store.idsWithPrefix(normalized);
    const failed = await this.revokeAll(ids);
    if (!force) {
      if (failed[0]) throw badRequest(`failed to revoke prefix: ${failed[0].error}`);
      return;
    }
    for (const { leaseId, error } of failed) {
      this.deps.log.warn({ leaseId, error }, 'revocation from the backend failed, but in force mode so ignoring');
      this.store.delete(leaseId);
    }
  }

  /** A revoked token's leases; failures stay scheduled for retry (the token is gone regardless). */
  async revokeForTokens(tokenIds: string[]): Promise<FailedRevocation[]> {
    return this.revokeAll(this.store.idsOfTokens(tokenIds));
  }

  /** Before a mount is disabled; returns what failed so the caller can keep the mount. */
  async revokeForMount(mountUuid: string): Promise<FailedRevocation[]> {
    return this.revokeAll(this.store.idsOfMount(mountUuid));
  }

  /** Keeps leases attached to a mount that moved. */
  moveMount(mountUuid: string, from: string, to: string): void {
    this.store.renamePrefix(mountUuid, from, to);
  }

  /** Lease ids under `prefix` as a listing: direct children, folders suffixed `/`. */
  list(prefix: string): string[] {
    const children = new Set<string>();
    for (const id of this.store.idsWithPrefix(prefix)) {
      const rest = id.slice(prefix.length);
      const slash = rest.indexOf('/');
      children.add(slash === -1 ? rest : rest.slice(0, slash + 1));
    }
    return [...children].filter((child) => child !== '').sort();
  }

  private async revokeAll(ids: string[]): Promise<FailedRevocation[]> {
    const failed: FailedRevocation[] = [];
    for (const id of ids) {
      const lease = this.store.get(id);
      if (!lease) continue;
      const { error } = await this.attempt(lease);
      if (error !== undefined) failed.push({ leaseId: id, error });
    }
    return failed;
  }

  /** Irrevocable leases (out of retries), oldest expiry first, as `sys/leases?type=irrevocable` lists them. */
  irrevocable(): LeaseRecord[] {
    return this.store.irrevocable();
  }

  /**
   * One revocation attempt: the engine's revoke, then the row goes. On failure the next try is
   * scheduled, or after the last one the lease is marked irrevocable; a failed attempt by hand
   * on an irrevocable lease leaves it as it was.
   */
  private async attempt(lease: LeaseRecord): Promise<{ work: RanWork; error?: string }> {
    const at = new Date(this.deps.clock.nowMs()).toISOString();
    const attempts = lease.revokeAttempts + 1;
    try {
      const backend = this.deps.backend(lease.engineType);
      await backend?.revokeLease?.(lease, new MountStorage(this.deps.db, lease.mountUuid));
    } catch (error) {
      const message = (error as Error).message || String(error);
      const failed = (detail: string): { work: RanWork; error: string } => ({
        work: { at, kind: 'lease-revocation', subject: lease.id, outcome: 'failed', detail },
        error: message,
      });
      if (lease.state === 'irrevocable') return failed(`irrevocable; attempt by hand failed: ${message}`);
      if (attempts >= MAX_REVOKE_ATTEMPTS) {
        const lastError = `out of retries: ${message}`.slice(0, MAX_IRREVOCABLE_ERROR_LENGTH);
        // No timed work is left: the due time moves past every other one, so the scheduler never scans it.
        this.store.update(lease.id, { state: 'irrevocable', revokeAttempts: attempts, lastError, dueAt: NEVER });
        this.deps.log.error({ leaseId: lease.id, attempts, error: message }, 'lease revocation out of retries; the lease is irrevocable');
        return failed(`attempt ${attempts}: ${message}; out of retries, the lease is irrevocable`);
      }
      const next = new Date(this.deps.clock.nowMs() + retryDelayMs(attempts));
      this.store.update(lease.id, { state: 'revoking', revokeAttempts: attempts, dueAt: next, lastError: message });
      this.deps.log.warn({ leaseId: lease.id, attempts, error: message }, 'lease revocation failed; will retry');
      this.deps.scheduler.poke();
      return failed(`attempt ${attempts}: ${message}; next attempt at ${next.toISOString()}`);
    }
    this.store.delete(lease.id);
    return {
      work: {
        at,
        kind: 'lease-revocation',
        subject: lease.id,
        outcome: 'done',
        detail: attempts > 1 ? `revoked on attempt ${attempts}` : 'revoked',
      },
    };
  }

  /** Expired leases and pending retries, for the scheduler. */
  dueSource(): DueSource {
    return {
      name: 'leases',
      next: () => {
        const lease = this.store.earliest();
        if (!lease) return undefined;
        return {
          at: lease.dueAt.getTime(),
          run: async () => {
            const current = this.store.get(lease.id);
            if (!current)
              return {
                at: lease.dueAt.toISOString(),
                kind: 'lease-revocation',
                subject: lease.id,
                outcome: 'done',
                detail: 'already gone',
              };
            // Renewed since it was picked: nothing is due any more.
            if (current.dueAt.getTime() > this.deps.clock.nowMs()) {
              return {
                at: lease.dueAt.toISOString(),
                kind: 'lease-revocation',
                subject: lease.id,
                outcome: 'done',
                detail: 'no longer due',
              };
            }
            return (await this.attempt(current)).work;
          },
        };
      },
    };
  }
}
