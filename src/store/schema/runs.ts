import { blob, index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { workspaceTasks } from './run-tasks.js';
import { workspaces, type PrincipalLocker } from './workspaces.js';

const createdAt = () => integer('created_at', { mode: 'timestamp_ms' }).notNull();

/** `<status>-at` → ISO 8601 time, as the wire's `status-timestamps` shows them. */
export type StatusTimestamps = Record<string, string>;

/** Who carried out a phase, as the wire's `execution-details` shows it (agent fields only in agent mode). */
export interface ExecutionDetails {
  mode: 'remote' | 'agent';
  'agent-id'?: string;
  'agent-name'?: string;
  'agent-pool-id'?: string;
  'agent-pool-name'?: string;
}

/** A run variable as the create request gave it (`key`, `value`: an HCL expression). */
export interface StoredRunVariable {
  key: string;
  value: string;
}

/**
 * Configuration versions: a slug uploaded once through a self-authorizing link. `uploadSecret`
 * is the hash of the link's secret and is cleared when used; the archive is kept for runs and
 * downloads.
 */
export const configurationVersions = sqliteTable(
  'configuration_versions',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    status: text('status', {
      enum: ['pending', 'fetching', 'uploaded', 'archived', 'errored', 'backing_data_soft_deleted', 'backing_data_permanently_deleted'],
    }).notNull(),
    source: text('source').notNull(),
    speculative: integer('speculative', { mode: 'boolean' }).notNull(),
    provisional: integer('provisional', { mode: 'boolean' }).notNull(),
    autoQueueRuns: integer('auto_queue_runs', { mode: 'boolean' }).notNull(),
    error: text('error'),
    errorMessage: text('error_message'),
    uploadSecret: text('upload_secret'),
    uploadExpiresAt: integer('upload_expires_at', { mode: 'timestamp_ms' }),
    archive: blob('archive', { mode: 'buffer' }),
    statusTimestamps: text('status_timestamps', { mode: 'json' }).$type<StatusTimestamps>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('configuration_versions_ws_created').on(t.workspaceId, t.createdAt)],
);

/** Runs. `sequence` orders a workspace's queue; the workspace row names its current and latest run. */
export const runs = sqliteTable(
  'runs',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    organizationId: text('organization_id').notNull(),
    configurationVersionId: text('configuration_version_id')
      .notNull()
      .references(() => configurationVersions.id, { onDelete: 'cascade' }),
    sequence: integer('sequence').notNull(),
    status: text('status').notNull(),
    source: text('source').notNull(),
    triggerReason: text('trigger_reason').notNull(),
    message: text('message').notNull(),
    isDestroy: integer('is_destroy', { mode: 'boolean' }).notNull(),
    refresh: integer('refresh', { mode: 'boolean' }).notNull(),
    refreshOnly: integer('refresh_only', { mode: 'boolean' }).notNull(),
    planOnly: integer('plan_only', { mode: 'boolean' }).notNull(),
    autoApply: integer('auto_apply', { mode: 'boolean' }).notNull(),
    allowEmptyApply: integer('allow_empty_apply', { mode: 'boolean' }).notNull(),
    savePlan: integer('save_plan', { mode: 'boolean' }).notNull(),
    targetAddrs: text('target_addrs', { mode: 'json' }).$type<string[]>().notNull(),
    replaceAddrs: text('replace_addrs', { mode: 'json' }).$type<string[]>().notNull(),
    /** The run's `policy-paths`: directories of its configuration holding policies (recorded and shown). */
    policyPaths: text('policy_paths', { mode: 'json' }).$type<string[]>().notNull().default([]),
    variables: text('variables', { mode: 'json' }).$type<StoredRunVariable[]>().notNull(),
    terraformVersion: text('terraform_version').notNull(),
    hasChanges: integer('has_changes', { mode: 'boolean' }).notNull(),
    createdBy: text('created_by', { mode: 'json' }).$type<PrincipalLocker>(),
    confirmedBy: text('confirmed_by', { mode: 'json' }).$type<PrincipalLocker>(),
    statusTimestamps: text('status_timestamps', { mode: 'json' }).$type<StatusTimestamps>().notNull(),
    /** When a run canceled once may be force-canceled (the real service waits a cool-off). */
    forceCancelAvailableAt: integer('force_cancel_available_at', { mode: 'timestamp_ms' }),
    /** The simulated progression chosen for this run: immediate | clock | manual. */
    progression: text('progression').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index('runs_ws_sequence').on(t.workspaceId, t.sequence),
    index('runs_org_created').on(t.organizationId, t.createdAt),
    index('runs_status').on(t.status),
  ],
);

