import { inArray } from 'drizzle-orm';
import type { Db } from '../../store/store.js';
import { taskStages } from '../../store/tables.js';
import type { ResourceObject } from '../jsonapi/types.js';

/** Task stages of runs: which exist for a run and how they render (the runner drives them). */
export class TaskStageService {
  constructor(private readonly db: Db) {}

  /** Stage ids per run, in stage order. */
  stageIdsOf(runIds: readonly string[]): Map<string, string[]> {
    const byRun = new Map<string, string[]>();
    if (runIds.length === 0) return byRun;
    const rows = this.db
      .select({ id: taskStages.id, runId: taskStages.runId })
      .from(taskStages)
      .where(inArray(taskStages.runId, [...runIds]))
      .all();
    for (const row of rows) byRun.set(row.runId, [...(byRun.get(row.runId) ?? []), row.id]);
    return byRun;
  }

  render(_ids: readonly string[]): ResourceObject[] {
    return [];
  }
}
