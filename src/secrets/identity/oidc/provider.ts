import { SecretsAtRest } from '../../../core/at-rest.js';
import type { Clock } from '../../../core/clock.js';
import { EarliestDue } from '../../../core/earliest-due.js';
import type { RanWork, Scheduler } from '../../../core/scheduler.js';
import { AT_REST_KEY, serverKey } from '../../../store/server-keys.js';
import type { Store } from '../../../store/store.js';
import type { MountStorage } from '../../storage/mount-storage.js';
import { newSigningKey, rotateKey, unexpired, type NamedKeyRecord, type OidcAlgorithm } from './keys.js';

/** Where the provider keeps its records in the identity mount's storage. */
export const OIDC_KEYS = { config: 'oidc_tokens/config', key: 'oidc_tokens/named_keys/', role: 'oidc_tokens/roles/' } as const;

export const DEFAULT_KEY = 'default';
const DAY = 24 * 60 * 60;

export interface OidcRole {
  name: string;
  key: string;
  template: string;
  /** Seconds. */
  ttl: number;
  clientId: string;
}

/**
 * The identity store as an OIDC provider: named keys (sealed private halves, rotation and
 * verification TTL on the injectable clock), roles, and the issuer. Handlers and the scheduler
 * share one instance, so a write drops the cached next due rotation.
 */
export class OidcProvider {
  readonly sealer: SecretsAtRest;
  readonly due: EarliestDue<string>;

  constructor(
    store: Store,
    readonly clock: Clock,
    readonly storage: MountStorage,
    scheduler: Pick<Scheduler, 'poke'>,
  ) {
    this.sealer = new SecretsAtRest(() => serverKey(store.sqlite, AT_REST_KEY));
    this.due = new EarliestDue<string>(scheduler, {
      name: 'identity-oidc-keys',
      findEarliest: () => {
        let best: { at: number; item: string } | null = null;
        for (const key of this.keys()) {
          const times = [key.nextRotation, ...key.ring.map((entry) => entry.expireAt ?? Infinity)];
          const at = Math.min(...times);
          if (!best || at < best.at) best = { at, item: key.name };
        }
        return best;
      },
      run: ({ at, item }) => Promise.resolve(this.runDue(at, item)),
    });
  }

  /** Rotates a key whose period has come and drops its public keys whose verification time has passed. */
  private runDue(at: number, name: string): RanWork {
    const work = { at: new Date(at).toISOString(), kind: 'identity-oidc-key', subject: name, outcome: 'done' as const };
    const key = this.key(name);
    if (!key) return { ...work, detail: 'key gone' };
    const now = this.clock.nowMs();
    let next = { ...key, ring: unexpired(key, now) };
    const rotated = next.nextRotation <= now;
    if (rotated) next = rotateKey(next, this.sealer, now);
    this.storage.put(OIDC_KEYS.key + name, next);
    return { ...work, detail: rotated ? 'rotated' : 'expired retired public keys' };
  }

  keys(): NamedKeyRecord[] {
    return this.storage
      .list(OIDC_KEYS.key)
      .map((name) => this.key(name))
      .filter((key) => key !== undefined);
  }

  key(name: string): NamedKeyRecord | undefined {
    return this.storage.get<NamedKeyRecord>(OIDC_KEYS.key + name);
  }

  putKey(key: NamedKeyRecord): void {
    this.storage.put(OIDC_KEYS.key + key.name, key);
    this.due.changed();
  }

  deleteKey(name: string): void {
    this.storage.delete(OIDC_KEYS.key + name);
    this.due.changed();
  }

  /** A new key record with a first signing key. */
  createKey(
    name: string,
    settings: { algorithm: OidcAlgorithm; rotationPeriod: number; verificationTtl: number; allowedClientIds: string[] },
  ) {
    const first = newSigningKey(settings.algorithm, this.sealer);
    return {
      name,
      ...settings,
      signingKid: first.ring.kid,
      signingKeySealed: first.sealed,
      ring: [first.ring],
      nextRotation: this.clock.nowMs() + settings.rotationPeriod * 1000,
    } satisfies NamedKeyRecord;
  }

  /** The `default` key every server has (RS256, daily rotation, any client), made on first need. */
  ensureDefaultKey(): void {
    if (this.key(DEFAULT_KEY)) return;
    this.putKey(this.createKey(DEFAULT_KEY, { algorithm: 'RS256', rotationPeriod: DAY, verificationTtl: DAY, allowedClientIds: ['*'] }));
  }

  roles(): string[] {
    return this.storage.list(OIDC_KEYS.role);
  }

  role(name: string): OidcRole | undefined {
    return this.storage.get<OidcRole>(OIDC_KEYS.role + name);
  }

  configuredIssuer(): string {
    return this.storage.get<{ issuer: string }>(OIDC_KEYS.config)?.issuer ?? '';
  }

  /** The `iss` of tokens: the configured issuer, else the address the request came to, plus the provider's path. */
  issuer(origin: string | undefined): string {
    const base = this.configuredIssuer() || origin || 'http://127.0.0.1:8200';
    return `${base}/v1/identity/oidc`;
  }

  /** Every public key still published, across all named keys. */
  publishedKeys(): Record<string, unknown>[] {
    const now = this.clock.nowMs();
    return this.keys().flatMap((key) => unexpired(key, now).map((entry) => ({ ...entry.jwk })));
  }
}
