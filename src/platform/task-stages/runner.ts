import { and, asc, eq, sql } from 'drizzle-orm';
import { inList } from '../../store/sql-lists.js';
import type { FastifyBaseLogger } from 'fastify';
import { isoTimestamp, type ControllableClock } from '../../core/clock.js';
import { safeEqual, sha256Hex } from '../../core/crypto.js';
import { conflict, notFound, unprocessable } from '../../core/errors.js';
import { newId, secretToken } from '../../core/ids.js';
import type { DueItem, DueSource, RanWork, Scheduler } from '../../core/scheduler.js';
import { prepared } from '../../store/prepared.js';
import type { Db, DbOrTx } from '../../store/store.js';
import { runTasks, taskResults, taskStages, workspaceTasks, type PolicyKind, type RunTaskStage } from '../../store/tables.js';
import { updateRows } from '../../store/update.js';
import { deliverRunTask } from '../run-tasks/delivery.js';
import type { CheckContext, CheckVerdict, StageRunner, StageVerdict, TaskStageName } from '../runs/checks.js';
import type { RunRow } from '../runs/repo.js';
import type { ResourceObject } from '../jsonapi/types.js';

export type TaskStageRow = typeof taskStages.$inferSelect;
export type TaskResultRow = typeof taskResults.$inferSelect;

/** How long an unanswered task may take before its result errors (the real default, 10 minutes). */
export const TASK_TIMEOUT_MS = 10 * 60 * 1000;
const FINAL_RESULT = new Set(['passed', 'failed', 'errored', 'canceled', 'unreachable']);
const STAGE_ORDER: RunTaskStage[] = ['pre_plan', 'post_plan', 'pre_apply', 'post_apply'];

/** Every run asks for its stages at each check point, and a stage for its results several times: built once. */
const stagesOfRun = prepared((db) =>
  db
    .select()
    .from(taskStages)
    .where(eq(taskStages.runId, sql.placeholder('runId')))
    .orderBy(asc(taskStages.createdAt))
    .prepare(),
);
const resultsOfStage = prepared((db) =>
  db
    .select()
    .from(taskResults)
    .where(eq(taskResults.taskStageId, sql.placeholder('stageId')))
    .prepare(),
);

/**
 * A run's creation asks for its workspace's enabled tasks, and a stage moves two or three times:
 * built once. An update's set takes only `sql`, so its values travel in the store's form (JSON text).
 */
const attachedTasks = prepared((db) =>
  db
    .select({ attachment: workspaceTasks, task: runTasks })
    .from(workspaceTasks)
    .innerJoin(runTasks, eq(runTasks.id, workspaceTasks.taskId))
    .where(
      and(eq(workspaceTasks.workspaceId, sql.placeholder('workspaceId')), eq(workspaceTasks.enabled, true), eq(runTasks.enabled, true)),
    )
    .prepare(),
);
const stageById = prepared((db) =>
  db
    .select()
    .from(taskStages)
    .where(eq(taskStages.id, sql.placeholder('id')))
    .prepare(),
);
const moveStage = prepared((db) =>
  db
    .update(taskStages)
    .set({ status: sql`${sql.placeholder('status')}`, statusTimestamps: sql`${sql.placeholder('statusTimestamps')}` })
    .where(eq(taskStages.id, sql.placeholder('id')))
    .prepare(),
);
const insertStage = prepared((db) =>
  db
    .insert(taskStages)
    .values({
      id: sql.placeholder('id'),
      runId: sql.placeholder('runId'),
      stage: sql.placeholder('stage'),
      status: sql.placeholder('status'),
      statusTimestamps: sql.placeholder('statusTimestamps'),
      createdAt: sql.placeholder('createdAt'),
    })
    .prepare(),
);

/** The override action's refusal when the stage is not waiting for one. */
const NOT_OVERRIDABLE = () =>
  conflict('This task stage is not awaiting an override: only a post-plan stage held by failed mandatory policies is', {
    title: 'transition not allowed',
  });

/**
 * Policy evaluations a post-plan stage carries (the policies domain's PolicyEvaluationService,
 * passed in by the door): which kinds apply to a run, its pending evaluations, and their verdict.
 */