/** A run's plan and its apply: the same shape, told apart by `kind` (ids `plan-…` and `apply-…`). */
export const runPhases = sqliteTable(
  'run_phases',
  {
    id: text('id').primaryKey(),
    runId: text('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['plan', 'apply'] }).notNull(),
    status: text('status').notNull(),
    hasChanges: integer('has_changes', { mode: 'boolean' }).notNull().default(false),
    resourceAdditions: integer('resource_additions').notNull().default(0),
    resourceChanges: integer('resource_changes').notNull().default(0),
    resourceDestructions: integer('resource_destructions').notNull().default(0),
    resourceImports: integer('resource_imports').notNull().default(0),
    /** The log as written so far; the running phase's tail lives in memory until it ends. */
    log: text('log').notNull().default(''),
    /** Plans: `terraform show -json` of the plan. */
    jsonOutput: blob('json_output', { mode: 'buffer' }),
    /** Plans: the redacted plan with provider schemas (`json-output-redacted`, what the CLI draws a remote plan from). */
    jsonOutputRedacted: blob('json_output_redacted', { mode: 'buffer' }),
    /** Recorded when the phase starts: the agent that took it in agent mode (null: not started, or remote). */
    executionDetails: text('execution_details', { mode: 'json' }).$type<ExecutionDetails>(),
    statusTimestamps: text('status_timestamps', { mode: 'json' }).$type<StatusTimestamps>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('run_phases_run').on(t.runId)],
);

/** A run's task stage: one per stage that had enabled workspace run tasks when the run was created. */
export const taskStages = sqliteTable(
  'task_stages',
  {
    id: text('id').primaryKey(),
    runId: text('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    stage: text('stage', { enum: ['pre_plan', 'post_plan', 'pre_apply', 'post_apply'] }).notNull(),
    status: text('status').notNull(),
    statusTimestamps: text('status_timestamps', { mode: 'json' }).$type<StatusTimestamps>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('task_stages_run').on(t.runId)],
);

/** One task's result in a stage; the task service PATCHes it back with the callback token. */
export const taskResults = sqliteTable(
  'task_results',
  {
    id: text('id').primaryKey(),
    taskStageId: text('task_stage_id')
      .notNull()
      .references(() => taskStages.id, { onDelete: 'cascade' }),
    workspaceTaskId: text('workspace_task_id').references(() => workspaceTasks.id, { onDelete: 'set null' }),
    taskId: text('task_id').notNull(),
    taskName: text('task_name').notNull(),
    taskUrl: text('task_url').notNull(),
    enforcementLevel: text('enforcement_level', { enum: ['advisory', 'mandatory'] }).notNull(),
    status: text('status').notNull(),
    message: text('message'),
    url: text('url'),
    /** Hash of the access token the payload carried; the callback must present the token. */
    tokenHash: text('token_hash'),
    /** When an unanswered task times out (the real default: 10 minutes after it was sent). */
    deadline: integer('deadline', { mode: 'timestamp_ms' }),
    statusTimestamps: text('status_timestamps', { mode: 'json' }).$type<StatusTimestamps>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('task_results_stage').on(t.taskStageId)],
);

/** What happened to a run, for `GET /runs/:id/run-events`. */
export const runEvents = sqliteTable(
  'run_events',
  {
    id: text('id').primaryKey(),
    runId: text('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    action: text('action').notNull(),
    description: text('description'),
    actor: text('actor', { mode: 'json' }).$type<PrincipalLocker>(),
    createdAt: createdAt(),
  },
  (t) => [index('run_events_run').on(t.runId, t.createdAt)],
);

export const runComments = sqliteTable(
  'run_comments',
  {
    id: text('id').primaryKey(),
    runId: text('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    body: text('body').notNull(),
    createdBy: text('created_by', { mode: 'json' }).$type<PrincipalLocker>(),
    createdAt: createdAt(),
  },
  (t) => [index('run_comments_run').on(t.runId)],
);

/** A run trigger: a finished apply in the source workspace queues a run in the destination one. */
export const runTriggers = sqliteTable(
  'run_triggers',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    sourceWorkspaceId: text('source_workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [index('run_triggers_ws').on(t.workspaceId), index('run_triggers_source').on(t.sourceWorkspaceId)],
);
