import { eq, sql } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import { boundedMemo } from '../../core/bounded-memo.js';
import { sha256Hex } from '../../core/crypto.js';
import { clientToken } from '../../secrets/http/request.js';
import { tokenRowCache } from '../../secrets/tokens/token-row-cache.js';
import { presentedKey } from '../../secrets/tokens/token-store.js';
import { prepared } from '../../store/prepared.js';
import { StoreDerived } from '../../store/generation.js';
import { sqliteOf, type Db } from '../../store/store.js';
import { platformTokens, secretTokens } from '../../store/tables.js';

const accessorByHash = prepared((db) =>
  db
    .select({ accessor: secretTokens.accessor })
    .from(secretTokens)
    .where(eq(secretTokens.id, sql.placeholder('id')))
    .prepare(),
);
const platformIdByHash = prepared((db) =>
  db
    .select({ id: platformTokens.id })
    .from(platformTokens)
    .where(eq(platformTokens.tokenHash, sql.placeholder('hash')))
    .prepare(),
);

/** Tokens resolved lately (by hash, never by value); small, and emptied when the store's content is replaced. */
const MAX_REMEMBERED = 1024;

/** The stored hash of a platform token clients present: they send the same few on every request. */
const platformTokenHash = boundedMemo(MAX_REMEMBERED, sha256Hex);

/**
 * Who made a request, as the journal and fault rules name them: a secrets token's accessor, or a
 * platform token's id (`at-…`). Both are safe to show; the token itself never is. Answers are
 * remembered by the token's hash, so naming the caller costs a hash and a map lookup per request.
 */
export class Subjects {
  /** After a reset or a restore the tokens may be others: the store generation starts a new map. */
  private readonly remembered: StoreDerived<Map<string, string>>;

  /**
   * The last caller found, by the token headers as sent: a client sends the same ones request after
   * request, and comparing them costs less than reading the token out of them, hashing it,
   * building the key and looking it up. Only good for the map it was found in (the store's content
   * may have been replaced since).
   */
  private last: {
    known: Map<string, string>;
    vault: unknown;
    store: unknown;
    authorization: unknown;
    secrets: boolean;
    subject: string;
  } | null = null;

  constructor(private readonly db: Db) {
    this.remembered = new StoreDerived(sqliteOf(db), () => new Map<string, string>());
  }

  of(request: FastifyRequest, path: string): string | null {
    const { headers } = request;
    const vault = headers['x-vault-token'];
    const store = headers['x-store-token'];
    const authorization = headers.authorization;
    const secrets = path === '/v1' || path.startsWith('/v1/');
    const known = this.remembered.get();
    const last = this.last;
    if (
      last !== null &&
      last.known === known &&
      last.secrets === secrets &&
      last.vault === vault &&
      last.store === store &&
      last.authorization === authorization
    )
      return last.subject;
    const token = clientToken(request);
    if (token === undefined) return null;
    // A secrets token's hash is the token store's, which it already remembers for the request's own
    // lookup; a platform token's is remembered here the same way (in memory only), so a journaled
    // request does not hash its token a second time.
    const hash = secrets ? presentedKey(token) : platformTokenHash(token);
    const key = secrets ? `s${hash}` : `p${hash}`;
    let subject: string | null | undefined = known.get(key);
    if (subject === undefined) {
      // A token the token store keeps (a wrapping token just made, presented once to unwrap it)
      // names its accessor without a statement; the cache is as true as the table (token-row-cache.ts).
      subject = secrets
        ? (tokenRowCache(sqliteOf(this.db)).peek(hash)?.accessor ?? accessorByHash(this.db).get({ id: hash })?.accessor ?? null)
        : (platformIdByHash(this.db).get({ hash })?.id ?? null);
      // An unknown token may be created later, so only found ones are remembered.
      if (subject !== null) {
        if (known.size >= MAX_REMEMBERED) known.clear();
        known.set(key, subject);
      }
    }
    if (subject !== null) this.last = { known, vault, store, authorization, secrets, subject };
    return subject;
  }
}
