import { asc, eq, isNotNull, sql } from 'drizzle-orm';
import { inList } from '../../store/sql-lists.js';
import type { Clock } from '../../core/clock.js';
import { sha256Hex } from '../../core/crypto.js';
import { base62 } from '../../core/ids.js';
import { sqliteOf, type DbOrTx } from '../../store/store.js';
import { secretTokens } from '../../store/tables.js';
import { prepared } from '../../store/prepared.js';
import { perConnection } from '../../store/per-connection.js';
import { tokenRowCache, type TokenRowCache } from './token-row-cache.js';

/**
 * A token row. The table's `id` is the SHA-256 of the token value, so a copy of the store gives
 * away no usable token; `secret` is the value itself, known only when the caller just presented
 * or created it (lookups by accessor or by parent never know it).
 */
export type TokenEntry = Omit<typeof secretTokens.$inferSelect, 'entityId'> & {
  secret?: string;
  /** The identity store's entity (absent or null: none); optional so tokens made without one need not say so. */
  entityId?: string | null;
};

/** The stored key of a token value. */
export const tokenKey = (secret: string): string => sha256Hex(secret);

/** Token values whose stored key was computed lately; past this many the memo starts again. */
const KEY_MEMO_LIMIT = 1024;
const keysOfPresented = new Map<string, string>();

/**
 * The stored key of a token a request presents: clients send the same few tokens on every
 * request, so the hash is remembered (in memory only, as the token's own row is) instead of
 * computed each time.
 */
export function presentedKey(secret: string): string {
  let key = keysOfPresented.get(secret);
  if (key === undefined) {
    key = tokenKey(secret);
    rememberKey(secret, key);
  }
  return key;
}

function rememberKey(secret: string, key: string): void {
  if (keysOfPresented.size >= KEY_MEMO_LIMIT) keysOfPresented.clear();
  keysOfPresented.set(secret, key);
}

/** `num_uses` marker for a token whose last use was taken; it is revoked right after that request. */
export const USES_EXHAUSTED = -1;

/** The scheduler asks for this after every change that adds timed work. */
const firstToExpire = prepared((db) =>
  db.select().from(secretTokens).where(isNotNull(secretTokens.expiresAt)).orderBy(asc(secretTokens.expiresAt)).limit(1).prepare(),
);
/** Every authenticated request looks its token up, so this one statement is built once. */
const tokenById = prepared((db) =>
  db
    .select()
    .from(secretTokens)
    .where(eq(secretTokens.id, sql.placeholder('id')))
    .prepare(),
);

/** The token table's columns in the order `insertRow` takes their values. */
const INSERT_COLUMNS = [
  'id',
  'accessor',
  'parent_id',
  'policies',
  'display_name',
  'meta',
  'path',
  'num_uses',
  'orphan',
  'renewable',
  'ttl_seconds',
  'explicit_max_ttl_seconds',
  'created_at',
  'expires_at',
  'last_renewal_at',
  'period_seconds',
  'max_ttl_seconds',
  'bound_cidrs',
  'entity_id',
];

/**
 * Every token creation, login and wrap inserts a row: SQLite's own statement, prepared once per
 * connection, given every value already in the store's form (drizzle's prepared insert mapped all
 * nineteen values through their columns again on each run, a fifth of the insert's CPU).
 */
const insertRow = perConnection((sqlite) =>
  sqlite.prepare(`INSERT INTO secret_tokens (${INSERT_COLUMNS.join(', ')}) VALUES (${INSERT_COLUMNS.map(() => '?').join(', ')})`),
);
const jsonOrNull = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));
const timeOrNull = (value: Date | null) => value?.getTime() ?? null;

/** Revoking a token reads its children, deletes it and counts its uses: statements built once. */
const childrenOf = prepared((db) =>
  db
    .select()
    .from(secretTokens)
    .where(eq(secretTokens.parentId, sql.placeholder('id')))
    .prepare(),
);
/**
 * Deleting a token's row and counting its uses run on every revocation and every use of a
 * use-limited token (each unwrap takes one and revokes): SQLite's own statements, prepared once per
 * connection, as the insert is.
 */
const deleteRow = perConnection((sqlite) => sqlite.prepare<[string]>('DELETE FROM secret_tokens WHERE id = ?'));
const setUsesRow = perConnection((sqlite) => sqlite.prepare<[number, string]>('UPDATE secret_tokens SET num_uses = ? WHERE id = ?'));

/** Rows of the token table; the rules (creation, renewal, revocation) live in TokenService. */
export class TokenStore {
  /** Rows by id, so the lookup every request makes reads no statement; every write below forgets its row. */
  private readonly rows: TokenRowCache;

  constructor(
    private readonly db: DbOrTx,
    private readonly clock: Clock,
  ) {
    this.rows = tokenRowCache(sqliteOf(db));
  }

  /** The live token with this value, or undefined when unknown, expired or used up. */
  lookup(secret: string | undefined): TokenEntry | undefined {
    if (!secret) return undefined;
    const token = this.bySecret(secret);
    if (!token || !this.isLive(token)) return undefined;
    return token;
  }

  /** The row of this token value, live or not. */
  bySecret(secret: string): TokenEntry | undefined {
    const token = this.get(presentedKey(secret));
    return token && { ...token, secret };
  }

