import { IncludeRegistry } from '../jsonapi/include.js';
import type { ResourceObject } from '../jsonapi/types.js';
import type { TaskResultRow, TaskStageRow } from './runner.js';
import { resultsOfStage, taskResultResource, type TaskStageService } from './service.js';

/** What the task-stage include loaders get: a page of stages and their results, loaded once, and the stages' policy parts. */
interface TaskStagePage {
  stages: readonly TaskStageRow[];
  results: readonly TaskResultRow[];
  /** The stages' evaluations and set outcomes, read once however many includes ask. */
  policyIncludes: () => { evaluations: ResourceObject[]; outcomes: ResourceObject[] };
}

/** What a task stage can include, declared once. */
export const TASK_STAGE_INCLUDES = new IncludeRegistry<TaskStagePage>({
  task_results: ({ stages, results }) =>
    stages.flatMap((stage) => resultsOfStage(results, stage.id).map((r) => taskResultResource(r, stage))),
  policy_evaluations: (page) => page.policyIncludes().evaluations,
  'policy_evaluations.policy_set_outcomes': (page) => {
    const { evaluations, outcomes } = page.policyIncludes();
    return [...evaluations, ...outcomes];
  },
});

/** Task stages as wire objects, in the order of `ids`, with what `wanted` includes; `canOverridePolicy`: the caller's standing. */
export function renderTaskStages(
  service: TaskStageService,
  ids: readonly string[],
  wanted: ReadonlySet<string>,
  canOverridePolicy: boolean,
) {
  const loaded = service.load(ids);
  let policyParts: ReturnType<TaskStagePage['policyIncludes']> | undefined;
  const page: TaskStagePage = {
    ...loaded,
    policyIncludes: () =>
      (policyParts ??= service.runner.policies?.stageIncludes(loaded.stages.map((stage) => stage.id)) ?? { evaluations: [], outcomes: [] }),
  };
  const items: ResourceObject[] = service.resources(page, canOverridePolicy);
  return { items, included: TASK_STAGE_INCLUDES.collect(wanted, page) };
}
