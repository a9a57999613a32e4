import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { runPhases, runs, taskStages } from './runs.js';

/** Passed / failed counts as policy evaluations and set outcomes show them. */
export interface PolicyResultCount {
  'advisory-failed': number;
  'mandatory-failed': number;
  passed: number;
  errored: number;
}

/** One policy's outcome inside a set outcome, with the wire's snake_case names. */
export interface PolicyOutcome {
  enforcement_level: string;
  query: string;
  status: 'passed' | 'failed';
  policy_name: string;
  description: string;
}

export type PolicyEvaluationStatus =
  'pending' | 'queued' | 'running' | 'passed' | 'failed' | 'errored' | 'canceled' | 'overridden' | 'unreachable';

/** A run's OPA policy evaluation, attached to its post-plan task stage. */
export const policyEvaluations = sqliteTable(
  'policy_evaluations',
  {
    id: text('id').primaryKey(),
    runId: text('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    taskStageId: text('task_stage_id')
      .notNull()
      .references(() => taskStages.id, { onDelete: 'cascade' }),
    status: text('status').$type<PolicyEvaluationStatus>().notNull(),
    /** `opa`, or `sentinel` for agent-enabled sentinel sets: one evaluation per kind in a stage. */
    policyKind: text('policy_kind', { enum: ['sentinel', 'opa'] })
      .notNull()
      .default('opa'),
    resultCount: text('result_count', { mode: 'json' }).$type<PolicyResultCount>().notNull(),
    statusTimestamps: text('status_timestamps', { mode: 'json' }).$type<Record<string, string>>().notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [index('policy_evaluations_stage').on(t.taskStageId), index('policy_evaluations_run').on(t.runId)],
);

/** One policy set's outcome in an evaluation; the set's name is kept as it was (the set may go). */
export const policySetOutcomes = sqliteTable(
  'policy_set_outcomes',
  {
    id: text('id').primaryKey(),
    policyEvaluationId: text('policy_evaluation_id')
      .notNull()
      .references(() => policyEvaluations.id, { onDelete: 'cascade' }),
    policySetId: text('policy_set_id').notNull(),
    policySetName: text('policy_set_name').notNull(),
    policySetDescription: text('policy_set_description'),
    overridable: integer('overridable', { mode: 'boolean' }).notNull(),
    /** Why the set could not be evaluated (an archive that does not parse), or null. */
    error: text('error'),
    outcomes: text('outcomes', { mode: 'json' }).$type<PolicyOutcome[]>().notNull(),
    resultCount: text('result_count', { mode: 'json' }).$type<PolicyResultCount>().notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [index('policy_set_outcomes_evaluation').on(t.policyEvaluationId)],
);

export type PlanExportStatus = 'pending' | 'queued' | 'finished' | 'errored' | 'expired' | 'canceled';

/** An export of a plan's data (a sentinel mock bundle, built from the plan's JSON on download). */
export const planExports = sqliteTable(
  'plan_exports',
  {
    id: text('id').primaryKey(),
    planId: text('plan_id')
      .notNull()
      .references(() => runPhases.id, { onDelete: 'cascade' }),
    dataType: text('data_type').notNull(),
    status: text('status').$type<PlanExportStatus>().notNull(),
    statusTimestamps: text('status_timestamps', { mode: 'json' }).$type<Record<string, string>>().notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [index('plan_exports_plan').on(t.planId)],
);
