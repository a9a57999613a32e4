import type { FastifyBaseLogger } from 'fastify';
import { isoTimestamp } from '../../core/clock.js';
import type { ControllableClock } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import type { DueItem, DueSource, RanWork, Scheduler } from '../../core/scheduler.js';
import type { Config } from '../../config.js';
import type { Db, DbOrTx } from '../../store/store.js';
import type { PrincipalLocker } from '../../store/tables.js';
import {
  createExecutor,
  ExecutionSlots,
  type ApplyOutcome,
  type Executor,
  type PlanJob,
  type PlanOutcome,
  type PreparedApply,
  type RunVariable,
} from '../../adapters/executor/index.js';
import { archiveOf } from '../configuration-versions/repo.js';
import { stateData } from '../state-versions/repo.js';
import type { StateVersionService } from '../state-versions/service.js';
import { listVariables } from '../variables/repo.js';
import * as workspacesRepo from '../workspaces/repo.js';
import type { LogBook } from './logs.js';
import * as repo from './repo.js';
import type { PhaseRow, RunRow } from './repo.js';
import { FINAL_STATUSES, isFinal } from './states.js';

export type Progression = 'immediate' | 'clock' | 'manual';
export type TaskStageName = 'pre_plan' | 'post_plan' | 'pre_apply' | 'post_apply';
/** What a task stage decided: go on, or stop the run (a mandatory task failed and was not overridden). */
export type StageVerdict = 'proceed' | 'stop';

/** Runs a run's task stage (task-stages/runner.ts); the engine only waits for its verdict. */
export interface StageRunner {
  /** Creates the run's stages from the workspace's run tasks, when the run is created. */
  prepare(run: RunRow): void;
  run(run: RunRow, stage: TaskStageName, signal: AbortSignal): Promise<StageVerdict>;
  reset(): void;
}

/** How long each state lasts under the `clock` progression, in virtual time. */
export const CLOCK_STEP_MS = 5_000;

class Canceled extends Error {}

interface Active {
  workspaceId: string;
  controller: AbortController;
  /** Set once the plan finished and the run waits for (or goes on to) its apply. */
  prepared?: PreparedApply;
  /** Resolvers of callers waiting for this run to stop moving (next gate, awaiting a decision, or the end). */
  settled: (() => void)[];
  /** The gate the run waits at, under the manual or clock progression. */
  gate?: { resolve: () => void; at?: number };
  force?: boolean;
}

const MAX_SETTLE_WAIT_MS = 120_000;

/**
 * Drives runs through the real state machine: one active run per workspace (it holds the
 * workspace lock; later runs wait as `pending`), speculative runs alongside, plans and applies
 * through the executor within `UNDERSTUDY_RUN_CONCURRENCY` slots, logs streamed to the log book,
 * the apply's state recorded as the next state version. Statuses are written in one synchronous
 * transaction each; nothing is held across an await. Progression (`immediate`, `clock`,
 * `manual`) paces a simulated run; the terraform executor always moves at its own pace.
 */
export class RunEngine implements DueSource {
  readonly name = 'runs';
  private executorPromise: Promise<Executor> | null = null;
  private readonly slots: ExecutionSlots;
  private readonly active = new Map<string, Active>();
  /** Per-workspace progression chosen through the control plane (the global one is the config's). */
  readonly progressions = new Map<string, Progression>();
  /** The control plane's global choice, until the next reset; else `UNDERSTUDY_RUN_PROGRESSION`. */
  globalProgression: Progression | null = null;
  private generation = 0;
  stages: StageRunner | null = null;
  /** Called when an apply finished (run triggers queue runs in the workspaces that name this one). */
  onApplied: (run: RunRow) => void = () => undefined;

  constructor(
    private readonly db: Db,
    private readonly clock: ControllableClock,
    private readonly scheduler: Scheduler,
    private readonly config: Config,
    private readonly log: FastifyBaseLogger,
    private readonly logs: LogBook,
    private readonly stateVersions: StateVersionService,
  ) {
    this.slots = new ExecutionSlots(config.runConcurrency);
    scheduler.register(this);
    this.recoverAfterRestart();
  }

  executor(): Promise<Executor> {
    this.executorPromise ??= createExecutor(this.config, this.log);
    return this.executorPromise;
  }

  progressionOf(workspaceId: string): Progression {
    return this.progressions.get(workspaceId) ?? this.globalProgression ?? this.config.runProgression;
  }

  // ---- DueSource: clock gates ----------------------------------------------------------

