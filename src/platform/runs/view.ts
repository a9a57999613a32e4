import type { Clock } from '../../core/clock.js';
import type { Dialect } from '../../core/dialect.js';
import type { Edition } from '../../core/edition.js';
import type { DbOrTx } from '../../store/store.js';
import type { OrganizationRow, Principal } from '../auth/principal.js';
import { WorkspacePermissions, type CallerScope } from '../auth/workspace-permissions.js';
import { findConfigurationVersions } from '../configuration-versions/repo.js';
import { configurationVersionResource } from '../configuration-versions/resource.js';
import { IncludeRegistry, Included } from '../jsonapi/include.js';
import type { ResourceObject } from '../jsonapi/types.js';
import { findUsersByIds } from '../teams/repo.js';
import { userResource } from '../users/resource.js';
import { organizationServiceAccount } from '../users/service.js';
import { findWorkspaces } from '../workspaces/repo.js';
import type { RenderOptions } from '../workspaces/resource.js';
import type { Located, WorkspaceService } from '../workspaces/service.js';
import type { WorkspaceIncludeLoader, WorkspacePage, WorkspaceViews } from '../workspaces/view.js';
import * as repo from './repo.js';
import type { PhaseRow, RunRow } from './repo.js';
import { phaseResource, runResource } from './resource.js';

/** What `include` may name on a run (the CLI asks for `task_stages`, `workspace`, `plan`). */
export const RUN_INCLUDES = [
  'plan',
  'apply',
  'created_by',
  'cost_estimate',
  'configuration_version',
  'configuration_version.ingress_attributes',
  'workspace',
  'task_stages',
] as const;

type RunIncludeName = (typeof RUN_INCLUDES)[number];

/** A page of runs of one organization as the include loaders see it: what rendering the page already loaded. */
export interface RunPage {
  principal: Principal;
  organization: OrganizationRow;
  scope: CallerScope;
  runs: readonly RunRow[];
  phases: readonly PhaseRow[];
  stageIds: ReadonlyMap<string, string[]>;
  /** Whether the caller may override policies (task stages' and policy checks' permissions). */
  canOverridePolicy: boolean;
  /** The request's dialect, edition and origin (phases' log links are absolute). */
  options: RenderOptions;
}

/** What rendering runs needs from other domains; the platform's door passes them in. */
export interface RunViewParts {
  db: DbOrTx;
  clock: Clock;
  dialect: Dialect;
  edition: Edition;
  workspaces: WorkspaceService;
  runLogs: { path(phaseId: string): string };
  // Task stages and policy checks import runs, so runs names only the questions it asks them.
  taskStages: {
    stageIdsOf(runIds: readonly string[]): Map<string, string[]>;
    render(ids: readonly string[], canOverridePolicy: boolean): ResourceObject[];
  };
  policyChecks: { canOverrideFor(principal: Principal, organizationId: string): boolean };
  /** The workspace view, made after this one (its `current_run` include renders runs here). */
  workspaceViews: () => WorkspaceViews;
}

type CurrentRunInclude =
  'current_run' | 'current_run.plan' | 'current_run.configuration_version' | 'current_run.configuration_version.ingress_attributes';

const phaseOf = (page: RunPage, kind: 'plan' | 'apply') => page.phases.filter((phase) => phase.kind === kind);

/**
 * Runs as wire objects, and what `include` adds to them: the run show, the workspace and
 * organization run lists and the queue, and a workspace's `current_run`. Everything a page needs
 * is loaded for the whole page, one query per kind (phases, stages, comments, queue positions,
 * and each include), so a page costs the same whatever its size.
 */
export class RunViews {
  readonly includes: IncludeRegistry<RunPage>;
  /** A workspace page's current runs, rendered once however many `current_run…` names it asks for. */
  private readonly currentRuns = new WeakMap<WorkspacePage, { page: RunPage; items: ResourceObject[] }>();

  constructor(private readonly parts: RunViewParts) {
    const { db, dialect, runLogs } = parts;
    const phases = (kind: 'plan' | 'apply') => (page: RunPage) =>
      phaseOf(page, kind).map((phase) => phaseResource(phase, page.options.origin + runLogs.path(phase.id)));
    const loaders: Record<RunIncludeName, (page: RunPage) => readonly (ResourceObject | null | undefined)[]> = {
      plan: phases('plan'),
      apply: phases('apply'),
      created_by: ({ runs, organization }) => {
        const users = findUsersByIds(db, [...new Set(runs.flatMap((run) => (run.createdBy?.kind === 'user' ? [run.createdBy.id] : [])))]);
        return runs.map((run) => {
          if (run.createdBy?.kind === 'user') {
            const user = users.get(run.createdBy.id);
            return user && userResource(user);
          }
          return run.createdBy?.kind === 'organization' ? userResource(organizationServiceAccount(organization)) : null;
        });
      },
      cost_estimate: () => [],
      configuration_version: ({ runs }) =>
        findConfigurationVersions(db, [
          ...new Set(runs.flatMap((run) => (run.configurationVersionId ? [run.configurationVersionId] : []))),
        ]).map((version) => configurationVersionResource(version, dialect)),
      // Accepted, as the CLI sends it; ingress attributes (VCS metadata) are not modelled.
      'configuration_version.ingress_attributes': () => [],
      // Read afresh: a run just created changed its workspace (current run, lock).
      workspace: ({ runs, organization, scope, options }) =>
        parts.workspaceViews().render(scope, organization, findWorkspaces(db, [...new Set(runs.map((run) => run.workspaceId))]), options),
      task_stages: ({ runs, stageIds, canOverridePolicy }) =>
        parts.taskStages.render(
          runs.flatMap((run) => stageIds.get(run.id) ?? []),
          canOverridePolicy,
        ),
    };
    this.includes = new IncludeRegistry<RunPage>(loaders);
  }

