import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { organizations, teams, type StoredRetentionPolicy } from './platform.js';

const createdAt = () => integer('created_at', { mode: 'timestamp_ms' }).notNull();

/** A workspace's VCS connection as stored (the wire adds derived keys such as `display-identifier`). */
export interface StoredVcsRepo {
  'oauth-token-id': string;
  identifier: string;
  branch: string;
  'ingress-submodules': boolean;
  'tags-regex': string | null;
  'github-app-installation-id': string | null;
  /** Random part of the webhook URL, fixed when the repo is first attached. */
  'webhook-id': string;
}

/** Who holds a workspace lock; the wire's polymorphic `locked-by`. */
export interface PrincipalLocker {
  kind: 'user' | 'team' | 'organization';
  id: string;
}

/** A principal's lock, or `run`: the workspace's active run holds it until the run ends. */
export type WorkspaceLocker = PrincipalLocker | { kind: 'run'; id: string };

export type ExecutionMode = 'remote' | 'local' | 'agent';

/** The detailed permissions a `custom` team access grants, as the wire spells them. */
export interface CustomWorkspaceAccess {
  runs: 'read' | 'plan' | 'apply';
  variables: 'none' | 'read' | 'write';
  'state-versions': 'none' | 'read-outputs' | 'read' | 'write';
  'sentinel-mocks': 'none' | 'read';
  'workspace-locking': boolean;
  'run-tasks': boolean;
}

export const agentPools = sqliteTable(
  'agent_pools',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    organizationScoped: integer('organization_scoped', { mode: 'boolean' }).notNull().default(true),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('agent_pools_org_name').on(t.organizationId, t.name)],
);

