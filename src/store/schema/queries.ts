import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { configurationVersions, type StatusTimestamps, type StoredRunVariable } from './runs.js';
import { workspaces, type PrincipalLocker } from './workspaces.js';

/**
 * Query runs (`/api/v2/queries`): `terraform query` over a workspace's configuration, with a
 * log and a count of the resources it found. They hold no lock and change no state.
 */
export const queryRuns = sqliteTable(
  'query_runs',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    configurationVersionId: text('configuration_version_id')
      .notNull()
      .references(() => configurationVersions.id, { onDelete: 'cascade' }),
    /** pending | queued | running | finished | canceled | errored */
    status: text('status').notNull(),
    source: text('source').notNull(),
    terraformVersion: text('terraform_version').notNull(),
    variables: text('variables', { mode: 'json' }).$type<StoredRunVariable[]>().notNull(),
    generateConfigOut: integer('generate_config_out', { mode: 'boolean' }).notNull(),
    resourcesDiscovered: integer('resources_discovered'),
    /** The log as written so far; a running query's tail lives in memory until it ends. */
    log: text('log').notNull().default(''),
    createdBy: text('created_by', { mode: 'json' }).$type<PrincipalLocker>(),
    canceledBy: text('canceled_by', { mode: 'json' }).$type<PrincipalLocker>(),
    statusTimestamps: text('status_timestamps', { mode: 'json' }).$type<StatusTimestamps>().notNull(),
    /** The simulated progression chosen for this query: immediate | clock | manual. */
    progression: text('progression').notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [index('query_runs_ws_created').on(t.workspaceId, t.createdAt)],
);
