import type { FastifyBaseLogger } from 'fastify';
import type { ControllableClock } from '../../core/clock.js';
import type { DueItem, DueSource, RanWork, Scheduler } from '../../core/scheduler.js';
import type { Config } from '../../config.js';
import type { Db, DbOrTx } from '../../store/store.js';
import type { PrincipalLocker } from '../../store/tables.js';
import {
  createExecutor,
  ExecutionSlots,
  NO_CHANGES,
  type ApplyOutcome,
  type Executor,
  type LogSink,
  type PhaseExtras,
  type PlanJob,
  type PlanOutcome,
} from '../../adapters/executor/index.js';
import type { StateVersionService } from '../state-versions/service.js';
import type { WorkspaceLocks } from '../workspaces/locking.js';
import { AgentDispatch } from './agent-dispatch.js';
import { taskStageChecks, type CheckPoint, type RunCheck, type StageRunner } from './checks.js';
import { TransitionEvents, type TransitionListener } from './events.js';
import { buildJob, runNames, structuredOutput, type JobSources } from './job.js';
import type { FinalRunStatus } from './lifecycle.js';
import type { LogBook } from './logs.js';
import type { PhaseHook, RunPhase } from './phase-hooks.js';
import { PhaseHooks } from './phase-start.js';
import { Progressions, waitAtGate, type Progression } from './progression.js';
import { RunQueue } from './queue.js';
import { RunGone, RunRecords } from './records.js';
import * as repo from './repo.js';
import type { PhaseRow, RunRow } from './repo.js';
import { ActiveRuns, type ActiveRun } from './settle.js';
import { APPLIABLE, FINAL_STATUSES, isFinal } from './states.js';

export type { Progression } from './progression.js';
export { CLOCK_STEP_MS } from './progression.js';
export type { StageRunner, StageVerdict, TaskStageName } from './checks.js';

class Canceled extends Error {}

/** The services the engine works through. */
export interface EngineServices extends JobSources {
  stateVersions: StateVersionService;
  workspaceLocks: WorkspaceLocks;
}

/**
 * Drives runs through the lifecycle table (lifecycle.ts): one active run per workspace (queue.ts),
 * speculative runs alongside, checks between statuses (checks.ts), phase hooks at the start of
 * every plan and apply (phase-start.ts), plans and applies through the executor within
 * `UNDERSTUDY_RUN_CONCURRENCY` slots, everything written through `RunRecords` (one synchronous
 * transaction per change; nothing held across an await). Progression (`immediate`, `clock`,
 * `manual`) paces a simulated run; the terraform executor always moves at its own pace.
 */
export class RunEngine implements DueSource {
  readonly name = 'runs';
  private executorPromise: Promise<Executor> | null = null;
  private readonly slots: ExecutionSlots;
  private readonly active = new ActiveRuns();
  private readonly progressions: Progressions;
  private readonly events: TransitionEvents;
  private readonly hooks: PhaseHooks;
  private readonly records: RunRecords;
  private readonly queue: RunQueue;
  private readonly checks: RunCheck[] = [];
  /** Hands agent-mode phases to the pool's registered agents (the agent service offers idle ones). */
  readonly agents: AgentDispatch;
  private stages: StageRunner | null = null;
  /** Runs this process found unfinished and ended errored; their stages end once the runner is plugged in. */
  private recovered: string[] = [];
  private generation = 0;
  /** Called when an apply finished (run triggers queue runs in the workspaces that name this one). */
  onApplied: (run: RunRow) => void = () => undefined;
  /** `scheme://host` the API was reached at when each run was created: where run-task callbacks go. */
  readonly origins = new Map<string, string>();

  constructor(
    private readonly db: Db,
    private readonly clock: ControllableClock,
    private readonly scheduler: Scheduler,
    private readonly config: Config,
    private readonly log: FastifyBaseLogger,
    private readonly logs: LogBook,
    private readonly services: EngineServices,
  ) {
    this.slots = new ExecutionSlots(config.runConcurrency);
    this.progressions = new Progressions(config.runProgression);
    this.events = new TransitionEvents(log);
    this.agents = new AgentDispatch(db, clock);
    this.hooks = new PhaseHooks(log);
    this.records = new RunRecords(db, clock, logs, services.stateVersions, services.workspaceLocks, this.events);
    this.queue = new RunQueue(db, services.workspaceLocks, this.records, (runId, workspaceId) => this.start(runId, workspaceId));
    scheduler.register(this);
    this.recoverAfterRestart();
  }

