import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { organizations } from './platform.js';
import { runs } from './runs.js';
import { projects, workspaces } from './workspaces.js';

export type PolicyKind = 'sentinel' | 'opa';
export type PolicyEnforcementLevel = 'advisory' | 'soft-mandatory' | 'hard-mandatory' | 'mandatory';

/**
 * Policies of an organization. `source` is the uploaded policy text (null until an upload);
 * nothing evaluates it: a run's policy check only looks for the simulation's failure markers.
 */
export const policies = sqliteTable(
  'policies',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    kind: text('kind', { enum: ['sentinel', 'opa'] }).notNull(),
    query: text('query'),
    description: text('description'),
    enforcementLevel: text('enforcement_level', { enum: ['advisory', 'soft-mandatory', 'hard-mandatory', 'mandatory'] }).notNull(),
    source: text('source'),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [uniqueIndex('policies_organization_name').on(t.organizationId, t.name)],
);

/** Policy sets: global ones apply to every workspace of the organization but the excluded ones. */
export const policySets = sqliteTable(
  'policy_sets',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description'),
    kind: text('kind', { enum: ['sentinel', 'opa'] }).notNull(),
    global: integer('global', { mode: 'boolean' }).notNull(),
    overridable: integer('overridable', { mode: 'boolean' }).notNull(),
    agentEnabled: integer('agent_enabled', { mode: 'boolean' }).notNull(),
    policyToolVersion: text('policy_tool_version'),
    policiesPath: text('policies_path'),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [uniqueIndex('policy_sets_organization_name').on(t.organizationId, t.name)],
);

export const policySetPolicies = sqliteTable(
  'policy_set_policies',
  {
    policySetId: text('policy_set_id')
      .notNull()
      .references(() => policySets.id, { onDelete: 'cascade' }),
    policyId: text('policy_id')
      .notNull()
      .references(() => policies.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.policySetId, t.policyId] }), index('policy_set_policies_policy').on(t.policyId)],
);

/** Workspaces a set is attached to (`excluded` false) or that a global set leaves out (`excluded` true). */
export const policySetWorkspaces = sqliteTable(
  'policy_set_workspaces',
  {
    policySetId: text('policy_set_id')
      .notNull()
      .references(() => policySets.id, { onDelete: 'cascade' }),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    excluded: integer('excluded', { mode: 'boolean' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.policySetId, t.workspaceId, t.excluded] }), index('policy_set_workspaces_workspace').on(t.workspaceId)],
);

export const policySetProjects = sqliteTable(
  'policy_set_projects',
  {
    policySetId: text('policy_set_id')
      .notNull()
      .references(() => policySets.id, { onDelete: 'cascade' }),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.policySetId, t.projectId] }), index('policy_set_projects_project').on(t.projectId)],
);

/** What a policy check counted, as the wire's `result` shows it. */
export interface PolicyCheckResult {
  result: boolean;
  passed: number;
  'total-failed': number;
  'hard-failed': number;
  'soft-failed': number;
  'advisory-failed': number;
  duration: number;
  /** One line per policy evaluated: the check's output. */
  lines: string[];
}

export type PolicyCheckStatus = 'queued' | 'passed' | 'soft_failed' | 'hard_failed' | 'overridden' | 'canceled' | 'errored';

/** A run's sentinel policy check (one per run with sentinel policies that apply to its workspace). */
export const policyChecks = sqliteTable(
  'policy_checks',
  {
    id: text('id').primaryKey(),
    runId: text('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    status: text('status').$type<PolicyCheckStatus>().notNull(),
    result: text('result', { mode: 'json' }).$type<PolicyCheckResult>().notNull(),
    statusTimestamps: text('status_timestamps', { mode: 'json' }).$type<Record<string, string>>().notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [index('policy_checks_run').on(t.runId, t.createdAt)],
);
