import { blob, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { workspaces } from './workspaces.js';

/** Who created a state version (the same polymorphic holder as a lock). */
export interface StateVersionCreator {
  kind: 'user' | 'team' | 'organization';
  id: string;
}

/**
 * A workspace's state snapshots. `pending` until the raw state arrives (in the create request or
 * through the one-time upload link), then `finalized`. Upload secrets are stored as hashes and
 * cleared once used.
 */
export const stateVersions = sqliteTable(
  'state_versions',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    /** Creation order within the workspace: the current version is the highest finalized one. */
    sequence: integer('sequence').notNull(),
    serial: integer('serial').notNull(),
    lineage: text('lineage'),
    md5: text('md5').notNull(),
    status: text('status', {
      enum: ['pending', 'finalized', 'discarded', 'backing_data_soft_deleted', 'backing_data_permanently_deleted'],
    }).notNull(),
    state: blob('state', { mode: 'buffer' }),
    jsonState: blob('json_state', { mode: 'buffer' }),
    uploadSecret: text('upload_secret'),
    jsonUploadSecret: text('json_upload_secret'),
    resourceCount: integer('resource_count').notNull().default(0),
    terraformVersion: text('terraform_version'),
    stateFormatVersion: integer('state_format_version'),
    size: integer('size').notNull().default(0),
    createdBy: text('created_by', { mode: 'json' }).$type<StateVersionCreator>(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    uniqueIndex('state_versions_ws_sequence').on(t.workspaceId, t.sequence),
    index('state_versions_ws_status_sequence').on(t.workspaceId, t.status, t.sequence),
  ],
);

/** The root outputs of a finalized state version, in the state's order. */
export const stateVersionOutputs = sqliteTable(
  'state_version_outputs',
  {
    id: text('id').primaryKey(),
    stateVersionId: text('state_version_id')
      .notNull()
      .references(() => stateVersions.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    name: text('name').notNull(),
    sensitive: integer('sensitive', { mode: 'boolean' }).notNull(),
    detailedType: text('detailed_type', { mode: 'json' }).$type<unknown>(),
    value: text('value', { mode: 'json' }).$type<unknown>(),
  },
  (t) => [uniqueIndex('state_version_outputs_sv_position').on(t.stateVersionId, t.position)],
);

/** Workspace variables. A sensitive value is write-only: stored, never rendered, never logged. */
export const workspaceVariables = sqliteTable(
  'workspace_variables',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    value: text('value').notNull(),
    description: text('description'),
    category: text('category', { enum: ['terraform', 'env'] }).notNull(),
    hcl: integer('hcl', { mode: 'boolean' }).notNull(),
    sensitive: integer('sensitive', { mode: 'boolean' }).notNull(),
    versionId: text('version_id').notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [uniqueIndex('workspace_variables_ws_category_key').on(t.workspaceId, t.category, t.key)],
);
