import type Database from 'better-sqlite3';
import { SEALED_MARK, SecretsAtRest } from '../core/at-rest.js';
import { boundedMemo } from '../core/bounded-memo.js';
import { StoreDerived } from './generation.js';
import { perConnection } from './per-connection.js';
import { AT_REST_KEY, serverKey } from './server-keys.js';

/**
 * The one `SecretsAtRest` of a store connection. Its key is read once per store generation
 * (`serverKey`) and its sealing keys derived once per key, so sealed reads cost no derivation.
 */
export const storeAtRest = perConnection((sqlite) => new SecretsAtRest(() => serverKey(sqlite, AT_REST_KEY)));

/**
 * Mount storage is sealed as a whole, as the real service's barrier does: every entry's JSON is
 * kept as one marked sealed string, so no engine's secrets (a database connection's root
 * password, transit and PKI key material, an auth method's client secret, KV data) are readable
 * in a row, a dump or a copied store file. Engines never see the sealed form.
 */
export class EntryBarrier {
  /** Values opened for readers that never change them, by their sealed text, per store generation (see `openShared`). */
  private readonly shared: StoreDerived<(stored: string) => unknown>;

  constructor(
    private readonly atRest: SecretsAtRest,
    private readonly sqlite: Database.Database,
  ) {
    this.shared = new StoreDerived(sqlite, () => boundedMemo(SHARED_LIMIT, (stored) => deepFreeze(this.open(stored))));
  }

  seal(value: unknown): unknown {
    const text = JSON.stringify(value);
    // Not JSON at all (undefined): stored as given, so the store refuses it as it always did.
    return text === undefined ? value : this.atRest.sealMarked(text);
  }

  /**
   * The entry's value. A value that is not in the sealed form was written before sealing (a store
   * or snapshot from an older version) and reads as it is; a sealed value that does not open
   * (altered, or sealed under another store's key) reads as absent.
   */
  open(stored: unknown): unknown {
    if (typeof stored !== 'string' || !stored.startsWith(SEALED_MARK)) return stored;
    const text = this.atRest.openMarked(stored);
    return text === null ? undefined : (JSON.parse(text) as unknown);
  }

  /**
   * `open`, for a reader that only reads: the value is frozen and shared by every such reader of
   * the same sealed text, so a hot entry (a transit key, read by every encryption) is decrypted and
   * parsed once instead of on each request. A write seals with a fresh IV, so changed content is
   * new text and can never meet an old value. Kept per store generation (a reset or restore may
   * bring another server key), and neither used nor filled inside a transaction, whose key may be
   * one it made and rolls back (server-keys.ts).
   */
  openShared(stored: unknown): unknown {
    if (typeof stored !== 'string' || !stored.startsWith(SEALED_MARK) || this.sqlite.inTransaction) return this.open(stored);
    return this.shared.get()(stored);
  }
}

/** Entries kept opened by `openShared`; the oldest goes first. */
const SHARED_LIMIT = 256;

/** Frozen all the way down, so a reader that changes a shared value fails at once (strict mode) instead of changing it for everyone. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) deepFreeze(member);
  }
  return value;
}

/** The one barrier of a connection. */
export const entryBarrier = perConnection((sqlite) => new EntryBarrier(storeAtRest(sqlite), sqlite));
