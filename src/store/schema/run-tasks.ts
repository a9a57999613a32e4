import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { organizations } from './platform.js';
import { agentPools, workspaces } from './workspaces.js';

const createdAt = () => integer('created_at', { mode: 'timestamp_ms' }).notNull();

export type RunTaskStage = 'pre_plan' | 'post_plan' | 'pre_apply' | 'post_apply';
export type EnforcementLevel = 'advisory' | 'mandatory';

/** The organization-wide defaults of a run task (`global-configuration`). */
export interface GlobalConfiguration {
  enabled: boolean;
  stages: RunTaskStage[];
  'enforcement-level': EnforcementLevel;
}

/** Run tasks. `hmacKey` is write-only: responses carry null and logs never see it. */
export const runTasks = sqliteTable(
  'run_tasks',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    url: text('url').notNull(),
    description: text('description'),
    category: text('category').notNull(),
    hmacKey: text('hmac_key'),
    enabled: integer('enabled', { mode: 'boolean' }).notNull(),
    globalConfiguration: text('global_configuration', { mode: 'json' }).$type<GlobalConfiguration>(),
    agentPoolId: text('agent_pool_id').references(() => agentPools.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
  },
  // The second index is the list's order, so a page is read off it instead of sorting every task.
  (t) => [
    uniqueIndex('run_tasks_org_name').on(t.organizationId, t.name),
    index('run_tasks_org_created').on(t.organizationId, t.createdAt, t.id),
  ],
);

/** A run task attached to a workspace; deleting either side removes the attachment. */
export const workspaceTasks = sqliteTable(
  'workspace_tasks',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    taskId: text('task_id')
      .notNull()
      .references(() => runTasks.id, { onDelete: 'cascade' }),
    enforcementLevel: text('enforcement_level', { enum: ['advisory', 'mandatory'] }).notNull(),
    /** Never empty; the deprecated single `stage` is its first element. */
    stages: text('stages', { mode: 'json' }).$type<RunTaskStage[]>().notNull(),
    enabled: integer('enabled', { mode: 'boolean' }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('workspace_tasks_ws_task').on(t.workspaceId, t.taskId), index('workspace_tasks_task').on(t.taskId)],
);

/** Every payload the control plane delivered to a task's URL, with what the receiver answered. */
export const runTaskDeliveries = sqliteTable(
  'run_task_deliveries',
  {
    id: text('id').primaryKey(),
    workspaceTaskId: text('workspace_task_id')
      .notNull()
      .references(() => workspaceTasks.id, { onDelete: 'cascade' }),
    stage: text('stage').notNull(),
    runId: text('run_id').notNull(),
    url: text('url').notNull(),
    signed: integer('signed', { mode: 'boolean' }).notNull(),
    /** HTTP status of the receiver's answer; null when it could not be reached. */
    responseStatus: integer('response_status'),
    responseExcerpt: text('response_excerpt'),
    error: text('error'),
    createdAt: createdAt(),
    /**
     * A delivery sent by `/_emulator/run-tasks/:id/trigger` (no run behind it) is answered at its
     * own callback: the id in its callback URL, the hash of its access token, and the verdict.
     */
    callbackId: text('callback_id'),
    tokenHash: text('token_hash'),
    callbackStatus: text('callback_status'),
    callbackMessage: text('callback_message'),
    callbackAt: integer('callback_at', { mode: 'timestamp_ms' }),
  },
  (t) => [index('run_task_deliveries_wstask').on(t.workspaceTaskId), index('run_task_deliveries_callback').on(t.callbackId)],
);
