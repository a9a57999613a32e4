import { integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { organizations } from './platform.js';

/** A tag key an organization reserves; `disable-overrides` stops workspaces overriding a project's value. */
export const reservedTagKeys = sqliteTable(
  'reserved_tag_keys',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    disableOverrides: integer('disable_overrides', { mode: 'boolean' }).notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [uniqueIndex('reserved_tag_keys_key').on(t.organizationId, t.key)],
);

/** What an organization's audit configuration holds (hosted edition); timestamps as ISO strings. */
export interface AuditConfiguration {
  auditTrailsEnabled: boolean;
  streamingEnabled: boolean;
  streamingOrganizationId: string;
  useDefaultOrganization: boolean;
  auditTrailsEnabledAt: string | null;
  auditTrailsDisabledAt: string | null;
  streamingEnabledAt: string | null;
  streamingDisabledAt: string | null;
}

/** An organization's audit configuration once changed; absent, the defaults (audit trails on). */
export const organizationAuditConfigurations = sqliteTable('organization_audit_configurations', {
  organizationId: text('organization_id')
    .primaryKey()
    .references(() => organizations.id, { onDelete: 'cascade' }),
  configuration: text('configuration', { mode: 'json' }).$type<AuditConfiguration>().notNull(),
  updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
});
