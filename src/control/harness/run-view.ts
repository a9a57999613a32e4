import { and, asc, eq } from 'drizzle-orm';
import type { PlatformContext } from '../../platform/context.js';
import { eventsOf, findRun, listRuns, phasesOf, type PhaseRow, type RunRow } from '../../platform/runs/repo.js';
import type { Db } from '../../store/store.js';
import { organizations, policyChecks, workspaces } from '../../store/tables.js';

/** Runs the list shows; `total` says how many match. */
const SHOWN = 100;

const STAGE_ORDER = ['pre_plan', 'post_plan', 'pre_apply', 'post_apply'];

/** The run list's filter: a workspace as `organization/name` or its id, or a whole organization. */
export interface RunListFilter {
  workspace?: string;
  organization?: string;
}

/** Where a run list points: the workspace or organization it names, or null when it names none. */
function scopeOf(db: Db, filter: RunListFilter): { workspaceId?: string; organizationId?: string } | null {
  if (filter.workspace) {
    const [organization, name] = filter.workspace.includes('/') ? filter.workspace.split('/', 2) : [undefined, undefined];
    const found = db
      .select({ id: workspaces.id })
      .from(workspaces)
      .innerJoin(organizations, eq(organizations.id, workspaces.organizationId))
      .where(
        organization !== undefined && name !== undefined
          ? and(eq(organizations.name, organization), eq(workspaces.name, name))
          : eq(workspaces.id, filter.workspace),
      )
      .get();
    return found ? { workspaceId: found.id } : null;
  }
  if (filter.organization) {
    const found = db.select({ id: organizations.id }).from(organizations).where(eq(organizations.name, filter.organization)).get();
    return found ? { organizationId: found.id } : null;
  }
  return {};
}

function workspaceNames(db: Db, workspaceId: string): { organization: string; workspace: string } {
  const found = db
    .select({ workspace: workspaces.name, organization: organizations.name })
    .from(workspaces)
    .innerJoin(organizations, eq(organizations.id, workspaces.organizationId))
    .where(eq(workspaces.id, workspaceId))
    .get();
  return found ?? { organization: '', workspace: '' };
}

const summaryOf = (db: Db, run: RunRow) => ({
  id: run.id,
  ...workspaceNames(db, run.workspaceId),
  status: run.status,
  'created-at': run.createdAt.toISOString(),
  message: run.message,
  source: run.source,
  'plan-only': run.planOnly,
  'is-destroy': run.isDestroy,
});

/**
 * The inspector's run list, newest first (as the API lists runs). Like the world overview it
 * reads past any caller's permissions, so it lives behind the control plane's guard.
 */
export function runList(db: Db, filter: RunListFilter): { total: number; rows: ReturnType<typeof summaryOf>[] } | null {
  const scope = scopeOf(db, filter);
  if (scope === null) return null;
  const { rows, total } = listRuns(db, scope, 0, SHOWN);
  return { total, rows: rows.map((run) => summaryOf(db, run)) };
}

/** A status-timestamps object as a timeline, oldest first: `plan-queued-at` becomes `plan_queued`. */
function timeline(timestamps: Record<string, string>) {
  return Object.entries(timestamps)
    .map(([key, at]) => ({ status: key.replace(/-at$/, '').replace(/-/g, '_'), at }))
    .sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
}

const STX = '\u0002';
const ETX = '\u0003';
const withoutMarks = (stream: string) => {
  const opened = stream.startsWith(STX) ? stream.slice(1) : stream;
  return opened.endsWith(ETX) ? opened.slice(0, -1) : opened;
};

/** A phase with its log as a reader of `log-read-url` sees it, without the stream's STX/ETX marks. */
function phaseView(context: PlatformContext, phase: PhaseRow | undefined) {
  if (!phase) return null;
  const stream = context.services.runLogs.stream(phase.id) ?? '';
  return {
    id: phase.id,
    status: phase.status,
    'resource-additions': phase.resourceAdditions,
    'resource-changes': phase.resourceChanges,
    'resource-destructions': phase.resourceDestructions,
    'resource-imports': phase.resourceImports,
    timeline: timeline(phase.statusTimestamps),
    // The executors mask sensitive values as they write the log, so it is safe to show as it is.
    log: withoutMarks(stream),
  };
}

function taskStagesOf(context: PlatformContext, runId: string) {
  const { taskStages } = context.services;
  const ids = taskStages.stageIdsOf([runId]).get(runId) ?? [];
  return ids
    .flatMap((id) => {
      const stage = taskStages.findStage(id);
      return stage ? [stage] : [];
    })
    .sort((a, b) => STAGE_ORDER.indexOf(a.stage) - STAGE_ORDER.indexOf(b.stage))
    .map((stage) => ({
      id: stage.id,
      stage: stage.stage,
      status: stage.status,
      // The task's own URL and the callback token stay out: only what the run page shows.
      results: taskStages.runner.resultsOf([stage.id]).map((result) => ({
        task: result.taskName,
        'enforcement-level': result.enforcementLevel,
        status: result.status,
        message: result.message,
        url: result.url,
      })),
    }));
}

function policyChecksOf(db: Db, runId: string) {
  return db
    .select()
    .from(policyChecks)
    .where(eq(policyChecks.runId, runId))
    .orderBy(asc(policyChecks.createdAt))
    .all()
    .map((check) => ({
      id: check.id,
      status: check.status,
      passed: check.result.passed,
      'hard-failed': check.result['hard-failed'],
      'soft-failed': check.result['soft-failed'],
      'advisory-failed': check.result['advisory-failed'],
      output: check.result.lines,
    }));
}

/** Everything the inspector's run view shows: the run, its timeline and events, logs, task stages, policy checks. */
export function runDetail(context: PlatformContext, runId: string) {
  const { db } = context.store;
  const run = findRun(db, runId);
  if (!run) return null;
  const phases = phasesOf(db, [run.id]);
  return {
    ...summaryOf(db, run),
    'trigger-reason': run.triggerReason,
    'auto-apply': run.autoApply,
    timeline: timeline(run.statusTimestamps),
    events: eventsOf(db, run.id).map((event) => ({
      action: event.action,
      at: event.createdAt.toISOString(),
      actor: event.actor ? `${event.actor.kind} ${event.actor.id}` : null,
      description: event.description,
    })),
    plan: phaseView(
      context,
      phases.find((phase) => phase.kind === 'plan'),
    ),
    apply: phaseView(
      context,
      phases.find((phase) => phase.kind === 'apply'),
    ),
    'task-stages': taskStagesOf(context, run.id),
    'policy-checks': policyChecksOf(db, run.id),
  };
}