  next(): DueItem | undefined {
    let best: { at: number; runId: string } | undefined;
    for (const [runId, entry] of this.active) {
      const at = entry.gate?.at;
      if (at !== undefined && (!best || at < best.at)) best = { at, runId };
    }
    if (!best) return undefined;
    const { at, runId } = best;
    return {
      at,
      run: async (): Promise<RanWork> => {
        const status = repo.findRun(this.db, runId)?.status ?? 'gone';
        await this.release(runId);
        return { at: new Date(at).toISOString(), kind: 'run-progress', subject: runId, outcome: 'done', detail: `left ${status}` };
      },
    };
  }

  /** After `/_emulator/reset`: the store was wiped; every run's work stops and nothing it does is written. */
  reset(): void {
    this.generation += 1;
    for (const entry of this.active.values()) {
      entry.controller.abort();
      entry.gate?.resolve();
      void entry.prepared?.dispose();
    }
    this.active.clear();
    this.origins.clear();
    this.logs.clear();
    this.progressions.clear();
    this.globalProgression = null;
    this.stages?.reset();
    void this.executorPromise?.then((executor) => executor.close());
  }

  async close(): Promise<void> {
    this.reset();
    if (this.executorPromise) await (await this.executorPromise).close();
  }

  // ---- Entry points ------------------------------------------------------------------

  /** `scheme://host` the API was reached at when each run was created: where run-task callbacks go. */
  readonly origins = new Map<string, string>();

  /** A new run: speculative ones start at once, the others join their workspace's queue. */
  enqueue(run: RunRow, origin?: string): void {
    if (origin) this.origins.set(run.id, origin);
    this.stages?.prepare(run);
    if (run.planOnly) this.start(run.id, run.workspaceId);
    else this.pump(run.workspaceId);
  }

  /**
   * Starts the workspace's next queued run if nothing holds the workspace: no active run and no
   * lock taken by a user or team (their runs wait, as on the platform, until it is unlocked).
   */
  pump(workspaceId: string): void {
    const workspace = workspacesRepo.findWorkspace(this.db, workspaceId);
    if (!workspace) return;
    const holder = workspace.lockedBy;
    if (holder && holder.kind !== 'run') return;
    // The active run keeps the workspace even if its lock was force-unlocked meanwhile.
    for (const id of [holder?.id, workspace.currentRunId]) {
      const current = id ? repo.findRun(this.db, id) : undefined;
      if (current && !isFinal(current.status)) return;
    }
    const next = repo.nextQueued(this.db, workspaceId);
    if (!next) return;
    this.db.transaction((tx) => {
      workspacesRepo.updateWorkspace(tx, workspaceId, { lockedBy: { kind: 'run', id: next.id }, currentRunId: next.id });
    });
    this.start(next.id, workspaceId);
  }

  /** Lets a run waiting at a manual or clock gate move on, and waits until it stops again. */
  async release(runId: string): Promise<boolean> {
    const entry = this.active.get(runId);
    if (!entry?.gate) return false;
    const settled = this.settled(entry);
    const { resolve } = entry.gate;
    entry.gate = undefined;
    resolve();
    await settled;
    return true;
  }

  /** Whether the run waits at a gate that `release` opens. */
  isGated(runId: string): boolean {
    return this.active.get(runId)?.gate !== undefined;
  }

  /** A confirmed apply (the apply action, or auto-apply) continues from `planned`. */
  confirm(runId: string, by: PrincipalLocker | null): void {
    const entry = this.active.get(runId);
    if (!entry?.prepared) return;
    this.transition(runId, 'confirmed', { confirmedBy: by });
    void this.guard(runId, entry, () => this.applyPhase(runId, entry));
  }

  /** Cancels a working run: its execution is interrupted; a queued one ends at once. */
  cancel(runId: string, force: boolean): void {
    const entry = this.active.get(runId);
    if (entry) {
      entry.force = force;
      entry.controller.abort();
      entry.gate?.resolve();
      return;
    }
    const run = repo.findRun(this.db, runId);
    if (run && !isFinal(run.status)) this.finish(run, force ? 'force_canceled' : 'canceled');
  }

  /** Discards a run paused before its apply, or one still queued. */
  discard(runId: string): void {
    const run = repo.findRun(this.db, runId);
    if (run) this.finish(run, 'discarded');
  }

