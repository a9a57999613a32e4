import { and, eq, or, type SQL } from 'drizzle-orm';
import type { Clock } from '../../core/clock.js';
import { canonical } from '../../core/dialect.js';
import { notFound, unprocessable } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { Db } from '../../store/store.js';
import { runs, workspaces, type StoredRunVariable } from '../../store/tables.js';
import { WorkspacePermissions } from '../auth/workspace-permissions.js';
import type { Principal, UserRow } from '../auth/principal.js';
import * as configurationRepo from '../configuration-versions/repo.js';
import type { ConfigurationVersionMeta } from '../configuration-versions/repo.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import { findUserById } from '../users/repo.js';
import { lockerOf } from '../workspaces/locking.js';
import * as workspacesRepo from '../workspaces/repo.js';
import type { Located, WorkspaceService } from '../workspaces/service.js';
import type { RunEngine } from './engine.js';
import * as repo from './repo.js';
import type { RunRow } from './repo.js';
import { actionFlags, APPLIABLE, FORCE_CANCEL_COOL_OFF_MS, isFinal, TRANSITION_REFUSED } from './states.js';

export interface CreateRun {
  configurationVersionId?: string;
  isDestroy?: boolean;
  refresh?: boolean;
  refreshOnly?: boolean;
  planOnly?: boolean;
  autoApply?: boolean;
  allowEmptyApply?: boolean;
  savePlan?: boolean;
  message?: string;
  targetAddrs?: string[];
  replaceAddrs?: string[];
  policyPaths?: string[];
  variables?: StoredRunVariable[];
  terraformVersion?: string;
}

/** How a run came to be: the wire's `source` and the reason shown in `trigger-reason`. */
export interface RunOrigin {
  source: string;
  triggerReason: string;
  message: string;
}

const API_ORIGIN: RunOrigin = { source: 'svc-api', triggerReason: 'manual', message: 'Triggered via API' };

export interface RunListQuery {
  statuses?: string[];
  operations?: string[];
  sources?: string[];
  search?: string;
  workspaceNames?: string[];
}

/** The SQL of one `filter[operation]` value (operations are derived from the run's flags). */
const OPERATIONS: Record<string, SQL | undefined> = {
  plan_only: eq(runs.planOnly, true),
  refresh_only: and(eq(runs.planOnly, false), eq(runs.refreshOnly, true)),
  destroy: and(eq(runs.planOnly, false), eq(runs.refreshOnly, false), eq(runs.isDestroy, true)),
  save_plan: and(eq(runs.planOnly, false), eq(runs.savePlan, true)),
  empty_apply: and(eq(runs.planOnly, false), eq(runs.allowEmptyApply, true)),
  plan_and_apply: and(eq(runs.planOnly, false), eq(runs.refreshOnly, false), eq(runs.isDestroy, false), eq(runs.savePlan, false)),
};

/**
 * Runs as the API sees them: creation with the real validations, lists with their filters, and
 * the actions with the real state checks and 409 texts. Reading a run needs read access to its
 * workspace; queuing needs `can-queue-run` (and `can-queue-apply` to apply, `can-queue-destroy`
 * for a destroy); the engine does the rest.
 */
