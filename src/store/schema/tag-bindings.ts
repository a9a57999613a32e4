import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { organizations } from './platform.js';
import { projects, workspaces } from './workspaces.js';

/**
 * Key/value tags (`tag-bindings` on the wire) of a workspace or a project: exactly one of
 * `workspace_id` and `project_id` is set. A workspace's effective bindings are its own plus its
 * project's, its own winning on the same key. `position` keeps the order keys were first given.
 */
export const tagBindings = sqliteTable(
  'tag_bindings',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    workspaceId: text('workspace_id').references(() => workspaces.id, { onDelete: 'cascade' }),
    projectId: text('project_id').references(() => projects.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    value: text('value').notNull().default(''),
    position: integer('position').notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    uniqueIndex('tag_bindings_workspace_key').on(t.workspaceId, t.key),
    uniqueIndex('tag_bindings_project_key').on(t.projectId, t.key),
    // `filter[tagged]`: (key, value) → the workspaces and projects carrying it, without a scan.
    index('tag_bindings_org_key_value').on(t.organizationId, t.key, t.value),
  ],
);
