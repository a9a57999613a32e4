import type { Clock } from '../../core/clock.js';
import type { Dialect } from '../../core/dialect.js';
import type { Principal } from '../auth/principal.js';
import type { Db } from '../../store/store.js';
import { configurationVersionResource } from '../configuration-versions/resource.js';
import type { ConfigurationVersionService } from '../configuration-versions/service.js';
import type { ResourceObject } from '../jsonapi/types.js';
import type { WorkspaceService } from '../workspaces/service.js';
import type { WorkspaceIncludeLoader, WorkspacePage } from '../workspaces/view.js';
import type { RunActivityService } from './activity.js';
import type { LogBook } from './logs.js';
import * as repo from './repo.js';
import { phaseResource, runResource } from './resource.js';

export interface CurrentRunIncludeParts {
  db: Db;
  clock: Clock;
  dialect: Dialect;
  workspaces: WorkspaceService;
  configurationVersions: ConfigurationVersionService;
  runLogs: LogBook;
  // Task stages and policy checks import runs, so runs names only the two questions it asks them.
  taskStages: { stageIdsOf(runIds: readonly string[]): Map<string, string[]> };
  runActivity: RunActivityService;
  policyChecks: { canOverrideFor(principal: Principal, organizationId: string): boolean };
}

type CurrentRunInclude =
  'current_run' | 'current_run.plan' | 'current_run.configuration_version' | 'current_run.configuration_version.ingress_attributes';

/**
 * `include=current_run` (and its nested forms) on the workspace GET endpoints: each workspace's
 * current run rendered as `GET /runs/:id` renders it for the same caller, plus its plan or
 * configuration version when the nested name asks for them.
 */
export function currentRunIncludes(parts: CurrentRunIncludeParts): Record<CurrentRunInclude, WorkspaceIncludeLoader> {
  const runsOf = (page: WorkspacePage) => {
    const ids = page.rows.flatMap((row) => (row.currentRunId ? [row.currentRunId] : []));
    const runs = repo.findRuns(parts.db, ids);
    const phases = repo.phasesOf(
      parts.db,
      runs.map((run) => run.id),
    );
    const { taskStages, runActivity, policyChecks } = parts;
    const stages = taskStages.stageIdsOf(runs.map((run) => run.id));
    const canOverride = policyChecks.canOverrideFor(page.principal, page.organization.id);
    return runs.map((run) => {
      const plan = phases.find((phase) => phase.runId === run.id && phase.kind === 'plan');
      const apply = phases.find((phase) => phase.runId === run.id && phase.kind === 'apply');
      const resource = runResource(run, {
        dialect: parts.dialect,
        nowMs: parts.clock.nowMs(),
        located: parts.workspaces.locate(page.principal, run.workspaceId),
        plan,
        apply,
        taskStageIds: stages.get(run.id) ?? [],
        commentIds: runActivity.commentIdsOf(run.id),
        positionInQueue: 0,
        canOverridePolicyCheck: canOverride,
      });
      return { run, resource, plan };
    });
  };
  const withVersion = (page: WorkspacePage): ResourceObject[] =>
    runsOf(page).flatMap(({ run, resource }) => {
      const version = parts.configurationVersions.find(run.configurationVersionId);
      return version ? [resource, configurationVersionResource(version, parts.dialect)] : [resource];
    });
  return {
    current_run: (page) => runsOf(page).map(({ resource }) => resource),
    'current_run.plan': (page) =>
      runsOf(page).flatMap(({ resource, plan }) =>
        plan ? [resource, phaseResource(plan, page.origin + parts.runLogs.path(plan.id))] : [resource],
      ),
    'current_run.configuration_version': withVersion,
    'current_run.configuration_version.ingress_attributes': withVersion,
  };
}