  executor(): Promise<Executor> {
    this.executorPromise ??= createExecutor(this.config, this.log);
    return this.executorPromise;
  }

  // ---- What others plug in ------------------------------------------------------------

  /** The run task stages: the engine asks them for verdicts between statuses. */
  useStages(runner: StageRunner): void {
    this.stages = runner;
    runner.interrupted(this.recovered);
    this.recovered = [];
    this.addCheck(...taskStageChecks(runner));
  }

  /** A check between two statuses (its statuses must be rows of the lifecycle table). */
  addCheck(...checks: RunCheck[]): void {
    this.checks.push(...checks);
  }

  /** A hook asked at the start of every plan and apply phase (phase-hooks.ts). */
  addPhaseHook(hook: PhaseHook): void {
    this.hooks.add(hook);
  }

  /** Told after each committed status change; the function returned stops it. */
  onTransition(listener: TransitionListener): () => void {
    return this.events.add(listener);
  }

  // ---- Progression ----------------------------------------------------------------------

  progressionOf(workspaceId: string): Progression {
    return this.progressions.of(workspaceId);
  }

  /** The control plane's choice of progression for runs created from now on: everywhere, or in one workspace. */
  setProgression(mode: Progression, workspaceId?: string): void {
    if (workspaceId === undefined) this.progressions.setGlobal(mode);
    else this.progressions.setFor(workspaceId, mode);
  }

  // ---- DueSource: clock gates ----------------------------------------------------------