export interface StagePolicies {
  kindsFor(run: RunRow): PolicyKind[];
  prepare(tx: DbOrTx, run: RunRow, stageId: string, kinds: readonly PolicyKind[]): void;
  /** `overridable`: mandatory failures, all in sets that may be overridden. */
  evaluate(run: RunRow, stageId: string): Promise<'passed' | 'failed' | 'overridable' | 'errored'>;
  overridden(stageId: string): void;
  canceled(stageId: string): void;
  idsOf(stageIds: readonly string[]): Map<string, string[]>;
  /** The stages' evaluations and their set outcomes as wire objects (a task stage's includes). */
  stageIncludes(stageIds: readonly string[]): { evaluations: ResourceObject[]; outcomes: ResourceObject[] };
}

/**
 * Run tasks at the four stages of real runs. When a run is created, each enabled workspace run
 * task gets a result in a stage per stage it is attached for. When the run reaches that stage the
 * task's URL receives the real (HMAC-signed) payload with a callback URL and an access token; the
 * task service PATCHes its verdict back. A `mandatory` task that fails (or errors, or times out
 * on the clock) stops the run; an `advisory` one does not.
 */
export class TaskStageRunner implements StageRunner, DueSource {
  readonly name = 'run-task-results';
  private readonly waiting = new Map<string, () => void>();
  /** Stages held in `awaiting_override`: the override action (or the run's end) decides. */
  private readonly held = new Map<string, (verdict: StageVerdict) => void>();
  /** The policy evaluations of post-plan stages; none until the door plugs them in. */
  policies: StagePolicies | null = null;

  constructor(
    private readonly db: Db,
    private readonly clock: ControllableClock,
    scheduler: Scheduler,
    private readonly log: FastifyBaseLogger,
  ) {
    scheduler.register(this);
    this.scheduler = scheduler;
  }

  private readonly scheduler: Scheduler;

  /**
   * Creates the run's stages and pending results from the workspace's enabled run tasks, and a
   * post-plan stage with pending policy evaluations when policy sets evaluated there apply.
   */
  prepare(run: RunRow): void {
    const kinds = this.policies?.kindsFor(run) ?? [];
    const attached = attachedTasks(this.db).all({ workspaceId: run.workspaceId });
    if (attached.length === 0 && kinds.length === 0) return;
    const now = this.clock.now();
    this.db.transaction((tx) => {
      for (const stage of STAGE_ORDER) {
        const here = attached.filter(({ attachment }) => attachment.stages.includes(stage));
        const evaluated = stage === 'post_plan' ? kinds : [];
        if (here.length === 0 && evaluated.length === 0) continue;
        const stageId = newId('ts');
        insertStage(tx).run({ id: stageId, runId: run.id, stage, status: 'pending', statusTimestamps: {}, createdAt: now });
        if (evaluated.length > 0) this.policies?.prepare(tx, run, stageId, evaluated);
        for (const { attachment, task } of here) {
          tx.insert(taskResults)
            .values({
              id: newId('taskrs'),
              taskStageId: stageId,
              workspaceTaskId: attachment.id,
              taskId: task.id,
              taskName: task.name,
              taskUrl: task.url,
              enforcementLevel: attachment.enforcementLevel,
              status: 'pending',
              message: null,
              url: null,
              tokenHash: null,
              deadline: null,
              statusTimestamps: {},
              createdAt: now,
            })
            .run();
        }
      }
    });
  }

  stagesOf(runId: string): TaskStageRow[] {
    return stagesOfRun(this.db).all({ runId });
  }

  resultsOf(stageIds: readonly string[]): TaskResultRow[] {
    if (stageIds.length === 0) return [];
    if (stageIds.length === 1) return resultsOfStage(this.db).all({ stageId: stageIds[0] });
    return this.db
      .select()
      .from(taskResults)
      .where(inList(taskResults.taskStageId, [...stageIds]))
      .all();
  }