  /** Ends earlier unfinished runs and starts this one, taking the workspace from whichever run held it. */
  forceExecute(run: RunRow): void {
    for (const earlier of repo.unfinishedBefore(this.db, run.workspaceId, run.sequence)) {
      if (earlier.status === 'pending' || earlier.status === 'planned') this.discard(earlier.id);
      else this.cancel(earlier.id, true);
    }
    const workspace = workspacesRepo.findWorkspace(this.db, run.workspaceId);
    if (workspace?.lockedBy?.kind === 'run') workspacesRepo.updateWorkspace(this.db, run.workspaceId, { lockedBy: null });
    this.pump(run.workspaceId);
  }

  // ---- The lifecycle ------------------------------------------------------------------

  private start(runId: string, workspaceId: string): void {
    const entry: Active = { workspaceId, controller: new AbortController(), settled: [] };
    this.active.set(runId, entry);
    void this.guard(runId, entry, () => this.planPhase(runId, entry));
  }

  /** Runs one part of the lifecycle; a cancel or an unexpected failure ends the run instead of escaping. */
  private async guard(runId: string, entry: Active, work: () => Promise<void>): Promise<void> {
    const generation = this.generation;
    try {
      await work();
    } catch (error) {
      if (generation !== this.generation) return;
      const run = repo.findRun(this.db, runId);
      if (!run || isFinal(run.status)) return;
      if (error instanceof Canceled || entry.controller.signal.aborted) {
        this.finish(run, entry.force ? 'force_canceled' : 'canceled');
      } else {
        this.log.error({ err: error, run: runId }, 'run failed unexpectedly');
        this.appendToRunningPhase(run, `\nError: understudy could not carry on with this run: ${(error as Error).message}\n`);
        this.finish(run, 'errored');
      }
    } finally {
      this.notify(entry);
    }
  }

  private async planPhase(runId: string, entry: Active): Promise<void> {
    const generation = this.generation;
    let run = this.mustRun(runId);
    await this.gate(runId, entry);
    if ((await this.stage(run, 'pre_plan', entry)) === 'stop') return;
    run = this.transition(runId, 'plan_queued', {}, { plan: 'queued' });
    await this.gate(runId, entry);
    const outcome = await this.withSlot(entry, async () => {
      run = this.transition(runId, 'planning', {}, { plan: 'running' });
      const plan = this.phase(runId, 'plan');
      this.logs.start(plan.id);
      await this.gate(runId, entry);
      const job = this.job(run);
      const executor = await this.executor();
      return executor.plan(job, (text) => this.logs.append(plan.id, text), entry.controller.signal);
    });
    if (generation !== this.generation) return void (await outcome.prepared?.dispose());
    this.recordPlan(run, outcome);
    if (outcome.status !== 'finished') {
      if (outcome.status === 'canceled') throw new Canceled();
      this.finish(this.mustRun(runId), 'errored');
      return;
    }
    entry.prepared = outcome.prepared;
    if ((await this.stage(this.mustRun(runId), 'post_plan', entry)) === 'stop') return;
    run = this.mustRun(runId);
    if (run.planOnly || !(outcome.hasChanges || run.allowEmptyApply)) {
      this.finish(run, 'planned_and_finished');
      return;
    }
    run = this.transition(runId, 'planned');
    if (run.autoApply) {
      await this.gate(runId, entry);
      this.transition(runId, 'confirmed');
      await this.applyPhase(runId, entry);
    }
    // Otherwise the run waits in `planned` for the apply action (confirm) or a discard.
  }

  private async applyPhase(runId: string, entry: Active): Promise<void> {
    const generation = this.generation;
    let run = this.mustRun(runId);
    await this.gate(runId, entry);
    if ((await this.stage(run, 'pre_apply', entry)) === 'stop') return;
    run = this.transition(runId, 'apply_queued', {}, { apply: 'queued' });
    await this.gate(runId, entry);
    const prepared = entry.prepared;
    if (!prepared) throw new Error('the plan of this run is gone');
    const outcome = await this.withSlot(entry, async () => {
      run = this.transition(runId, 'applying', {}, { apply: 'running' });
      const apply = this.phase(runId, 'apply');
      this.logs.start(apply.id);
      await this.gate(runId, entry);
      return prepared.apply((text) => this.logs.append(apply.id, text), entry.controller.signal);
    });
    entry.prepared = undefined;
    if (generation !== this.generation) return;
    const stateError = this.recordApply(run, outcome);
    if (outcome.status === 'canceled') throw new Canceled();
    if (outcome.status !== 'finished' || stateError) {
      this.finish(this.mustRun(runId), 'errored');
      return;
    }
    run = this.finish(this.mustRun(runId), 'applied');
    this.onApplied(run);
    // The run has ended; its post-apply tasks are told, and their verdicts recorded, but cannot stop it.
    await this.stages?.run(run, 'post_apply', new AbortController().signal);
  }

