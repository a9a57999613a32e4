import { isoTimestamp, type Clock } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import type { ApplyOutcome, PlanOutcome } from '../../adapters/executor/index.js';
import type { Db, DbOrTx } from '../../store/store.js';
import type { ExecutionDetails, PrincipalLocker } from '../../store/tables.js';
import type { StateVersionService } from '../state-versions/service.js';
import type { WorkspaceLocks } from '../workspaces/locking.js';
import * as workspacesRepo from '../workspaces/repo.js';
import type { TransitionEvents } from './events.js';
import { assertMove, isRunStatus, timestampKey, type FinalRunStatus, type RunStatus } from './lifecycle.js';
import type { LogBook } from './logs.js';
import * as repo from './repo.js';
import type { PhaseRow, RunRow } from './repo.js';
import { isFinal } from './states.js';

export type PhaseKind = 'plan' | 'apply';

/** Thrown when a run has gone (a reset wiped the store) while its work was on its way. */
export class RunGone extends Error {}

const FINAL_PHASE = new Set(['finished', 'errored', 'canceled', 'unreachable', 'force_canceled']);

/**
 * What a run's progress writes: its status (only the moves the lifecycle table allows, each in one
 * transaction with its event, then told to the transition listeners), its phases and their logs,
 * and the workspace's records of it (current run, plan and apply durations, failures). Nothing here
 * decides what happens next; the engine does.
 */