  private setStage(id: string, status: string, alsoStamped: string[] = []): void {
    const row = stageById(this.db).get({ id });
    if (!row) return;
    const stamp = isoTimestamp(this.clock.now());
    const statusTimestamps = {
      ...row.statusTimestamps,
      ...Object.fromEntries([...alsoStamped, status].map((name) => [`${name}-at`, stamp])),
    };
    moveStage(this.db).run({ id, status, statusTimestamps: JSON.stringify(statusTimestamps) });
  }

  private setResult(id: string, changes: Partial<TaskResultRow> & { status: string }): void {
    const row = this.db.select().from(taskResults).where(eq(taskResults.id, id)).get();
    if (!row) return;
    const statusTimestamps = { ...row.statusTimestamps, [`${changes.status}-at`]: isoTimestamp(this.clock.now()) };
    updateRows(this.db, taskResults, { ...changes, statusTimestamps }, eq(taskResults.id, id));
  }

  has(runId: string, stageName: TaskStageName): boolean {
    return this.stagesOf(runId).some((row) => row.stage === stageName);
  }

  /**
   * Calls the stage's tasks and evaluates its policies, and waits for the tasks' results: the
   * verdict only; the engine moves the run. A failed mandatory task, an errored evaluation or a
   * mandatory policy failure that may not be overridden fails the stage; one that may holds it
   * in `awaiting_override` (a plan-only run has nothing to override for: its stage fails and the
   * run goes on, as a soft-failed policy check does).
   */
  async run(run: RunRow, stageName: TaskStageName, { signal, origin, planId }: CheckContext): Promise<CheckVerdict> {
    const stage = this.stagesOf(run.id).find((row) => row.stage === stageName);
    if (!stage) return 'proceed';
    this.setStage(stage.id, 'running');
    const policies = this.policies?.evaluate(run, stage.id) ?? Promise.resolve('passed' as const);
    await Promise.all(
      this.resultsOf([stage.id]).map(async (result) => {
        const token = secretToken(24);
        this.setResult(result.id, {
          status: 'running',
          tokenHash: sha256Hex(token),
          deadline: new Date(this.clock.nowMs() + TASK_TIMEOUT_MS),
        });
        this.scheduler.poke();
        if (!result.workspaceTaskId) return this.setResult(result.id, { status: 'errored', message: 'the run task was detached' });
        try {
          const delivered = await deliverRunTask(this.db, this.clock, result.workspaceTaskId, origin, {
            stage: stageName,
            runId: run.id,
            runMessage: run.message,
            isSpeculative: run.planOnly,
            configurationVersionId: run.configurationVersionId,
            taskResultId: result.id,
            accessToken: token,
            planId,
          });
          if (delivered['response-status'] !== 200) {
            const why = delivered.error ?? `the task answered ${delivered['response-status']}`;
            this.setResult(result.id, { status: 'errored', message: `The run task could not be reached: ${why}` });
          }
        } catch (error) {
          this.setResult(result.id, { status: 'errored', message: `The run task could not be reached: ${(error as Error).message}` });
        }
      }),
    );
    const policyVerdict = await policies;
    await this.settled(stage.id, signal);
    if (signal.aborted) {
      this.setStage(stage.id, 'canceled');
      this.policies?.canceled(stage.id);
      return 'stop';
    }
    const results = this.resultsOf([stage.id]);
    const blocking = results.some((result) => result.enforcementLevel === 'mandatory' && result.status !== 'passed');
    if (blocking || policyVerdict === 'failed') {
      this.setStage(stage.id, 'failed');
      return 'stop';
    }
    if (policyVerdict === 'errored') {
      this.setStage(stage.id, 'errored');
      return 'stop';
    }
    if (policyVerdict === 'overridable') {
      if (run.planOnly) {
        this.setStage(stage.id, 'failed');
        return 'proceed';
      }
      this.setStage(stage.id, 'awaiting_override');
      return 'hold';
    }
    this.setStage(stage.id, 'passed');
    return 'proceed';
  }