export class RunService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    readonly workspaces: WorkspaceService,
    readonly engine: RunEngine,
  ) {}

  locate(principal: Principal, id: string): { run: RunRow; located: Located } {
    const run = repo.findRun(this.db, id);
    if (!run) throw NOT_FOUND;
    const located = this.workspaces.locate(principal, run.workspaceId);
    this.workspaces.require(located, 'can-read-settings');
    return { run, located };
  }

  /** `callbackOrigin`: `scheme://host` of the request, where run tasks will call back. */
  create(located: Located, principal: Principal | null, input: CreateRun, origin: RunOrigin = API_ORIGIN, callbackOrigin?: string): RunRow {
    if (principal) this.workspaces.require(located, 'can-queue-run');
    const { workspace } = located;
    const cvId = input.configurationVersionId ?? workspace.currentConfigurationVersionId;
    const pointer = '/data/relationships/configuration-version/data/id';
    if (!cvId) throw unprocessable('the workspace has no configuration version; upload one first', pointer);
    const version = configurationRepo.findConfigurationVersion(this.db, cvId);
    if (!version || version.workspaceId !== workspace.id) throw unprocessable('configuration version not found in this workspace', pointer);
    if (version.status !== 'uploaded') throw unprocessable(`the configuration version is ${version.status}, not uploaded`, pointer);
    const planOnly = version.speculative || (input.planOnly ?? false);
    if (input.isDestroy && input.refreshOnly) {
      throw unprocessable('a run cannot be both a destroy and a refresh-only run', '/data/attributes/refresh-only');
    }
    if (input.isDestroy) {
      if (principal) this.workspaces.require(located, 'can-queue-destroy');
      if (!workspace.allowDestroyPlan)
        throw unprocessable('destroy plans are not allowed in this workspace', '/data/attributes/is-destroy');
    }
    if (input.terraformVersion !== undefined && !planOnly) {
      throw unprocessable('terraform-version can only be set on plan-only runs', '/data/attributes/terraform-version');
    }
    const autoApply = !planOnly && (input.autoApply ?? workspace.autoApply);
    if (autoApply && principal) this.workspaces.require(located, 'can-queue-apply');
    const now = this.clock.now();
    const row: RunRow = {
      id: newId('run'),
      workspaceId: workspace.id,
      organizationId: workspace.organizationId,
      configurationVersionId: version.id,
      sequence: 0,
      status: 'pending',
      source: origin.source,
      triggerReason: origin.triggerReason,
      message: input.message ?? origin.message,
      isDestroy: input.isDestroy ?? false,
      refresh: input.refresh ?? true,
      refreshOnly: input.refreshOnly ?? false,
      planOnly,
      autoApply,
      allowEmptyApply: input.allowEmptyApply ?? false,
      savePlan: input.savePlan ?? false,
      targetAddrs: input.targetAddrs ?? [],
      replaceAddrs: input.replaceAddrs ?? [],
      policyPaths: input.policyPaths ?? [],
      variables: input.variables ?? [],
      terraformVersion: input.terraformVersion ?? workspace.toolVersion,
      hasChanges: false,
      createdBy: principal ? lockerOf(principal) : null,
      confirmedBy: null,
      statusTimestamps: { 'plan-queueable-at': now.toISOString() },
      forceCancelAvailableAt: null,
      progression: this.engine.progressionOf(workspace.id),
      createdAt: now,
    };
    this.db.transaction((tx) => {
      row.sequence = repo.nextRunSequence(tx, workspace.id);
      repo.insertRun(tx, row);
      for (const kind of ['plan', 'apply'] as const) {
        repo.insertPhase(tx, {
          id: newId(kind),
          runId: row.id,
          kind,
          status: 'pending',
          hasChanges: false,
          resourceAdditions: 0,
          resourceChanges: 0,
          resourceDestructions: 0,
          resourceImports: 0,
          log: '',
          jsonOutput: null,
          jsonOutputRedacted: null,
          executionDetails: null,
          statusTimestamps: {},
          createdAt: now,
        });
      }
      const fresh = workspacesRepo.findWorkspace(tx, workspace.id);
      workspacesRepo.updateWorkspace(tx, workspace.id, { latestRunId: row.id, runsCount: (fresh?.runsCount ?? 0) + 1 });
      this.engine.event(tx, row.id, 'queued', row.createdBy);
    });
    this.engine.enqueue(row, callbackOrigin);
    return repo.findRun(this.db, row.id) ?? row;
  }

  /** The run a configuration version's `auto-queue-runs` asks for, on behalf of nobody in particular. */
  autoQueue(version: ConfigurationVersionMeta, callbackOrigin: string): void {
    const workspace = workspacesRepo.findWorkspace(this.db, version.workspaceId);
    if (!workspace) return;
    const located = { workspace } as Located;
    try {
      this.create(
        located,
        null,
        { configurationVersionId: version.id },
        {
          source: 'svc-configuration-version',
          triggerReason: 'manual',
          message: 'Triggered via configuration version',
        },
        callbackOrigin,
      );
    } catch {
      // A workspace that refuses the run (destroy not allowed, …) simply gets none.
    }
  }

  /**
   * A finished apply queues a run in every workspace that names its workspace as a run-trigger
   * source, with that workspace's current configuration; it auto-applies when the workspace's
   * `auto-apply-run-trigger` says so.
   */
  triggered(source: RunRow): void {
    for (const trigger of repo.triggersOf(this.db, 'outbound', source.workspaceId)) {
      const workspace = workspacesRepo.findWorkspace(this.db, trigger.workspaceId);
      if (!workspace?.currentConfigurationVersionId) continue;
      const name = workspacesRepo.findWorkspace(this.db, source.workspaceId)?.name ?? source.workspaceId;
      try {
        this.create(
          { workspace } as Located,
          null,
          { autoApply: workspace.autoApplyRunTrigger || workspace.autoApply },
          { source: 'svc-api', triggerReason: 'run_trigger', message: `Triggered by run ${source.id} in workspace ${name}` },
          this.engine.origins.get(source.id),
        );
      } catch {
        // A destination that refuses the run (no uploaded configuration, …) gets none.
      }
    }
  }

  list(located: Located, query: RunListQuery, offset: number, limit: number) {
    this.workspaces.require(located, 'can-read-settings');
    return repo.listRuns(this.db, this.filter({ workspaceId: located.workspace.id }, query), offset, limit);
  }

  listForOrganization(principal: Principal, organizationName: string, query: RunListQuery, offset: number, limit: number) {
    const { organization, scope } = this.workspaces.organization(principal, organizationName);
    const filter: repo.RunFilter = { organizationId: organization.id };
    // Runs of workspaces the caller cannot read stay out, as the workspaces themselves do.
    const readable = new WorkspacePermissions(this.db).readable(scope);
    if (!readable.all) {
      const where = workspacesRepo.workspaceConditions(this.db, organization.id, readable, {});
      filter.workspaceIds = this.db
        .select({ id: workspaces.id })
        .from(workspaces)
        .where(where)
        .all()
        .map((row) => row.id);
    }
    if (query.workspaceNames?.length) {
      const named = query.workspaceNames.flatMap((name) => {
        const found = workspacesRepo.findWorkspaceByName(this.db, organization.id, name);
        return found ? [found.id] : [];
      });
      filter.workspaceIds = filter.workspaceIds ? filter.workspaceIds.filter((id) => named.includes(id)) : named;
    }
    return { ...repo.listRuns(this.db, this.filter(filter, query), offset, limit), organization, scope };
  }

  private filter(base: repo.RunFilter, query: RunListQuery): repo.RunFilter {
    const operations = (query.operations ?? []).map((operation) => OPERATIONS[operation]).filter((sql): sql is SQL => sql !== undefined);
    const unknownOnly = (query.operations?.length ?? 0) > 0 && operations.length === 0;
    return {
      ...base,
      ...(query.statuses ? { statuses: query.statuses } : {}),
      ...(query.sources ? { sources: query.sources.map(canonical) } : {}),
      ...(query.search ? { search: query.search } : {}),
      // An operation nobody has matches nothing.
      ...(unknownOnly ? { statuses: ['(none)'] } : operations.length > 0 ? { operation: orAll(operations) } : {}),
    };
  }

  // ---- Actions ----------------------------------------------------------------------

  private flags(run: RunRow) {
    return actionFlags(run, this.clock.nowMs());
  }

  apply(principal: Principal, id: string, comment: string | null): void {
    const { run, located } = this.locate(principal, id);
    this.workspaces.require(located, 'can-queue-apply');
    if (!this.flags(run)['is-confirmable'] || !APPLIABLE.has(run.status)) throw TRANSITION_REFUSED.apply();
    this.comment(run.id, principal, comment);
    this.engine.confirm(run.id, lockerOf(principal));
  }

  discard(principal: Principal, id: string, comment: string | null): void {
    const { run, located } = this.locate(principal, id);
    this.workspaces.require(located, 'can-queue-run');
    if (!this.flags(run)['is-discardable']) throw TRANSITION_REFUSED.discard();
    this.comment(run.id, principal, comment);
    this.engine.discard(run.id);
  }

  cancel(principal: Principal, id: string, comment: string | null): void {
    const { run, located } = this.locate(principal, id);
    this.workspaces.require(located, 'can-queue-run');
    if (!this.flags(run)['is-cancelable']) throw TRANSITION_REFUSED.cancel();
    this.comment(run.id, principal, comment);
    repo.updateRun(this.db, run.id, { forceCancelAvailableAt: new Date(this.clock.nowMs() + FORCE_CANCEL_COOL_OFF_MS) });
    this.engine.cancel(run.id, false);
  }

  forceCancel(principal: Principal, id: string, comment: string | null): void {
    const { run, located } = this.locate(principal, id);
    this.workspaces.require(located, 'can-queue-run');
    if (!this.flags(run)['is-force-cancelable']) throw TRANSITION_REFUSED.forceCancel();
    this.comment(run.id, principal, comment);
    this.engine.cancel(run.id, true);
  }

  /** A site administrator's force-cancel (`/admin/runs/:id/actions/force-cancel`): any unfinished run, no cool-off. */
  adminForceCancel(principal: Principal, id: string, comment: string | null): void {
    const run = repo.findRun(this.db, id);
    if (!run) throw NOT_FOUND;
    if (isFinal(run.status)) throw TRANSITION_REFUSED.forceCancel();
    this.comment(run.id, principal, comment);
    this.engine.cancel(run.id, true);
  }

  forceExecute(principal: Principal, id: string): void {
    const { run, located } = this.locate(principal, id);
    this.workspaces.require(located, 'can-queue-run');
    const holder = located.workspace.lockedBy;
    if (run.status !== 'pending' || run.planOnly || (holder !== null && holder.kind !== 'run')) throw TRANSITION_REFUSED.forceExecute();
    this.engine.forceExecute(run);
  }

  private comment(runId: string, principal: Principal, body: string | null): void {
    if (!body) return;
    repo.insertComment(this.db, { id: newId('wsc'), runId, body, createdBy: lockerOf(principal), createdAt: this.clock.now() });
  }

  isFinal(run: RunRow): boolean {
    return isFinal(run.status);
  }

  /** The plans and applies of these runs (for rendering; no permission check). */
  phasesOf(runIds: readonly string[]): repo.PhaseRow[] {
    return repo.phasesOf(this.db, runIds);
  }
  /** The user who queued the run, when a user did (the `created_by` include). */
  creatorOf(run: RunRow): UserRow | undefined {
    return run.createdBy?.kind === 'user' ? findUserById(this.db, run.createdBy.id) : undefined;
  }

  /** A plan or apply by id, readable with its run. */
  phase(principal: Principal, id: string, kind: 'plan' | 'apply'): repo.PhaseRow {
    const phase = repo.findPhase(this.db, id);
    if (!phase || phase.kind !== kind) throw NOT_FOUND;
    this.locate(principal, phase.runId);
    return phase;
  }

  /** The plan's JSON for a run task service of `taskRunId` (its payload's access token): that run's plan only. */
  taskPlanJson(taskRunId: string, id: string, byRun: boolean, redacted = false): Buffer {
    const phase = byRun ? repo.phasesOf(this.db, [id]).find((row) => row.kind === 'plan') : repo.findPhase(this.db, id);
    if (!phase || phase.kind !== 'plan' || phase.runId !== taskRunId) throw NOT_FOUND;
    return planOutput(phase, redacted);
  }

  /** The configuration version id of `taskRunId`, the one its task service's access token may download. */
  taskConfigurationVersion(taskRunId: string): string | undefined {
    return repo.findRun(this.db, taskRunId)?.configurationVersionId;
  }

  /** The plan's JSON (`terraform show -json`), by plan id or run id; reading it needs the right to queue applies, as for real. */
  planJson(principal: Principal, id: string, byRun: boolean, redacted = false): Buffer {
    const phase = byRun ? repo.phasesOf(this.db, [id]).find((row) => row.kind === 'plan') : repo.findPhase(this.db, id);
    if (!phase || phase.kind !== 'plan') throw NOT_FOUND;
    const { located } = this.locate(principal, phase.runId);
    this.workspaces.require(located, 'can-read-state-versions');
    return planOutput(phase, redacted);
  }
}

/**
 * A finished plan's JSON: `terraform show -json`, or the redacted plan with provider schemas the
 * CLI draws structured run output from (`json-output-redacted`).
 */
function planOutput(phase: repo.PhaseRow, redacted: boolean): Buffer {
  const output = redacted ? phase.jsonOutputRedacted : phase.jsonOutput;
  if (!output)
    throw notFound(phase.jsonOutput ? 'the plan has no redacted JSON output' : 'the plan has no JSON output (it has not finished)');
  return output;
}

function orAll(parts: SQL[]): SQL {
  return parts.length === 1 ? parts[0]! : (or(...parts) as SQL);
}