  next(): DueItem | undefined {
    let best: { at: number; runId: string } | undefined;
    for (const [runId, entry] of this.active.entries()) {
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
    this.active.clear();
    this.origins.clear();
    this.logs.clear();
    this.progressions.reset();
    this.agents.reset();
    this.stages?.reset();
    void this.executorPromise?.then((executor) => executor.close());
  }

  async close(): Promise<void> {
    this.reset();
    if (this.executorPromise) await (await this.executorPromise).close();
  }

  // ---- Entry points ------------------------------------------------------------------

  /**
   * A new run: speculative and saved-plan ones plan at once (neither holds the workspace while it
   * plans), the others join their workspace's queue.
   */
  enqueue(run: RunRow, origin?: string): void {
    if (origin) this.origins.set(run.id, origin);
    this.stages?.prepare(run);
    this.records.created(run);
    if (run.planOnly || run.savePlan) this.start(run.id, run.workspaceId);
    else this.queue.pump(run.workspaceId);
  }

  /** Starts the workspace's next queued run if nothing holds the workspace (after an unlock, say). */
  pump(workspaceId: string): void {
    this.queue.pump(workspaceId);
  }

  /** Lets a run waiting at a manual or clock gate move on, and waits until it stops again. */
  async release(runId: string): Promise<boolean> {
    const entry = this.active.get(runId);
    if (!entry?.gate) return false;
    const settled = this.active.settled(entry);
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

  /** Resolves once the run waits at a gate, waits for a decision, or has ended (for tests and the control plane). */
  async whenSettled(runId: string): Promise<void> {
    const entry = this.active.get(runId);
    if (!entry || entry.gate) return;
    const run = repo.findRun(this.db, runId);
    if (!run || isFinal(run.status) || HELD.has(run.status) || entry.awaitingWorkspace) return;
    if (APPLIABLE.has(run.status) && entry.prepared) return;
    await this.active.settled(entry);
  }

  /**
   * A confirmed apply (the apply action, or auto-apply) continues from `planned`. A saved plan
   * (`planned_and_saved`) is confirmed too, then joins its workspace's queue: it becomes the
   * current run and takes the lock when nothing else holds the workspace, and applies then.
   */
  confirm(runId: string, by: PrincipalLocker | null): void {
    const entry = this.active.get(runId);
    if (!entry?.prepared) return;
    const saved = this.records.mustRun(runId).status === 'planned_and_saved';
    const run = this.records.transition(runId, 'confirmed', { confirmedBy: by });
    if (!saved) {
      void this.guard(runId, entry, () => this.applyPhase(runId, entry));
      return;
    }
    entry.awaitingWorkspace = true;
    this.queue.pump(run.workspaceId);
  }

  /** Cancels a working run: its execution is interrupted; a queued one ends at once. */
  cancel(runId: string, force: boolean): void {
    const entry = this.active.get(runId);
    if (entry) {
      entry.force = force;
      entry.controller.abort();
      entry.gate?.resolve();
      // A run waiting for its confirmation (or a confirmed saved plan waiting for its workspace) has no work in
      // flight to notice the abort (only an admin force-cancel gets here).
      const status = repo.findRun(this.db, runId)?.status ?? '';
      if (APPLIABLE.has(status) || entry.awaitingWorkspace) this.end(runId, force ? 'force_canceled' : 'canceled');
      return;
    }
    this.end(runId, force ? 'force_canceled' : 'canceled');
  }

  /** Discards a run paused before its apply, or one still queued. */
  discard(runId: string): void {
    this.end(runId, 'discarded');
  }

  /** Ends earlier unfinished runs and starts this one, taking the workspace from whichever run held it. */
  forceExecute(run: RunRow): void {
    for (const earlier of repo.unfinishedBefore(this.db, run.workspaceId, run.sequence)) {
      if (earlier.status === 'pending' || earlier.status === 'planned') this.discard(earlier.id);
      else this.cancel(earlier.id, true);
    }
    this.queue.takeFromRuns(run.workspaceId);
    this.queue.pump(run.workspaceId);
  }

  phase(runId: string, kind: 'plan' | 'apply'): PhaseRow {
    return this.records.phase(runId, kind);
  }

  /** Writes a run event (the run service records `queued` in its creating transaction). */
  event(tx: DbOrTx, runId: string, action: string, actor: PrincipalLocker | null): void {
    this.records.event(tx, runId, action, actor);
  }

  // ---- The lifecycle ------------------------------------------------------------------

  /** Starts a run's plan; for a confirmed saved plan the queue hands over, its apply. */
  private start(runId: string, workspaceId: string): void {
    const waiting = this.active.get(runId);
    if (waiting?.awaitingWorkspace) {
      waiting.awaitingWorkspace = false;
      void this.guard(runId, waiting, () => this.applyPhase(runId, waiting));
      return;
    }
    const entry = this.active.begin(runId, workspaceId);
    void this.guard(runId, entry, () => this.planPhase(runId, entry));
  }

  /** Ends a run (unless it has ended already), stops its work, and starts the workspace's next one. */
  private end(runId: string, status: FinalRunStatus): RunRow | undefined {
    const ended = this.records.finish(runId, status);
    this.active.end(runId);
    const run = ended ?? repo.findRun(this.db, runId);
    if (run) this.queue.pump(run.workspaceId);
    return ended;
  }

  /** Runs one part of the lifecycle; a cancel or an unexpected failure ends the run instead of escaping. */
  private async guard(runId: string, entry: ActiveRun, work: () => Promise<void>): Promise<void> {
    const generation = this.generation;
    try {
      await work();
    } catch (error) {
      if (generation !== this.generation) return;
      const run = repo.findRun(this.db, runId);
      if (!run || isFinal(run.status)) return;
      if (error instanceof Canceled || error instanceof RunGone || entry.controller.signal.aborted) {
        this.end(runId, entry.force ? 'force_canceled' : 'canceled');
      } else {
        this.log.error({ err: error, run: runId }, 'run failed unexpectedly');
        this.records.appendToRunningPhase(run, `\nError: understudy could not carry on with this run: ${(error as Error).message}\n`);
        this.end(runId, 'errored');
      }
    } finally {
      this.active.notify(entry);
    }
  }

  private async planPhase(runId: string, entry: ActiveRun): Promise<void> {
    const generation = this.generation;
    await this.gate(runId, entry);
    if (!(await this.passChecks(runId, 'before_plan', entry))) return;
    let run = this.records.transition(runId, 'plan_queued', {}, { plan: 'queued' });
    await this.gate(runId, entry);
    const outcome = await this.onAgent(runId, 'plan', entry, () =>
      this.withSlot(entry, async () => {
        run = this.records.transition(runId, 'planning', {}, { plan: 'running' });
        const plan = this.records.phase(runId, 'plan');
        this.logs.start(plan.id);
        await this.gate(runId, entry);
        const job = { ...buildJob(this.services, run), structured: structuredOutput(this.db, run) };
        entry.job = job;
        const executor = await this.executor();
        return this.inPhase(run, 'plan', plan.id, job, entry, PLAN_REFUSED, (log, extras) =>
          executor.plan(job, log, entry.controller.signal, extras),
        );
      }),
    );
    if (generation !== this.generation) return void (await outcome.prepared?.dispose());
    this.records.recordPlan(run, outcome);
    if (outcome.status !== 'finished') {
      if (outcome.status === 'canceled') throw new Canceled();
      this.end(runId, 'errored');
      return;
    }
    entry.prepared = outcome.prepared;
    if (!(await this.passChecks(runId, 'after_plan', entry))) return;
    run = this.records.mustRun(runId);
    if (run.planOnly || !(outcome.hasChanges || run.allowEmptyApply)) {
      this.end(runId, 'planned_and_finished');
      return;
    }
    if (run.savePlan) {
      // Never auto-applied: the saved plan waits for the apply action (confirm) or a discard.
      this.records.transition(runId, 'planned_and_saved');
      return;
    }
    run = this.records.transition(runId, 'planned');
    if (run.autoApply) {
      await this.gate(runId, entry);
      this.records.transition(runId, 'confirmed');
      await this.applyPhase(runId, entry);
    }
    // Otherwise the run waits in `planned` for the apply action (confirm) or a discard.
  }

  private async applyPhase(runId: string, entry: ActiveRun): Promise<void> {
    const generation = this.generation;
    await this.gate(runId, entry);
    if (!(await this.passChecks(runId, 'before_apply', entry))) return;
    let run = this.records.transition(runId, 'apply_queued', {}, { apply: 'queued' });
    await this.gate(runId, entry);
    const { prepared, job } = entry;
    if (!prepared || !job) throw new Error('the plan of this run is gone');
    const outcome = await this.onAgent(runId, 'apply', entry, () =>
      this.withSlot(entry, async () => {
        run = this.records.transition(runId, 'applying', {}, { apply: 'running' });
        const apply = this.records.phase(runId, 'apply');
        this.logs.start(apply.id);
        await this.gate(runId, entry);
        // The apply carries out the plan's job: its hooks see that job's variables.
        return this.inPhase(run, 'apply', apply.id, job, entry, APPLY_REFUSED, (log, extras) =>
          prepared.apply(log, entry.controller.signal, extras),
        );
      }),
    );
    entry.prepared = undefined;
    if (generation !== this.generation) return;
    const stateError = this.records.recordApply(run, outcome);
    if (outcome.status === 'canceled') throw new Canceled();
    if (outcome.status !== 'finished' || stateError) {
      this.end(runId, 'errored');
      return;
    }
    this.discardStaleSavedPlans(run);
    run = this.end(runId, 'applied') ?? this.records.mustRun(runId);
    this.onApplied(run);
    // The run has ended; its post-apply tasks are told, and their verdicts recorded, but cannot stop it.
    if (this.stages?.has(runId, 'post_apply')) {
      const context = { signal: new AbortController().signal, origin: this.originOf(runId), planId: this.records.phase(runId, 'plan').id };
      await this.stages.run(run, 'post_apply', context);
    }
  }

  /**
   * A phase's work between its hooks: each hook is asked first (a refusal errors the phase with
   * the hook's message in its log, as a failed plan or apply would), the work gets what they
   * added, and their `finish` runs when the phase ends, however it ends.
   */
  private async inPhase<T>(
    run: RunRow,
    phase: RunPhase,
    phaseId: string,
    job: PlanJob,
    entry: ActiveRun,
    refusedOutcome: T,
    work: (log: LogSink, extras: PhaseExtras) => Promise<T>,
  ): Promise<T> {
    const signal = entry.controller.signal;
    const opened = await this.hooks.open({
      run,
      phase,
      names: () => runNames(this.db, run),
      job,
      log: (text) => this.logs.append(phaseId, text),
      signal,
      runUser: (await this.executor()).runUser,
    });
    try {
      if (signal.aborted) throw new Canceled();
      if (opened.refused !== null) {
        opened.log(`\nError: ${opened.refused}\n`);
        return refusedOutcome;
      }
      return await work(opened.log, opened.extras);
    } finally {
      await opened.close();
    }
  }

  /** Passes the run through the checks at one point; false when one stopped it (it has then ended errored). */
  private async passChecks(runId: string, point: CheckPoint, entry: ActiveRun): Promise<boolean> {
    for (const check of this.checks.filter((candidate) => candidate.point === point)) {
      const run = this.records.mustRun(runId);
      if (!check.applies(run)) continue;
      this.records.transition(runId, check.running);
      const context = { signal: entry.controller.signal, origin: this.originOf(runId), planId: this.records.phase(runId, 'plan').id };
      let verdict = await check.check(run, context);
      if (entry.controller.signal.aborted) throw new Canceled();
      if (verdict === 'hold' && check.held && check.decision) {
        this.records.transition(runId, check.held);
        this.active.notify(entry); // Waiting for someone is standing still.
        verdict = await check.decision(run, entry.controller.signal);
        if (entry.controller.signal.aborted) throw new Canceled();
        if (verdict === 'stop') {
          this.end(runId, 'discarded');
          return false;
        }
      }
      if (verdict === 'stop') {
        this.end(runId, 'errored');
        return false;
      }
      this.records.transition(runId, check.completed);
    }
    return true;
  }

  /**
   * Saved plans of the workspace were made against the state this apply replaced: those waiting to
   * be confirmed, or confirmed and waiting for the workspace, can no longer apply and are discarded.
   */
  private discardStaleSavedPlans(applied: RunRow): void {
    for (const saved of repo.savedPlansWaiting(this.db, applied.workspaceId)) {
      if (saved.id !== applied.id) this.discard(saved.id);
    }
  }

  private originOf(runId: string): string {
    return this.origins.get(runId) ?? 'http://127.0.0.1';
  }

  /**
   * In agent mode a phase waits, queued, for an idle agent of the workspace's pool, records it,
   * and frees it when the phase ends, however it ends; otherwise the work runs as it is.
   */
  private async onAgent<T>(runId: string, kind: 'plan' | 'apply', entry: ActiveRun, work: () => Promise<T>): Promise<T> {
    const run = this.records.mustRun(runId);
    const poolId = this.agents.poolOf(run);
    if (!poolId) return work();
    // Waiting for an agent is standing still, as far as a caller waiting for the run to settle is concerned.
    const details = await this.agents.claim(run, poolId, entry.controller.signal, () => this.active.notify(entry));
    try {
      this.records.recordExecution(runId, kind, details);
      return await work();
    } finally {
      this.agents.release(runId);
    }
  }

  private async withSlot<T>(entry: ActiveRun, work: () => Promise<T>): Promise<T> {
    // Waiting for a slot is standing still, as far as a caller waiting for the run to settle is concerned.
    if (this.slots.busy >= this.slots.size) this.active.notify(entry);
    const release = await this.slots.acquire();
    try {
      if (entry.controller.signal.aborted) throw new Canceled();
      return await work();
    } finally {
      release();
    }
  }

  /** Waits for the progression: at once, `CLOCK_STEP_MS` of virtual time, or an advance request. */
  private async gate(runId: string, entry: ActiveRun): Promise<void> {
    if (entry.controller.signal.aborted) throw new Canceled();
    const executor = await this.executor();
    const mode = executor.kind === 'terraform' ? 'immediate' : (repo.findRun(this.db, runId)?.progression as Progression);
    const waiting = waitAtGate(mode, this.clock, this.scheduler, (gate) => {
      entry.gate = gate;
      this.active.notify(entry);
    });
    if (!waiting) return;
    await waiting;
    if (entry.controller.signal.aborted) throw new Canceled();
  }

  /** Runs left unfinished by a previous process cannot go on: they end errored, their locks released. */
  private recoverAfterRestart(): void {
    for (const run of repo.unfinishedRuns(this.db)) {
      this.records.appendToRunningPhase(run, '\nError: understudy stopped while this run was working.\n');
      this.end(run.id, 'errored');
      this.recovered.push(run.id);
    }
  }
}

/** Statuses a run waits in for someone's decision (an override or a discard). */
const HELD = new Set(['policy_override', 'post_plan_awaiting_decision']);

const PLAN_REFUSED: PlanOutcome = { status: 'errored', summary: NO_CHANGES, hasChanges: false, json: null };
const APPLY_REFUSED: ApplyOutcome = { status: 'errored', summary: NO_CHANGES, state: null };

export { FINAL_STATUSES };