  /** Waits for the override of a stage held in `awaiting_override`; the run's end (a discard, a cancel) stops it. */
  decision(run: RunRow, stageName: TaskStageName, signal: AbortSignal): Promise<StageVerdict> {
    const stage = this.stagesOf(run.id).find((row) => row.stage === stageName);
    if (!stage) return Promise.resolve('stop');
    return new Promise((resolve) => {
      const done = (verdict: StageVerdict) => {
        this.held.delete(stage.id);
        signal.removeEventListener('abort', aborted);
        if (verdict === 'stop') {
          this.setStage(stage.id, 'canceled');
          this.policies?.canceled(stage.id);
        }
        resolve(verdict);
      };
      const aborted = () => done('stop');
      signal.addEventListener('abort', aborted, { once: true });
      this.held.set(stage.id, done);
    });
  }

  /** The override action (permissions checked by the caller): the held stage passes and its run goes on. */
  override(stageId: string): TaskStageRow {
    const stage = this.db.select().from(taskStages).where(eq(taskStages.id, stageId)).get();
    const resume = this.held.get(stageId);
    if (!stage || stage.status !== 'awaiting_override' || !resume) throw NOT_OVERRIDABLE();
    this.policies?.overridden(stageId);
    this.setStage(stageId, 'passed', ['overridden']);
    resume('proceed');
    return this.db.select().from(taskStages).where(eq(taskStages.id, stageId)).get() ?? stage;
  }

  /** Runs a restart ended errored: no process is left to carry on the stages they left running or held. */
  interrupted(runIds: readonly string[]): void {
    if (runIds.length === 0) return;
    const left = this.db
      .select({ id: taskStages.id })
      .from(taskStages)
      .where(and(inList(taskStages.runId, runIds), inList(taskStages.status, ['running', 'awaiting_override'])))
      .all();
    for (const { id } of left) this.setStage(id, 'errored');
  }

  /** Whether the stage waits for an override right now. */
  isOverridable(stage: TaskStageRow): boolean {
    return stage.status === 'awaiting_override' && this.held.has(stage.id);
  }

  /** Resolves once every result of the stage is final (callbacks and timeouts wake it), or on cancel. */
  private settled(stageId: string, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (signal.aborted || this.resultsOf([stageId]).every((result) => FINAL_RESULT.has(result.status))) {
          this.waiting.delete(stageId);
          signal.removeEventListener('abort', check);
          resolve();
        }
      };
      this.waiting.set(stageId, check);
      signal.addEventListener('abort', check);
      check();
    });
  }

  /** The task service's verdict, authorized by the access token its payload carried. */
  callback(resultId: string, token: string, status: string, message: string | null, url: string | null): void {
    const result = this.db.select().from(taskResults).where(eq(taskResults.id, resultId)).get();
    if (!result?.tokenHash || !safeEqual(sha256Hex(token), result.tokenHash))
      throw notFound('no such task result, or the access token is not its own');
    if (!['passed', 'failed', 'running'].includes(status))
      throw unprocessable('status must be passed, failed or running', '/data/attributes/status');
    if (FINAL_RESULT.has(result.status)) throw unprocessable(`the task result is already ${result.status}`, '/data/attributes/status');
    this.setResult(resultId, { status, message: message ?? result.message, url: url ?? result.url });
    this.waiting.get(result.taskStageId)?.();
  }

  // ---- DueSource: unanswered tasks time out on the clock ----------------------------

  next(): DueItem | undefined {
    const running = this.db.select().from(taskResults).where(eq(taskResults.status, 'running')).all();
    const due = running.filter((row) => row.deadline).sort((a, b) => a.deadline!.getTime() - b.deadline!.getTime())[0];
    if (!due?.deadline) return undefined;
    const at = due.deadline.getTime();
    return {
      at,
      run: async (): Promise<RanWork> => {
        this.setResult(due.id, { status: 'errored', message: 'The run task did not answer within 10 minutes.', deadline: null });
        this.waiting.get(due.taskStageId)?.();
        this.log.info({ result: due.id }, 'run task timed out');
        return { at: new Date(at).toISOString(), kind: 'run-task-timeout', subject: due.id, outcome: 'done' };
      },
    };
  }

  reset(): void {
    for (const wake of this.waiting.values()) wake();
    this.waiting.clear();
    this.held.clear();
  }
}
