import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * Leases on secrets engines hand out (database credentials, certificates). A lease is due for the
 * scheduler at `due_at`: its expiry while active, its next revocation attempt once revoking. A
 * failed revocation stays here with its attempt count, so a restart retries it.
 */
export const secretLeases = sqliteTable(
  'secret_leases',
  {
    /** `<request path>/<24 base62>`, as clients see it. */
    id: text('id').primaryKey(),
    mountUuid: text('mount_uuid').notNull(),
    /** The engine type, which owns the revoke function (kept even if the mount is gone). */
    engineType: text('engine_type').notNull(),
    /** The request path that created the lease, mount path included. */
    path: text('path').notNull(),
    /** The token the lease belongs to; revoking the token revokes the lease. Null for none. */
    tokenId: text('token_id'),
    issuedAt: integer('issued_at', { mode: 'timestamp_ms' }).notNull(),
    expiresAt: integer('expires_at', { mode: 'timestamp_ms' }).notNull(),
    lastRenewedAt: integer('last_renewed_at', { mode: 'timestamp_ms' }),
    renewable: integer('renewable', { mode: 'boolean' }).notNull(),
    /** The TTL a renewal without an increment grants (the engine's or mount's default). */
    ttlSeconds: integer('ttl_seconds').notNull(),
    /** Renewals never reach past `issued_at + max_ttl_seconds`. */
    maxTtlSeconds: integer('max_ttl_seconds').notNull(),
    /** What the engine needs to revoke (a database user name, a certificate serial). */
    revokeData: text('revoke_data', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    /** `irrevocable`: out of retries; kept (and listed) until a revocation by hand succeeds. */
    state: text('state', { enum: ['active', 'revoking', 'irrevocable'] })
      .notNull()
      .default('active'),
    dueAt: integer('due_at', { mode: 'timestamp_ms' }).notNull(),
    revokeAttempts: integer('revoke_attempts').notNull().default(0),
    lastError: text('last_error'),
  },
  (t) => [index('secret_leases_due').on(t.dueAt), index('secret_leases_token').on(t.tokenId), index('secret_leases_mount').on(t.mountUuid)],
);