  /** The request's `include`, each value checked (400 "Invalid include parameter" otherwise). */
  read(query: unknown): Set<string> {
    return this.includes.read(query as Record<string, unknown>);
  }

  /** Runs of one workspace (a show, a create, the workspace's list). */
  render(
    principal: Principal,
    located: Located,
    runs: readonly RunRow[],
    options: RenderOptions,
    wanted: ReadonlySet<string>,
  ): { items: ResourceObject[]; included: Included } {
    const byWorkspace = new Map([[located.workspace.id, located]]);
    return this.renderPage(principal, located.organization, located.scope, byWorkspace, runs, options, wanted);
  }

  /** Runs of any workspaces of one organization (its run list and queue), each with the caller's standing on its workspace. */
  renderForOrganization(
    principal: Principal,
    organization: OrganizationRow,
    scope: CallerScope,
    runs: readonly RunRow[],
    options: RenderOptions,
    wanted: ReadonlySet<string>,
  ): { items: ResourceObject[]; included: Included } {
    const located = this.parts.workspaces.locateAll(
      organization,
      scope,
      runs.map((run) => run.workspaceId),
    );
    return this.renderPage(principal, organization, scope, located, runs, options, wanted);
  }

  /** The `current_run` includes of workspaces: each current run as `GET /runs/:id` renders it for the same caller. */
  workspaceIncludes(): Record<CurrentRunInclude, WorkspaceIncludeLoader> {
    const withNested = (name: RunIncludeName) => (workspaces: WorkspacePage) => {
      const { page, items } = this.currentRunsOf(workspaces);
      return [...items, ...(this.includes.collect(new Set([name]), page).toArray() ?? [])];
    };
    return {
      current_run: (workspaces) => this.currentRunsOf(workspaces).items,
      'current_run.plan': withNested('plan'),
      'current_run.configuration_version': withNested('configuration_version'),
      'current_run.configuration_version.ingress_attributes': withNested('configuration_version'),
    };
  }

  private currentRunsOf(workspaces: WorkspacePage): { page: RunPage; items: ResourceObject[] } {
    const known = this.currentRuns.get(workspaces);
    if (known) return known;
    const { db } = this.parts;
    const { principal, organization } = workspaces;
    const runs = repo.findRuns(
      db,
      workspaces.rows.flatMap((row) => (row.currentRunId ? [row.currentRunId] : [])),
    );
    const scope = new WorkspacePermissions(db).scope(principal, organization.id);
    const options = { dialect: this.parts.dialect, edition: this.parts.edition, origin: workspaces.origin };
    const located = this.parts.workspaces.locateAll(
      organization,
      scope,
      runs.map((run) => run.workspaceId),
    );
    const rendered = this.pageOf(principal, organization, scope, located, runs, options);
    this.currentRuns.set(workspaces, rendered);
    return rendered;
  }

  private renderPage(
    principal: Principal,
    organization: OrganizationRow,
    scope: CallerScope,
    located: ReadonlyMap<string, Located>,
    runs: readonly RunRow[],
    options: RenderOptions,
    wanted: ReadonlySet<string>,
  ): { items: ResourceObject[]; included: Included } {
    const { page, items } = this.pageOf(principal, organization, scope, located, runs, options);
    return { items, included: runs.length > 0 ? this.includes.collect(wanted, page) : new Included() };
  }

  private pageOf(
    principal: Principal,
    organization: OrganizationRow,
    scope: CallerScope,
    located: ReadonlyMap<string, Located>,
    all: readonly RunRow[],
    options: RenderOptions,
  ): { page: RunPage; items: ResourceObject[] } {
    const { db, dialect, clock } = this.parts;
    // A run whose workspace is gone (deleted since the list was read) is left out.
    const runs = all.filter((run) => located.has(run.workspaceId));
    const ids = runs.map((run) => run.id);
    const phases = repo.phasesOf(db, ids);
    const stageIds = this.parts.taskStages.stageIdsOf(ids);
    const comments = repo.commentIdsOfRuns(db, ids);
    const positions = this.queuePositions(runs);
    const canOverridePolicyCheck = runs.length > 0 && this.parts.policyChecks.canOverrideFor(principal, organization.id);
    const nowMs = clock.nowMs();
    const items = runs.map((run) =>
      runResource(run, {
        dialect,
        nowMs,
        located: located.get(run.workspaceId) as Located,
        plan: phases.find((phase) => phase.runId === run.id && phase.kind === 'plan'),
        apply: phases.find((phase) => phase.runId === run.id && phase.kind === 'apply'),
        taskStageIds: stageIds.get(run.id) ?? [],
        commentIds: comments.get(run.id) ?? [],
        positionInQueue: positions.get(run.id) ?? 0,
        canOverridePolicyCheck,
      }),
    );
    return { page: { principal, organization, scope, runs, phases, stageIds, canOverridePolicy: canOverridePolicyCheck, options }, items };
  }

  /**
   * How many runs must start before each run waiting `pending` in its workspace's queue: the
   * unfinished, non-speculative runs queued ahead of it there, saved plans only once confirmed (0
   * for every other run).
   */
  private queuePositions(runs: readonly RunRow[]): Map<string, number> {
    const waiting = runs.filter((run) => run.status === 'pending' && !run.planOnly && !run.savePlan);
    const positions = new Map<string, number>();
    if (waiting.length === 0) return positions;
    const unfinished = repo.unfinishedIn(this.parts.db, [...new Set(waiting.map((run) => run.workspaceId))]);
    for (const run of waiting) {
      positions.set(run.id, unfinished.filter((other) => other.workspaceId === run.workspaceId && other.sequence < run.sequence).length);
    }
    return positions;
  }
}
