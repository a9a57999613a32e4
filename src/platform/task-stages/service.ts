import { eq } from 'drizzle-orm';
import { inList } from '../../store/sql-lists.js';
import { isoTimestamp } from '../../core/clock.js';
import type { Db } from '../../store/store.js';
import { taskResults, taskStages } from '../../store/tables.js';
import type { ResourceObject } from '../jsonapi/types.js';
import type { TaskResultRow, TaskStageRow, TaskStageRunner } from './runner.js';

const timestamps = (row: { createdAt: Date; statusTimestamps: Record<string, string> }) => ({
  'created-at': isoTimestamp(row.createdAt),
  'updated-at': Object.values(row.statusTimestamps).sort().at(-1) ?? isoTimestamp(row.createdAt),
});

export function taskResultResource(result: TaskResultRow, stage: Pick<TaskStageRow, 'id' | 'stage'>): ResourceObject {
  return {
    id: result.id,
    type: 'task-results',
    attributes: {
      message: result.message,
      status: result.status,
      'status-timestamps': result.statusTimestamps,
      url: result.url,
      'task-id': result.taskId,
      'task-name': result.taskName,
      'task-url': result.taskUrl,
      stage: stage.stage,
      'workspace-task-id': result.workspaceTaskId,
      'workspace-task-enforcement-level': result.enforcementLevel,
      ...timestamps(result),
    },
    relationships: { 'task-stage': { data: { id: stage.id, type: 'task-stages' } } },
    links: { self: `/api/v2/task-results/${result.id}` },
  };
}

/** What the stage's `actions` and `permissions` show: whether it waits for an override, and whether the caller may give it. */
export interface StageStanding {
  overridable: boolean;
  canOverridePolicy: boolean;
}

export function taskStageResource(
  stage: TaskStageRow,
  results: readonly TaskResultRow[],
  evaluationIds: readonly string[] = [],
  standing: StageStanding = { overridable: false, canOverridePolicy: false },
): ResourceObject {
  return {
    id: stage.id,
    type: 'task-stages',
    attributes: {
      stage: stage.stage,
      status: stage.status,
      'status-timestamps': stage.statusTimestamps,
      actions: { 'is-overridable': standing.overridable },
      // Only policy failures are overridden here; a failed mandatory task ends the run.
      permissions: {
        'can-override-policy': standing.canOverridePolicy,
        'can-override-tasks': false,
        'can-override': standing.canOverridePolicy,
      },
      ...timestamps(stage),
    },
    relationships: {
      run: { data: { id: stage.runId, type: 'runs' } },
      'task-results': { data: results.map((result) => ({ id: result.id, type: 'task-results' })) },
      'policy-evaluations': { data: evaluationIds.map((id) => ({ id, type: 'policy-evaluations' })) },
    },
    links: { self: `/api/v2/task-stages/${stage.id}` },
  };
}

export const resultsOfStage = (results: readonly TaskResultRow[], stageId: string) =>
  results.filter((result) => result.taskStageId === stageId);

/** Task stages and results as the API shows them; the runner (runner.ts) drives them. */
export class TaskStageService {
  constructor(
    private readonly db: Db,
    readonly runner: TaskStageRunner,
  ) {}

  /** Stage ids per run, in stage order. */
  stageIdsOf(runIds: readonly string[]): Map<string, string[]> {
    const byRun = new Map<string, string[]>();
    if (runIds.length === 0) return byRun;
    const rows = this.db
      .select({ id: taskStages.id, runId: taskStages.runId })
      .from(taskStages)
      .where(inList(taskStages.runId, [...runIds]))
      .all();
    for (const row of rows) byRun.set(row.runId, [...(byRun.get(row.runId) ?? []), row.id]);
    return byRun;
  }

  findStage(id: string): TaskStageRow | undefined {
    return this.db.select().from(taskStages).where(eq(taskStages.id, id)).get();
  }

  findResult(id: string): TaskResultRow | undefined {
    return this.db.select().from(taskResults).where(eq(taskResults.id, id)).get();
  }

  /** The stages of `ids` that exist, in that order, with their results: one query for each. */
  load(ids: readonly string[]): { stages: TaskStageRow[]; results: TaskResultRow[] } {
    if (ids.length === 0) return { stages: [], results: [] };
    const byId = new Map(
      this.db
        .select()
        .from(taskStages)
        .where(inList(taskStages.id, [...ids]))
        .all()
        .map((stage) => [stage.id, stage]),
    );
    const stages = ids.flatMap((id) => byId.get(id) ?? []);
    return { stages, results: this.runner.resultsOf(stages.map((stage) => stage.id)) };
  }

  /** The stages (with their results' and evaluations' ids) as resources, in the order of `ids`; `canOverridePolicy`: the caller's. */
  render(ids: readonly string[], canOverridePolicy = false): ResourceObject[] {
    return this.resources(this.load(ids), canOverridePolicy);
  }

  /** Loaded stages as resources: their evaluations' ids in one query, whether each waits for an override. */
  resources(
    { stages, results }: { stages: readonly TaskStageRow[]; results: readonly TaskResultRow[] },
    canOverridePolicy: boolean,
  ): ResourceObject[] {
    const evaluations = this.runner.policies?.idsOf(stages.map((stage) => stage.id)) ?? new Map<string, string[]>();
    return stages.map((stage) =>
      taskStageResource(stage, resultsOfStage(results, stage.id), evaluations.get(stage.id) ?? [], {
        overridable: this.runner.isOverridable(stage),
        canOverridePolicy,
      }),
    );
  }
}