export class RunRecords {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly logs: LogBook,
    private readonly stateVersions: StateVersionService,
    private readonly locks: WorkspaceLocks,
    private readonly events: TransitionEvents,
  ) {}

  mustRun(runId: string): RunRow {
    const run = repo.findRun(this.db, runId);
    if (!run) throw new RunGone('the run is gone');
    return run;
  }

  phase(runId: string, kind: PhaseKind): PhaseRow {
    const phase = repo.findPhaseOf(this.db, runId, kind);
    if (!phase) throw new Error(`the run has no ${kind}`);
    return phase;
  }

  /** Who carries out the phase (agent mode): recorded as it starts, shown as `execution-details`. */
  recordExecution(runId: string, kind: PhaseKind, details: ExecutionDetails): void {
    repo.updatePhase(this.db, this.phase(runId, kind).id, { executionDetails: details });
  }

  /** Tells the listeners about a run just created (it starts `pending`, from nothing). */
  created(run: RunRow): void {
    this.events.emit({ run, from: null, to: 'pending' });
  }

  /**
   * Moves a run (and optionally its phases) to a status the table allows from its current one,
   * stamping `<status>-at`, in one transaction; a refused move changes nothing and throws.
   */
  transition(runId: string, to: RunStatus, changes: Partial<RunRow> = {}, phases: Partial<Record<PhaseKind, string>> = {}): RunRow {
    const at = isoTimestamp(this.clock.now());
    const from = this.db.transaction((tx) => {
      const run = repo.findRun(tx, runId);
      if (!run) throw new RunGone('the run is gone');
      assertMove(run.status, to);
      repo.updateRun(tx, runId, { ...changes, status: to, statusTimestamps: { ...run.statusTimestamps, [timestampKey(to)]: at } });
      for (const [kind, phaseStatus] of Object.entries(phases)) this.setPhase(tx, runId, kind as PhaseKind, phaseStatus);
      this.event(tx, runId, to, null);
      return run.status;
    });
    return this.told(runId, from, to);
  }

  /**
   * Ends a run: its final status, phases that will never run marked so (their logs complete), the
   * workspace lock released if the run held it, a failure counted. A run already ended stays as it
   * is (undefined is returned).
   */
  finish(runId: string, status: FinalRunStatus): RunRow | undefined {
    const at = isoTimestamp(this.clock.now());
    const from = this.db.transaction((tx) => {
      const current = repo.findRun(tx, runId);
      if (!current || isFinal(current.status)) return undefined;
      assertMove(current.status, status);
      repo.updateRun(tx, runId, { status, statusTimestamps: { ...current.statusTimestamps, [timestampKey(status)]: at } });
      for (const phase of repo.phasesOf(tx, [runId])) {
        if (FINAL_PHASE.has(phase.status)) continue;
        const phaseStatus = phase.status === 'running' ? (status === 'errored' ? 'errored' : 'canceled') : 'unreachable';
        const log = phase.status === 'running' ? this.logs.text(phase.id) || phase.log : phase.log;
        this.setPhase(tx, runId, phase.kind, phaseStatus, { log });
        this.logs.forget(phase.id);
      }
      this.locks.releaseRun(tx, current.workspaceId, runId);
      if (status === 'errored') {
        const workspace = workspacesRepo.findWorkspace(tx, current.workspaceId);
        if (workspace) workspacesRepo.updateWorkspace(tx, current.workspaceId, { runFailures: workspace.runFailures + 1 });
      }
      this.event(tx, runId, status, null);
      return current.status;
    });
    return from === undefined ? undefined : this.told(runId, from, status);
  }

  /** The queue's next run becomes the workspace's current run and holds its lock. */
  makeCurrent(runId: string, workspaceId: string): void {
    this.db.transaction((tx) => {
      this.locks.takeForRun(tx, workspaceId, runId);
      workspacesRepo.updateWorkspace(tx, workspaceId, { currentRunId: runId });
    });
  }

  private told(runId: string, from: string, to: RunStatus): RunRow {
    const run = this.mustRun(runId);
    this.events.emit({ run, from: isRunStatus(from) ? from : null, to });
    return run;
  }

  event(tx: DbOrTx, runId: string, action: string, actor: PrincipalLocker | null, description: string | null = null): void {
    repo.insertEvent(tx, { id: newId('re'), runId, action, description, actor, createdAt: this.clock.now() });
  }

  private setPhase(tx: DbOrTx, runId: string, kind: PhaseKind, status: string, changes: Partial<PhaseRow> = {}): void {
    const phase = repo.phasesOf(tx, [runId]).find((row) => row.kind === kind);
    if (!phase) return;
    const key = status === 'running' ? 'started-at' : `${status}-at`;
    repo.updatePhase(tx, phase.id, {
      ...changes,
      status,
      statusTimestamps: { ...phase.statusTimestamps, [key]: isoTimestamp(this.clock.now()) },
    });
  }

  private phaseDurationMs(phase: PhaseRow | undefined): number | null {
    const started = phase?.statusTimestamps['started-at'];
    return started ? Math.max(0, this.clock.nowMs() - Date.parse(started)) : null;
  }

  recordPlan(run: RunRow, outcome: PlanOutcome): void {
    const plan = this.phase(run.id, 'plan');
    const log = this.logs.text(plan.id);
    const duration = this.phaseDurationMs(plan);
    this.db.transaction((tx) => {
      this.setPhase(tx, run.id, 'plan', outcome.status, {
        log,
        hasChanges: outcome.hasChanges,
        resourceAdditions: outcome.summary.additions,
        resourceChanges: outcome.summary.changes,
        resourceDestructions: outcome.summary.destructions,
        resourceImports: outcome.summary.imports,
        jsonOutput: outcome.json === null ? null : Buffer.from(JSON.stringify(outcome.json)),
        jsonOutputRedacted:
          outcome.json === null || outcome.redactedJson === undefined ? null : Buffer.from(JSON.stringify(outcome.redactedJson)),
      });
      repo.updateRun(tx, run.id, { hasChanges: outcome.hasChanges });
      const workspace = workspacesRepo.findWorkspace(tx, run.workspaceId);
      if (workspace && duration !== null) {
        workspacesRepo.updateWorkspace(tx, run.workspaceId, {
          planDurationTotalMs: workspace.planDurationTotalMs + duration,
          plansTimed: workspace.plansTimed + 1,
        });
      }
    });
    this.logs.forget(plan.id);
  }

  /** Records the apply and its state; a state the state-version rules refuse errors the run (said in the log). */
  recordApply(run: RunRow, outcome: ApplyOutcome): boolean {
    const apply = this.phase(run.id, 'apply');
    let stateError = false;
    if (outcome.state !== null) {
      try {
        this.stateVersions.recordFromRun(run.workspaceId, Buffer.from(outcome.state), run.createdBy, run.id);
      } catch (error) {
        stateError = true;
        this.logs.append(apply.id, `\nError: the new state could not be stored: ${(error as Error).message}\n`);
      }
    }
    const log = this.logs.text(apply.id);
    const duration = this.phaseDurationMs(apply);
    this.db.transaction((tx) => {
      this.setPhase(tx, run.id, 'apply', stateError ? 'errored' : outcome.status, {
        log,
        resourceAdditions: outcome.summary.additions,
        resourceChanges: outcome.summary.changes,
        resourceDestructions: outcome.summary.destructions,
        resourceImports: outcome.summary.imports,
      });
      const workspace = workspacesRepo.findWorkspace(tx, run.workspaceId);
      if (workspace && duration !== null) {
        workspacesRepo.updateWorkspace(tx, run.workspaceId, {
          applyDurationTotalMs: workspace.applyDurationTotalMs + duration,
          appliesTimed: workspace.appliesTimed + 1,
        });
      }
    });
    this.logs.forget(apply.id);
    return stateError;
  }

  appendToRunningPhase(run: RunRow, text: string): void {
    for (const phase of repo.phasesOf(this.db, [run.id])) {
      if (phase.status === 'running') {
        this.logs.append(phase.id, text);
        const log = this.logs.text(phase.id) || phase.log + text;
        repo.updatePhase(this.db, phase.id, { log });
      }
    }
  }
}