  isLive(token: TokenEntry): boolean {
    if (token.numUses === USES_EXHAUSTED) return false;
    return !token.expiresAt || token.expiresAt.getTime() > this.clock.nowMs();
  }

  /** The row by its stored key (the hash), live or not. */
  get(id: string): TokenEntry | undefined {
    return this.rows.get(id, () => tokenById(this.db).get({ id }));
  }

  byAccessor(accessor: string): TokenEntry | undefined {
    return this.db.select().from(secretTokens).where(eq(secretTokens.accessor, accessor)).get();
  }

  /** Tokens whose path starts with `prefix` (those a login under an auth mount issued). */
  withPathPrefix(prefix: string): TokenEntry[] {
    const pattern = `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    return this.db
      .select()
      .from(secretTokens)
      .where(sql`${secretTokens.path} LIKE ${pattern} ESCAPE '\\'`)
      .all()
      .filter((token) => token.path.startsWith(prefix));
  }

  accessors(): string[] {
    return this.db
      .select({ accessor: secretTokens.accessor })
      .from(secretTokens)
      .orderBy(asc(secretTokens.accessor))
      .all()
      .map((row) => row.accessor);
  }

  insert(entry: TokenEntry): void {
    const { secret: _secret, ...row } = entry;
    this.rows.forget(row.id);
    // As drizzle writes them: JSON columns as JSON text, booleans as 0 or 1, times as epoch milliseconds.
    insertRow(sqliteOf(this.db)).run(
      row.id,
      row.accessor,
      row.parentId ?? null,
      JSON.stringify(row.policies),
      row.displayName,
      jsonOrNull(row.meta),
      row.path,
      row.numUses,
      row.orphan ? 1 : 0,
      row.renewable ? 1 : 0,
      row.ttlSeconds,
      row.explicitMaxTtlSeconds,
      row.createdAt.getTime(),
      timeOrNull(row.expiresAt),
      timeOrNull(row.lastRenewalAt),
      row.periodSeconds,
      row.maxTtlSeconds,
      jsonOrNull(row.boundCidrs),
      row.entityId ?? null,
    );
  }

  /**
   * Keeps the row of `entry`, inserted and committed just now, as a lookup would read it back, so
   * the request that presents the token next reads no statement: an unwrap presents its wrapping
   * token right after the wrap made it (the select was about a twentieth of an unwrap's server CPU).
   * The entry is handed over: the kept row shares its policies, meta, CIDRs and dates, frozen (the
   * dates by convention, as every kept row's are), so the caller must not change them afterwards.
   */
  rememberInserted(entry: TokenEntry): void {
    const { secret, ...row } = entry;
    // The key was just computed from the value (`tokenKey`): the lookup need not hash it again.
    if (secret !== undefined) rememberKey(secret, row.id);
    row.entityId ??= null;
    this.rows.remember(row);
  }

  update(id: string, patch: Partial<TokenEntry>): void {
    this.rows.forget(id);
    this.db.update(secretTokens).set(patch).where(eq(secretTokens.id, id)).run();
  }

  /** Sets the uses left (`USES_EXHAUSTED` once the last is taken). */
  setUses(id: string, numUses: number): void {
    this.rows.forget(id);
    setUsesRow(sqliteOf(this.db)).run(numUses, id);
  }

  delete(ids: string[]): void {
    for (const id of ids) this.rows.forget(id);
    if (ids.length === 1) deleteRow(sqliteOf(this.db)).run(ids[0] as string);
    else if (ids.length > 0) this.db.delete(secretTokens).where(inList(secretTokens.id, ids)).run();
  }

  children(id: string): TokenEntry[] {
    return childrenOf(this.db).all({ id });
  }

  /** The token and everything created under it, parents before children. */
  tree(root: TokenEntry): TokenEntry[] {
    const all: TokenEntry[] = [root];
    for (let index = 0; index < all.length; index++) all.push(...this.children((all[index] as TokenEntry).id));
    return all;
  }

  /** The token that expires first. */
  nextExpiring(): TokenEntry | undefined {
    return firstToExpire(this.db).get();
  }

  /** Ensures the configured root token exists (idempotent: the seed runs at every start). */
  ensureRoot(secret: string): TokenEntry {
    const existing = this.bySecret(secret);
    if (existing) return existing;
    const entry: TokenEntry = {
      id: tokenKey(secret),
      secret,
      accessor: base62(24),
      parentId: null,
      policies: ['root'],
      displayName: 'root',
      meta: null,
      path: 'auth/token/root',
      numUses: 0,
      orphan: true,
      renewable: false,
      ttlSeconds: 0,
      explicitMaxTtlSeconds: 0,
      createdAt: this.clock.now(),
      expiresAt: null,
      lastRenewalAt: null,
      periodSeconds: 0,
      maxTtlSeconds: 0,
      boundCidrs: null,
    };
    this.insert(entry);
    return entry;
  }

  /** Seconds until expiry (0 for tokens that never expire). */
  remainingSeconds(token: TokenEntry): number {
    if (!token.expiresAt) return 0;
    return Math.max(0, Math.floor((token.expiresAt.getTime() - this.clock.nowMs()) / 1000));
  }
}
