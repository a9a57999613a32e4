import { IncludeRegistry } from '../jsonapi/include.js';
import type { ResourceObject } from '../jsonapi/types.js';
import type { TaskResultRow, TaskStageRow } from './runner.js';
import { resultsOfStage, taskResultResource, taskStageResource, type TaskStageService } from './service.js';

/** What the task-stage include loaders get: a page of stages and their results, loaded once. */
interface TaskStagePage {
  stages: readonly TaskStageRow[];
  results: readonly TaskResultRow[];
}

/** What a task stage can include, declared once. Policy evaluations are accepted (real clients ask) and include nothing. */
export const TASK_STAGE_INCLUDES = new IncludeRegistry<TaskStagePage>({
  task_results: ({ stages, results }) =>
    stages.flatMap((stage) => resultsOfStage(results, stage.id).map((r) => taskResultResource(r, stage))),
  policy_evaluations: () => [],
  'policy_evaluations.policy_set_outcomes': () => [],
});

/** Task stages as wire objects, in the order of `ids`, with what `wanted` includes. */
export function renderTaskStages(service: TaskStageService, ids: readonly string[], wanted: ReadonlySet<string>) {
  const page = service.load(ids);
  const items: ResourceObject[] = page.stages.map((stage) => taskStageResource(stage, resultsOfStage(page.results, stage.id)));
  return { items, included: TASK_STAGE_INCLUDES.collect(wanted, page) };
}
