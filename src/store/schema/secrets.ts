import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * Secrets API tokens. The key is the SHA-256 of the token value (never the value itself, as for
 * platform tokens); `parent_id` and leases' `token_id` hold such keys too. Accessors stay plain.
 */
export const secretTokens = sqliteTable(
  'secret_tokens',
  {
    id: text('id').primaryKey(),
    accessor: text('accessor').notNull().unique(),
    parentId: text('parent_id'),
    policies: text('policies', { mode: 'json' }).$type<string[]>().notNull(),
    displayName: text('display_name').notNull(),
    meta: text('meta', { mode: 'json' }).$type<Record<string, string> | null>(),
    path: text('path').notNull(),
    /** Uses left: 0 means unlimited; -1 marks a token whose last use was taken (revoked after that request). */
    numUses: integer('num_uses').notNull().default(0),
    orphan: integer('orphan', { mode: 'boolean' }).notNull().default(false),
    renewable: integer('renewable', { mode: 'boolean' }).notNull().default(false),
    /** Seconds granted at creation (`creation_ttl`); 0 means the token never expires. */
    ttlSeconds: integer('ttl_seconds').notNull().default(0),
    explicitMaxTtlSeconds: integer('explicit_max_ttl_seconds').notNull().default(0),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    expiresAt: integer('expires_at', { mode: 'timestamp_ms' }),
    lastRenewalAt: integer('last_renewal_at', { mode: 'timestamp_ms' }),
    /** Periodic tokens renew to this many seconds and have no maximum; 0 for ordinary tokens. */
    periodSeconds: integer('period_seconds').notNull().default(0),
    /** Cap on the token's life from the auth method that issued it (token_max_ttl, mount max); 0: the system's. */
    maxTtlSeconds: integer('max_ttl_seconds').notNull().default(0),
    /** Addresses the token may be used from (`token_bound_cidrs` of a login); null: anywhere. */
    boundCidrs: text('bound_cidrs', { mode: 'json' }).$type<string[] | null>(),
    /** The identity store's entity the token belongs to (a login's, or its parent's); null: none. */
    entityId: text('entity_id'),
  },
  (t) => [index('secret_tokens_parent').on(t.parentId), index('secret_tokens_expiry').on(t.expiresAt)],
);

/** The columns of a mount table (secrets engines here, auth methods in `auth_mounts`). */
export const mountColumns = () => ({
  path: text('path').primaryKey(),
  type: text('type').notNull(),
  description: text('description').notNull().default(''),
  accessor: text('accessor').notNull().unique(),
  uuid: text('uuid').notNull().unique(),
  config: text('config', { mode: 'json' })
    .$type<Record<string, unknown>>()
    .notNull()
    .default(sql`'{}'`),
  options: text('options', { mode: 'json' }).$type<Record<string, string> | null>(),
  local: integer('local', { mode: 'boolean' }).notNull().default(false),
  sealWrap: integer('seal_wrap', { mode: 'boolean' }).notNull().default(false),
  createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
});

/** Mounted engines; `path` always ends in `/`. */
export const mounts = sqliteTable('mounts', mountColumns());

/** Enabled auth methods; `path` is relative to `auth/` (`userpass/`) and always ends in `/`. */
export const authMounts = sqliteTable('auth_mounts', mountColumns());

/**
 * Each mount's private key/value storage, keyed by the mount's uuid so a remount keeps data and a
 * second mount of the same engine never sees the first one's.
 */
export const secretEntries = sqliteTable(
  'secret_entries',
  {
    mountUuid: text('mount_uuid').notNull(),
    key: text('key').notNull(),
    value: text('value', { mode: 'json' }).$type<unknown>().notNull(),
  },
  (t) => [primaryKey({ columns: [t.mountUuid, t.key] })],
);

/** ACL policies by (lower-case) name; `raw` is the text as written (HCL or JSON). `root` is never stored. */
export const secretPolicies = sqliteTable('secret_policies', {
  name: text('name').primaryKey(),
  raw: text('raw').notNull(),
  updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
});
