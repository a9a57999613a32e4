import { createHash, createPrivateKey, createPublicKey, generateKeyPair, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { unprocessable } from '../../core/errors.js';
import type { DueItem, DueSource, RanWork } from '../../core/scheduler.js';
import type { Runtime } from '../../runtime.js';
import { StoreDerived } from '../../store/generation.js';
import type { DbOrTx } from '../../store/store.js';
import * as repo from '../admin-settings/repo.js';

const DAY_MS = 86_400_000;
/** The spec's limits: automatic rotation every 90 days, trimming 30 days after the last rotation. */
export const ROTATION_MS = 90 * DAY_MS;
export const TRIM_MS = 30 * DAY_MS;

const TIMERS = 'oidc';

/** When the next automatic rotation and trim fall due (epoch ms); null when nothing is pending. */
interface Timers {
  nextRotationAt: number | null;
  nextTrimAt: number | null;
}

const generate = promisify(generateKeyPair);

/** A fresh RSA key with its RFC 7638 thumbprint as `kid`. Runs before any transaction opens. */
async function newKey(at: Date): Promise<repo.SigningKeyRow> {
  const { privateKey } = await generate('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
  const thumbprint = createHash('sha256')
    .update(JSON.stringify({ e: jwk.e, kty: jwk.kty, n: jwk.n }))
    .digest('base64url');
  return { kid: thumbprint, privateKeyPem: privateKey, publicJwk: { kty: jwk.kty, n: jwk.n, e: jwk.e }, current: true, createdAt: at };
}

function readTimers(db: DbOrTx): Timers {
  const stored = repo.findSettings(db, TIMERS) as Partial<Timers> | undefined;
  return { nextRotationAt: stored?.nextRotationAt ?? null, nextTrimAt: stored?.nextTrimAt ?? null };
}

/**
 * The signing keys for dynamic provider credentials: a set published at `/.well-known/jwks`, one
 * of them current. The set starts with one key the first time anyone asks; rotation and trimming
 * happen on request or on the scheduler, which `POST /_emulator/clock` drives. One per server,
 * made in the door (services.ts), which registers it with the scheduler.
 */
export class SigningKeys implements DueSource {
  readonly name = 'signing-keys';
  /**
   * The published keys as last read: every run phase with dynamic credentials signs with the
   * current one, and reading them means unsealing each private half. Only this class writes them
   * (and drops this after each write); a reset or restore moves the store generation.
   */
  private readonly keys: StoreDerived<repo.SigningKeyRow[]>;
  /** Private halves parsed once per key (by `kid`, the public key's thumbprint), not once per signature. */
  private readonly privateKeys: StoreDerived<Map<string, KeyObject>>;

  constructor(private readonly runtime: Runtime) {
    this.keys = new StoreDerived(runtime.store.sqlite, () => repo.listSigningKeys(this.db));
    this.privateKeys = new StoreDerived(runtime.store.sqlite, () => new Map<string, KeyObject>());
  }

  private get db() {
    return this.runtime.store.db;
  }

  /** The published keys, creating the first one when there is none yet. */
  async published(): Promise<readonly repo.SigningKeyRow[]> {
    const keys = this.keys.get();
    if (keys.length > 0) return keys;
    const key = await newKey(this.runtime.clock.now());
    this.db.transaction((tx) => {
      // Another request may have created the first key while this one generated its own.
      if (repo.listSigningKeys(tx).length > 0) return;
      repo.addCurrentSigningKey(tx, key);
      repo.saveSettings(tx, TIMERS, { nextRotationAt: key.createdAt.getTime() + ROTATION_MS, nextTrimAt: null }, key.createdAt);
    });
    this.keys.drop();
    this.runtime.scheduler.poke();
    return this.keys.get();
  }

  /** The private half of a published key, ready to sign with; a half that does not open throws, as signing with it would. */
  privateKeyOf(key: repo.SigningKeyRow): KeyObject {
    const parsed = this.privateKeys.get();
    let privateKey = parsed.get(key.kid);
    if (privateKey === undefined) {
      privateKey = createPrivateKey(key.privateKeyPem);
      parsed.set(key.kid, privateKey);
    }
    return privateKey;
  }

  /**
   * Adds a new current key; the old ones stay published until trimmed. The rotation timer starts
   * again; a trim already pending keeps its time (a manual rotation never moves it), and one is
   * scheduled if none was.
   */
  async rotate(automatic = false): Promise<string> {
    await this.published();
    const key = await newKey(this.runtime.clock.now());
    const at = key.createdAt.getTime();
    this.db.transaction((tx) => {
      const timers = readTimers(tx);
      repo.addCurrentSigningKey(tx, key);
      const nextTrimAt = automatic || timers.nextTrimAt === null ? at + TRIM_MS : timers.nextTrimAt;
      repo.saveSettings(tx, TIMERS, { nextRotationAt: at + ROTATION_MS, nextTrimAt }, key.createdAt);
    });
    this.keys.drop();
    this.runtime.scheduler.poke();
    return key.kid;
  }

  /** Removes every key but the current one; 422 when there is nothing to remove. The next rotation keeps its time. */
  trim(automatic = false): number {
    const removed = this.db.transaction((tx) => {
      const count = repo.trimSigningKeys(tx);
      if (count === 0 && !automatic) return 0;
      repo.saveSettings(tx, TIMERS, { ...readTimers(tx), nextTrimAt: null }, this.runtime.clock.now());
      return count;
    });
    this.keys.drop();
    this.privateKeys.drop();
    if (removed === 0 && !automatic) throw unprocessable('there are no old signing keys to trim; rotate first');
    this.runtime.scheduler.poke();
    return removed;
  }

  /** The scheduler's view: the earlier of the next automatic rotation and trim. */
  next(): DueItem | undefined {
    const { nextRotationAt, nextTrimAt } = readTimers(this.db);
    const rotationFirst = nextRotationAt !== null && (nextTrimAt === null || nextRotationAt <= nextTrimAt);
    if (rotationFirst) {
      const at = nextRotationAt;
      return {
        at,
        run: async (): Promise<RanWork> => ({
          at: new Date(at).toISOString(),
          kind: 'signing-key-rotation',
          subject: await this.rotate(true),
          outcome: 'done',
        }),
      };
    }
    if (nextTrimAt !== null) {
      const at = nextTrimAt;
      return {
        at,
        run: async (): Promise<RanWork> => ({
          at: new Date(at).toISOString(),
          kind: 'signing-key-trim',
          subject: `${this.trim(true)} old keys`,
          outcome: 'done',
        }),
      };
    }
    return undefined;
  }
}

/** The JWK set document: every published key, marked for signatures with RS256. */
export function jwksDocument(keys: readonly repo.SigningKeyRow[]): { keys: Record<string, unknown>[] } {
  return { keys: keys.map((key) => ({ ...key.publicJwk, kid: key.kid, use: 'sig', alg: 'RS256' })) };
}
