import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { organizations, teams } from './platform.js';
import { projects, workspaces } from './workspaces.js';

export type NotificationDestination = 'generic' | 'email' | 'slack' | 'microsoft-teams';

/**
 * What a destination answered to the latest delivery, as the wire shows it: `code` and
 * `successful` are strings and `sent-at` is RFC 3339, the only shapes the Go client decodes.
 */
export interface DeliveryResponse {
  url: string;
  body: string;
  code: string;
  headers: Record<string, string[]>;
  'sent-at': string;
  successful: 'true' | 'false';
}

/**
 * Notification configurations of a workspace, a team or a project: exactly one of
 * `workspace_id`, `team_id` and `project_id` is set, and the configuration goes with its owner.
 * `tokenSealed` is the HMAC key sealed with the server key (write-only on the wire).
 */
export const notificationConfigurations = sqliteTable(
  'notification_configurations',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    workspaceId: text('workspace_id').references(() => workspaces.id, { onDelete: 'cascade' }),
    teamId: text('team_id').references(() => teams.id, { onDelete: 'cascade' }),
    projectId: text('project_id').references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    destinationType: text('destination_type', { enum: ['generic', 'email', 'slack', 'microsoft-teams'] }).notNull(),
    enabled: integer('enabled', { mode: 'boolean' }).notNull(),
    url: text('url'),
    tokenSealed: text('token_sealed'),
    triggers: text('triggers', { mode: 'json' }).$type<string[]>().notNull(),
    emailAddresses: text('email_addresses', { mode: 'json' }).$type<string[]>().notNull(),
    emailUserIds: text('email_user_ids', { mode: 'json' }).$type<string[]>().notNull(),
    /** Only the most recent response is kept, as on the real service. */
    deliveryResponses: text('delivery_responses', { mode: 'json' }).$type<DeliveryResponse[]>().notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    index('notification_configurations_workspace').on(t.workspaceId, t.createdAt),
    index('notification_configurations_team').on(t.teamId, t.createdAt),
    index('notification_configurations_project').on(t.projectId, t.createdAt),
  ],
);
