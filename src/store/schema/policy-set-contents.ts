import { blob, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { policySets } from './policies.js';

/**
 * A policy set's parameters (the wire's `vars` of category `policy-set`): key/value pairs handed
 * to its policies. A sensitive value is sealed (core/at-rest.ts) and never shown again.
 */
export const policySetParameters = sqliteTable(
  'policy_set_parameters',
  {
    id: text('id').primaryKey(),
    policySetId: text('policy_set_id')
      .notNull()
      .references(() => policySets.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    value: text('value').notNull(),
    sensitive: integer('sensitive', { mode: 'boolean' }).notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [uniqueIndex('policy_set_parameters_key').on(t.policySetId, t.key)],
);

export type PolicySetVersionStatus = 'pending' | 'ingressing' | 'ready' | 'errored';

/**
 * Versions of a policy set's policies, uploaded as a `.tar.gz` through a self-authorizing link.
 * `archive` holds the upload; `uploadSecretHash` is the link's secret (cleared once used).
 */
export const policySetVersions = sqliteTable(
  'policy_set_versions',
  {
    id: text('id').primaryKey(),
    policySetId: text('policy_set_id')
      .notNull()
      .references(() => policySets.id, { onDelete: 'cascade' }),
    status: text('status').$type<PolicySetVersionStatus>().notNull(),
    statusTimestamps: text('status_timestamps', { mode: 'json' }).$type<Record<string, string>>().notNull(),
    error: text('error'),
    errorMessage: text('error_message'),
    archive: blob('archive', { mode: 'buffer' }),
    uploadSecretHash: text('upload_secret_hash'),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [index('policy_set_versions_set').on(t.policySetId, t.createdAt)],
);
