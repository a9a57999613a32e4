import { eq } from 'drizzle-orm';
import type { Clock } from '../../core/clock.js';
import { base62 } from '../../core/ids.js';
import type { DbOrTx } from '../../store/store.js';
import { secretTokens } from '../../store/tables.js';

export type TokenEntry = typeof secretTokens.$inferSelect;

export class TokenStore {
  constructor(
    private readonly db: DbOrTx,
    private readonly clock: Clock,
  ) {}

  /** The live token with this value, or undefined when unknown or expired. */
  lookup(id: string | undefined): TokenEntry | undefined {
    if (!id) return undefined;
    const token = this.db.select().from(secretTokens).where(eq(secretTokens.id, id)).get();
    if (!token) return undefined;
    if (token.expiresAt && token.expiresAt.getTime() <= this.clock.nowMs()) return undefined;
    return token;
  }

  /** Ensures the configured root token exists (idempotent: the seed runs at every start). */
  ensureRoot(id: string): TokenEntry {
    const existing = this.db.select().from(secretTokens).where(eq(secretTokens.id, id)).get();
    if (existing) return existing;
    const entry: TokenEntry = {
      id,
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
    };
    this.db.insert(secretTokens).values(entry).run();
    return entry;
  }

  /** Seconds until expiry (0 for tokens that never expire). */
  remainingSeconds(token: TokenEntry): number {
    if (!token.expiresAt) return 0;
    return Math.max(0, Math.floor((token.expiresAt.getTime() - this.clock.nowMs()) / 1000));
  }
}
