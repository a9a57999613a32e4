import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

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