/** SSH keys for cloning private modules. `value` is write-only: never rendered, never logged. */
export const sshKeys = sqliteTable(
  'ssh_keys',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    value: text('value').notNull(),
    createdAt: createdAt(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [index('ssh_keys_org').on(t.organizationId)],
);

/**
 * Projects group workspaces. Every organization has a default project whose id derives from the
 * organization's (see platform/projects), so rendering a workspace never looks it up.
 */
export const projects = sqliteTable(
  'projects',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description'),
    isDefault: integer('is_default', { mode: 'boolean' }).notNull().default(false),
    /** Destroy a workspace of the project after this long without activity (`14d`, `2h`); workspaces created in it inherit it. */
    autoDestroyActivityDuration: text('auto_destroy_activity_duration'),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [uniqueIndex('projects_org_name').on(t.organizationId, t.name)],
);

/** The project half of a `custom` team project access (`project-access` on the wire). */
export interface CustomProjectAccess {
  settings: 'read' | 'update' | 'delete';
  teams: 'none' | 'read' | 'manage';
  'variable-sets': 'none' | 'read' | 'write';
}

/** The workspace half of a `custom` team project access (`workspace-access` on the wire). */
export interface CustomProjectWorkspaceAccess {
  runs: 'read' | 'plan' | 'apply';
  'sentinel-mocks': 'none' | 'read';
  'state-versions': 'none' | 'read-outputs' | 'read' | 'write';
  variables: 'none' | 'read' | 'write';
  create: boolean;
  locking: boolean;
  move: boolean;
  delete: boolean;
  'run-tasks': boolean;
  'policy-overrides': boolean;
}

/**
 * A team's access to every workspace of a project (`team-projects` on the wire). `maintain` and
 * `admin` count as admin on those workspaces; `custom` carries its two permission documents.
 */
export const teamProjects = sqliteTable(
  'team_projects',
  {
    id: text('id').primaryKey(),
    teamId: text('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    access: text('access', { enum: ['read', 'write', 'maintain', 'admin', 'custom'] }).notNull(),
    /** Set for `custom` grants only. */
    projectAccess: text('project_access', { mode: 'json' }).$type<CustomProjectAccess>(),
    workspaceAccess: text('workspace_access', { mode: 'json' }).$type<CustomProjectWorkspaceAccess>(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('team_projects_team_project').on(t.teamId, t.projectId), index('team_projects_project').on(t.projectId)],
);

export const workspaces = sqliteTable(
  'workspaces',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description'),
    /** null: follow the organization's `default-execution-mode` (setting-overwrites false). */
    executionMode: text('execution_mode', { enum: ['remote', 'local', 'agent'] }),
    agentPoolId: text('agent_pool_id').references(() => agentPools.id, { onDelete: 'set null' }),
    autoApply: integer('auto_apply', { mode: 'boolean' }).notNull(),
    autoApplyRunTrigger: integer('auto_apply_run_trigger', { mode: 'boolean' }).notNull().default(false),
    autoDestroyAt: integer('auto_destroy_at', { mode: 'timestamp_ms' }),
    autoDestroyActivityDuration: text('auto_destroy_activity_duration'),
    allowDestroyPlan: integer('allow_destroy_plan', { mode: 'boolean' }).notNull(),
    fileTriggersEnabled: integer('file_triggers_enabled', { mode: 'boolean' }).notNull(),
    globalRemoteState: integer('global_remote_state', { mode: 'boolean' }).notNull(),
    queueAllRuns: integer('queue_all_runs', { mode: 'boolean' }).notNull(),
    speculativeEnabled: integer('speculative_enabled', { mode: 'boolean' }).notNull(),
    structuredRunOutputEnabled: integer('structured_run_output_enabled', { mode: 'boolean' }).notNull(),
    assessmentsEnabled: integer('assessments_enabled', { mode: 'boolean' }).notNull(),
    toolVersion: text('tool_version').notNull(),
    triggerPrefixes: text('trigger_prefixes', { mode: 'json' })
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'`),
    triggerPatterns: text('trigger_patterns', { mode: 'json' })
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'`),
    workingDirectory: text('working_directory'),
    vcsRepo: text('vcs_repo', { mode: 'json' }).$type<StoredVcsRepo>(),
    source: text('source').notNull(),
    sourceName: text('source_name'),
    sourceUrl: text('source_url'),
    lockedBy: text('locked_by', { mode: 'json' }).$type<WorkspaceLocker>(),
    lockReason: text('lock_reason'),
    /** Never null in a row since upgrade 5 (workspaces/repo.ts WorkspaceRow); the column stays nullable. */
    projectId: text('project_id').references(() => projects.id),
    /** The latest finalized state version (kept here so a page of workspaces renders without looking it up). */
    currentStateVersionId: text('current_state_version_id'),
    sshKeyId: text('ssh_key_id').references(() => sshKeys.id, { onDelete: 'set null' }),
    /** Its own data retention policy (self-hosted edition), or null to follow the organization's. */
    dataRetentionPolicy: text('data_retention_policy', { mode: 'json' }).$type<StoredRetentionPolicy>(),
    resourceCount: integer('resource_count').notNull().default(0),
    /** The run holding the workspace (active), the newest run, the newest configuration version. */
    currentRunId: text('current_run_id'),
    latestRunId: text('latest_run_id'),
    currentConfigurationVersionId: text('current_configuration_version_id'),
    /** Run statistics, kept as counters so a page of workspaces renders without aggregating runs. */
    runsCount: integer('runs_count').notNull().default(0),
    runFailures: integer('run_failures').notNull().default(0),
    planDurationTotalMs: integer('plan_duration_total_ms').notNull().default(0),
    plansTimed: integer('plans_timed').notNull().default(0),
    applyDurationTotalMs: integer('apply_duration_total_ms').notNull().default(0),
    appliesTimed: integer('applies_timed').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
    latestChangeAt: integer('latest_change_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    // Name lookups, name sorting and per-organization uniqueness share this index.
    uniqueIndex('workspaces_org_name').on(t.organizationId, t.name),
    index('workspaces_org_created').on(t.organizationId, t.createdAt),
    index('workspaces_org_updated').on(t.organizationId, t.updatedAt),
    // The list's timestamp orders with their name tie-break, so a page is read off the index
    // (the two above make SQLite sort every tie); and name prefixes, case-insensitively.
    index('workspaces_org_created_name').on(t.organizationId, t.createdAt, t.name),
    index('workspaces_org_updated_name').on(t.organizationId, t.updatedAt, t.name),
    index('workspaces_org_lower_name').on(t.organizationId, sql`lower(name)`),
    index('workspaces_agent_pool').on(t.agentPoolId),
    index('workspaces_ssh_key').on(t.sshKeyId),
    index('workspaces_project').on(t.projectId),
  ],
);

export const tags = sqliteTable(
  'tags',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('tags_org_name').on(t.organizationId, t.name)],
);

/** Tag assignments; `position` keeps insertion order, which `tag-names` must preserve. */
export const workspaceTags = sqliteTable(
  'workspace_tags',
  {
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    tagId: text('tag_id')
      .notNull()
      .references(() => tags.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.tagId] }), index('workspace_tags_tag').on(t.tagId)],
);

/** Workspaces explicitly allowed to read another workspace's state. */
export const remoteStateConsumers = sqliteTable(
  'remote_state_consumers',
  {
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    consumerId: text('consumer_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.consumerId] }), index('remote_state_consumers_consumer').on(t.consumerId)],
);

/** A team's access level on one workspace (`team-workspaces` on the wire). */
export const teamWorkspaces = sqliteTable(
  'team_workspaces',
  {
    id: text('id').primaryKey(),
    teamId: text('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    access: text('access', { enum: ['read', 'plan', 'write', 'admin', 'custom'] }).notNull(),
    /** The detailed permissions of `custom` access; null for the fixed levels, whose details are implied. */
    customPermissions: text('custom_permissions', { mode: 'json' }).$type<CustomWorkspaceAccess>(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('team_workspaces_team_ws').on(t.teamId, t.workspaceId), index('team_workspaces_ws').on(t.workspaceId)],
);

/**
 * Workspaces an organization-scoped-off agent pool names: `allowed` may use the pool, `excluded`
 * may not even though the pool is organization scoped.
 */
export const agentPoolWorkspaces = sqliteTable(
  'agent_pool_workspaces',
  {
    poolId: text('pool_id')
      .notNull()
      .references(() => agentPools.id, { onDelete: 'cascade' }),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['allowed', 'excluded'] }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.poolId, t.kind, t.workspaceId] }), index('agent_pool_workspaces_ws').on(t.workspaceId)],
);
