import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { organizations } from './platform.js';
import { projects, workspaces } from './workspaces.js';

/**
 * Variable sets: variables an organization applies to many workspaces at once, to every
 * workspace (`global`), or to the workspaces of chosen projects. A `priority` set overrides the
 * workspaces' own variables.
 */
export const variableSets = sqliteTable(
  'variable_sets',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description').notNull(),
    global: integer('global', { mode: 'boolean' }).notNull(),
    priority: integer('priority', { mode: 'boolean' }).notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [uniqueIndex('variable_sets_org_name').on(t.organizationId, t.name)],
);

export const variableSetWorkspaces = sqliteTable(
  'variable_set_workspaces',
  {
    setId: text('set_id')
      .notNull()
      .references(() => variableSets.id, { onDelete: 'cascade' }),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.setId, t.workspaceId] }), index('variable_set_workspaces_ws').on(t.workspaceId)],
);

export const variableSetProjects = sqliteTable(
  'variable_set_projects',
  {
    setId: text('set_id')
      .notNull()
      .references(() => variableSets.id, { onDelete: 'cascade' }),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.setId, t.projectId] }), index('variable_set_projects_project').on(t.projectId)],
);

export const variableSetVariables = sqliteTable(
  'variable_set_variables',
  {
    id: text('id').primaryKey(),
    setId: text('set_id')
      .notNull()
      .references(() => variableSets.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    value: text('value').notNull(),
    description: text('description'),
    category: text('category', { enum: ['terraform', 'env'] }).notNull(),
    hcl: integer('hcl', { mode: 'boolean' }).notNull(),
    sensitive: integer('sensitive', { mode: 'boolean' }).notNull(),
    versionId: text('version_id').notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [uniqueIndex('variable_set_variables_set_category_key').on(t.setId, t.category, t.key)],
);
