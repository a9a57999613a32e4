import { blob, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/**
 * Administrator settings: one row per settings document (`general`, `smtp`, …), its attributes
 * in their spec spelling. Write-only secrets (the SMTP password, the SMS auth token) live here
 * too and are dropped when a document is rendered. The `oidc` row holds the signing-key timers.
 */
export const adminSettings = sqliteTable('admin_settings', {
  name: text('name').primaryKey(),
  attributes: text('attributes', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
  updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
});

/** Server keys made once and kept with the store (`src/store/server-keys.ts`); never leave the process. */
export const serverKeys = sqliteTable('server_keys', {
  name: text('name').primaryKey(),
  key: blob('key', { mode: 'buffer' }).notNull(),
});

/** The signing keys for dynamic provider credentials, published at `/.well-known/jwks`. */
export const signingKeys = sqliteTable('signing_keys', {
  kid: text('kid').primaryKey(),
  /** PKCS#8 PEM; never leaves the process. */
  privateKeyPem: text('private_key_pem').notNull(),
  /** The public half as a JWK (without `kid`, `use`, `alg`, which are added when published). */
  publicJwk: text('public_jwk', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
  current: integer('current', { mode: 'boolean' }).notNull(),
  createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
});

/** Every test mail and SMS understudy sent, for `GET /_emulator/outbox`. */
export const outbox = sqliteTable(
  'outbox',
  {
    id: text('id').primaryKey(),
    kind: text('kind', { enum: ['mail', 'sms'] }).notNull(),
    /** `smtp` (handed to the configured server), `http` (the SMS API), `outbox` (kept here only). */
    deliveredVia: text('delivered_via', { enum: ['smtp', 'http', 'outbox'] }).notNull(),
    sender: text('sender').notNull(),
    recipient: text('recipient').notNull(),
    subject: text('subject'),
    body: text('body').notNull(),
    sentAt: integer('sent_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [index('outbox_sent_at').on(t.sentAt)],
);

/** One build of a tool version for a platform, as the admin API's `archs` lists them. */
export interface StoredToolArch {
  url: string;
  sha: string;
  os: string;
  arch: string;
}

/**
 * Tool versions an operator added or changed through `/api/v2/admin/terraform-versions`. The
 * releases understudy ships with are not stored: a row with a shipped release's id overrides it
 * (`removed` marks one the operator deleted), any other row is a version the operator added.
 */
export const toolVersions = sqliteTable('tool_versions', {
  id: text('id').primaryKey(),
  version: text('version').notNull().unique(),
  url: text('url').notNull(),
  sha: text('sha').notNull(),
  official: integer('official', { mode: 'boolean' }).notNull(),
  enabled: integer('enabled', { mode: 'boolean' }).notNull(),
  beta: integer('beta', { mode: 'boolean' }).notNull(),
  deprecated: integer('deprecated', { mode: 'boolean' }).notNull(),
  deprecatedReason: text('deprecated_reason'),
  archs: text('archs', { mode: 'json' }).$type<StoredToolArch[]>().notNull(),
  removed: integer('removed', { mode: 'boolean' }).notNull(),
  createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
});

/**
 * Policy tool versions (`opa`, `sentinel`) an operator added or changed through
 * `/api/v2/admin/{opa,sentinel}-versions`; shipped ones are overridden as `tool_versions` are.
 */
export const policyToolVersions = sqliteTable(
  'policy_tool_versions',
  {
    id: text('id').primaryKey(),
    tool: text('tool', { enum: ['opa', 'sentinel'] }).notNull(),
    version: text('version').notNull(),
    url: text('url').notNull(),
    sha: text('sha').notNull(),
    official: integer('official', { mode: 'boolean' }).notNull(),
    enabled: integer('enabled', { mode: 'boolean' }).notNull(),
    beta: integer('beta', { mode: 'boolean' }).notNull(),
    deprecated: integer('deprecated', { mode: 'boolean' }).notNull(),
    deprecatedReason: text('deprecated_reason'),
    archs: text('archs', { mode: 'json' }).$type<StoredToolArch[]>().notNull(),
    removed: integer('removed', { mode: 'boolean' }).notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [uniqueIndex('policy_tool_versions_tool_version').on(t.tool, t.version)],
);

/**
 * The audit trail: one row per change made through the API (a successful write), in the
 * organization it concerns. `seq` orders events and anchors pages.
 */
export const auditEvents = sqliteTable(
  'audit_events',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    organizationId: text('organization_id').notNull(),
    timestamp: integer('timestamp', { mode: 'timestamp_ms' }).notNull(),
    /** `auth` of the wire event: who made the change. */
    accessorId: text('accessor_id').notNull(),
    accessorDescription: text('accessor_description').notNull(),
    accessorType: text('accessor_type').notNull(),
    requestId: text('request_id').notNull(),
    resourceId: text('resource_id').notNull(),
    resourceType: text('resource_type').notNull(),
    action: text('action').notNull(),
  },
  (t) => [index('audit_events_org_seq').on(t.organizationId, t.seq), index('audit_events_org_time').on(t.organizationId, t.timestamp)],
);