  private async stage(run: RunRow, stage: TaskStageName, entry: Active): Promise<StageVerdict> {
    if (!this.stages) return 'proceed';
    const verdict = await this.stages.run(run, stage, entry.controller.signal);
    if (entry.controller.signal.aborted) throw new Canceled();
    if (verdict === 'stop') {
      const current = this.mustRun(run.id);
      if (!isFinal(current.status)) this.finish(current, 'errored');
    }
    return verdict;
  }

  private async withSlot<T>(entry: Active, work: () => Promise<T>): Promise<T> {
    // Waiting for a slot is standing still, as far as a caller waiting for the run to settle is concerned.
    if (this.slots.busy >= this.slots.size) this.notify(entry);
    const release = await this.slots.acquire();
    try {
      if (entry.controller.signal.aborted) throw new Canceled();
      return await work();
    } finally {
      release();
    }
  }

  /** Waits for the progression: at once, `CLOCK_STEP_MS` of virtual time, or an advance request. */
  private async gate(runId: string, entry: Active): Promise<void> {
    if (entry.controller.signal.aborted) throw new Canceled();
    const executor = await this.executor();
    const mode = executor.kind === 'terraform' ? 'immediate' : (repo.findRun(this.db, runId)?.progression as Progression);
    if (mode !== 'clock' && mode !== 'manual') return;
    await new Promise<void>((resolve) => {
      entry.gate = { resolve, ...(mode === 'clock' ? { at: this.clock.nowMs() + CLOCK_STEP_MS } : {}) };
      this.notify(entry);
      if (mode === 'clock') this.scheduler.poke();
    });
    if (entry.controller.signal.aborted) throw new Canceled();
  }

  // ---- Waiting for a run to stop moving ----------------------------------------------------

  private settled(entry: Active): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, MAX_SETTLE_WAIT_MS);
      timer.unref();
      entry.settled.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private notify(entry: Active): void {
    for (const resolve of entry.settled.splice(0)) resolve();
  }

  /** Resolves once the run waits at a gate, waits for a decision, or has ended (for tests and the control plane). */
  async whenSettled(runId: string): Promise<void> {
    const entry = this.active.get(runId);
    if (!entry || entry.gate) return;
    const run = repo.findRun(this.db, runId);
    if (!run || isFinal(run.status) || (run.status === 'planned' && entry.prepared)) return;
    await this.settled(entry);
  }

  // ---- Records ----------------------------------------------------------------------

  private mustRun(runId: string): RunRow {
    const run = repo.findRun(this.db, runId);
    if (!run) throw new Canceled('the run is gone');
    return run;
  }

  phase(runId: string, kind: 'plan' | 'apply'): PhaseRow {
    const phase = repo.phasesOf(this.db, [runId]).find((row) => row.kind === kind);
    if (!phase) throw new Error(`the run has no ${kind}`);
    return phase;
  }

  /** Moves a run (and optionally its phases) to a status, stamping `<status>-at`, in one transaction. */
  transition(runId: string, status: string, changes: Partial<RunRow> = {}, phases: { plan?: string; apply?: string } = {}): RunRow {
    const at = isoTimestamp(this.clock.now());
    this.db.transaction((tx) => {
      const run = repo.findRun(tx, runId);
      if (!run) return;
      repo.updateRun(tx, runId, {
        ...changes,
        status,
        statusTimestamps: { ...run.statusTimestamps, [`${status.replace(/_/g, '-')}-at`]: at },
      });
      for (const [kind, phaseStatus] of Object.entries(phases)) this.setPhase(tx, runId, kind as 'plan' | 'apply', phaseStatus);
      this.event(tx, runId, status, null);
    });
    return this.mustRun(runId);
  }

  private setPhase(tx: DbOrTx, runId: string, kind: 'plan' | 'apply', status: string, changes: Partial<PhaseRow> = {}): void {
    const phase = repo.phasesOf(tx, [runId]).find((row) => row.kind === kind);
    if (!phase) return;
    const key = status === 'running' ? 'started-at' : `${status}-at`;
    repo.updatePhase(tx, phase.id, {
      ...changes,
      status,
      statusTimestamps: { ...phase.statusTimestamps, [key]: isoTimestamp(this.clock.now()) },
    });
  }

  event(tx: DbOrTx, runId: string, action: string, actor: PrincipalLocker | null, description: string | null = null): void {
    repo.insertEvent(tx, { id: newId('re'), runId, action, description, actor, createdAt: this.clock.now() });
  }

  private phaseDurationMs(phase: PhaseRow | undefined): number | null {
    const started = phase?.statusTimestamps['started-at'];
    return started ? Math.max(0, this.clock.nowMs() - Date.parse(started)) : null;
  }

  private recordPlan(run: RunRow, outcome: PlanOutcome): void {
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
  private recordApply(run: RunRow, outcome: ApplyOutcome): boolean {
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

  private appendToRunningPhase(run: RunRow, text: string): void {
    for (const phase of repo.phasesOf(this.db, [run.id])) {
      if (phase.status === 'running') {
        this.logs.append(phase.id, text);
        const log = this.logs.text(phase.id) || phase.log + text;
        repo.updatePhase(this.db, phase.id, { log });
      }
    }
  }

  /**
   * Ends a run: its final status, phases that will never run marked so (their logs complete),
   * the workspace lock released if the run held it, failure counted; then the workspace's next
   * queued run starts.
   */
  finish(run: RunRow, status: string): RunRow {
    const at = isoTimestamp(this.clock.now());
    const entry = this.active.get(run.id);
    this.db.transaction((tx) => {
      const current = repo.findRun(tx, run.id);
      if (!current || isFinal(current.status)) return;
      repo.updateRun(tx, run.id, { status, statusTimestamps: { ...current.statusTimestamps, [`${status.replace(/_/g, '-')}-at`]: at } });
      for (const phase of repo.phasesOf(tx, [run.id])) {
        if (FINAL_PHASE.has(phase.status)) continue;
        const phaseStatus = phase.status === 'running' ? (status === 'errored' ? 'errored' : 'canceled') : 'unreachable';
        const log = phase.status === 'running' ? this.logs.text(phase.id) || phase.log : phase.log;
        this.setPhase(tx, run.id, phase.kind, phaseStatus, { log });
        this.logs.forget(phase.id);
      }
      const workspace = workspacesRepo.findWorkspace(tx, run.workspaceId);
      if (workspace) {
        const held = workspace.lockedBy?.kind === 'run' && workspace.lockedBy.id === run.id;
        workspacesRepo.updateWorkspace(tx, run.workspaceId, {
          ...(held ? { lockedBy: null } : {}),
          ...(status === 'errored' ? { runFailures: workspace.runFailures + 1 } : {}),
        });
      }
      this.event(tx, run.id, status, null);
    });
    if (entry) {
      this.active.delete(run.id);
      entry.controller.abort();
      entry.gate?.resolve();
      void entry.prepared?.dispose();
      this.notify(entry);
    }
    this.pump(run.workspaceId);
    return this.mustRun(run.id);
  }

  /** What the executor needs: the slug, the current state, the variables (run variables win). */
  private job(run: RunRow): PlanJob {
    const slug = archiveOf(this.db, run.configurationVersionId);
    if (!slug) throw new Error('the configuration version has no uploaded configuration');
    const workspace = workspacesRepo.findWorkspace(this.db, run.workspaceId);
    const stateId = workspace?.currentStateVersionId;
    const state = stateId ? stateData(this.db, stateId, 'state') : null;
    const { rows } = listVariables(this.db, run.workspaceId, 0, 10_000);
    const terraform = new Map<string, RunVariable>();
    const environment: RunVariable[] = [];
    for (const row of rows) {
      const variable = { key: row.key, value: row.value, hcl: row.hcl, sensitive: row.sensitive };
      if (row.category === 'env') environment.push(variable);
      else terraform.set(row.key, variable);
    }
    for (const variable of run.variables)
      terraform.set(variable.key, { key: variable.key, value: variable.value, hcl: true, sensitive: false });
    return {
      runId: run.id,
      slug,
      state: state ? state.toString('utf8') : null,
      variables: [...terraform.values()],
      environment,
      isDestroy: run.isDestroy,
      refresh: run.refresh,
      refreshOnly: run.refreshOnly,
      targetAddrs: run.targetAddrs,
      replaceAddrs: run.replaceAddrs,
    };
  }

  /** Runs left unfinished by a previous process cannot go on: they end errored, their locks released. */
  private recoverAfterRestart(): void {
    for (const run of repo.unfinishedRuns(this.db)) {
      this.appendToRunningPhase(run, '\nError: understudy stopped while this run was working.\n');
      this.finish(run, 'errored');
    }
  }
}

const FINAL_PHASE = new Set(['finished', 'errored', 'canceled', 'unreachable', 'force_canceled']);

export { FINAL_STATUSES };
