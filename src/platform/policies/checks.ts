import { asc, eq, sql } from 'drizzle-orm';
import type { Clock } from '../../core/clock.js';
import { isoTimestamp } from '../../core/clock.js';
import { conflict } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { prepared } from '../../store/prepared.js';
import type { Db } from '../../store/store.js';
import { policyChecks, type PolicyCheckStatus } from '../../store/tables.js';
import { Permissions } from '../auth/permissions.js';
import type { Principal } from '../auth/principal.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import type { CheckVerdict, RunCheck, StageVerdict } from '../runs/checks.js';
import type { RunRow } from '../runs/repo.js';
import type { RunService } from '../runs/service.js';
import { findWorkspace } from '../workspaces/repo.js';
import { countCheck } from './evaluation.js';
import { applicableSets, type PolicySetRow, type SetEvaluator } from './set-evaluation.js';

export type PolicyCheckRow = typeof policyChecks.$inferSelect;

/** Every checked run writes one: built once (drizzle maps each placeholder with its column's mapping). */
const insertCheck = prepared((db) =>
  db
    .insert(policyChecks)
    .values({
      id: sql.placeholder('id'),
      runId: sql.placeholder('runId'),
      status: sql.placeholder('status'),
      result: sql.placeholder('result'),
      statusTimestamps: sql.placeholder('statusTimestamps'),
      createdAt: sql.placeholder('createdAt'),
    })
    .prepare(),
);

/** The override action's refusal when the check is not soft-failed (the run is not waiting for it). */
const NOT_OVERRIDABLE = () => conflict('Policy check is not overridable', { title: 'transition not allowed' });

/**
 * Sentinel policy checks in a run, after the plan (and its post-plan tasks): a check with a hard
 * failure errors the run; a soft failure holds it in `policy_override` until someone with Manage
 * Policy Overrides overrides it (the run goes on) or the run is discarded.
 */
export class PolicyCheckService {
  private readonly waiting = new Map<string, (verdict: StageVerdict) => void>();
  /** The sets `applies` found, for the `check` that follows it at once (the engine asks both in turn). */
  private readonly found = new Map<string, PolicySetRow[]>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly runs: RunService,
    private readonly sets: SetEvaluator,
  ) {}

  /** The check the engine passes runs through. */
  runCheck(): RunCheck {
    return {
      name: 'policy check',
      point: 'after_plan',
      running: 'policy_checking',
      completed: 'policy_checked',
      held: 'policy_override',
      applies: (run) => {
        const sets = this.applicable(run);
        if (sets.length === 0) return false;
        this.found.set(run.id, sets);
        return true;
      },
      check: (run) => this.check(run),
      decision: (run, signal) => this.decision(run, signal),
    };
  }

  /** Sentinel sets not enabled for agents (those are evaluated in the post-plan task stage instead, see evaluations.ts). */
  private applicable(run: RunRow) {
    const workspace = findWorkspace(this.db, run.workspaceId);
    if (!workspace) return [];
    const where = { organizationId: workspace.organizationId, workspaceId: workspace.id, projectId: workspace.projectId ?? null };
    return applicableSets(this.db, where, (set) => set.kind === 'sentinel' && !set.agentEnabled && this.sets.hasPolicies(set));
  }

  private async check(run: RunRow): Promise<CheckVerdict> {
    const sets = this.found.get(run.id) ?? this.applicable(run);
    this.found.delete(run.id);
    const evaluated = await Promise.all(sets.map((set) => this.sets.evaluate(set)));
    const result = countCheck(evaluated);
    const status: PolicyCheckStatus = result['hard-failed'] > 0 ? 'hard_failed' : result['soft-failed'] > 0 ? 'soft_failed' : 'passed';
    const at = this.clock.now();
    const stamp = isoTimestamp(at);
    insertCheck(this.db).run({
      id: newId('polchk'),
      runId: run.id,
      status,
      result,
      statusTimestamps: { 'queued-at': stamp, [`${status.replace('_', '-')}-at`]: stamp },
      createdAt: at,
    });
    if (status === 'hard_failed') return 'stop';
    // A plan-only run has nothing to override for: its soft failure is recorded and the run goes on.
    if (status === 'soft_failed' && !run.planOnly) return 'hold';
    return 'proceed';
  }

  private decision(run: RunRow, signal: AbortSignal): Promise<StageVerdict> {
    return new Promise((resolve) => {
      const done = (verdict: StageVerdict) => {
        this.waiting.delete(run.id);
        signal.removeEventListener('abort', aborted);
        resolve(verdict);
      };
      const aborted = () => done('stop');
      signal.addEventListener('abort', aborted, { once: true });
      this.waiting.set(run.id, done);
    });
  }

  listForRun(principal: Principal, runId: string): PolicyCheckRow[] {
    const { run } = this.runs.locate(principal, runId);
    return this.db.select().from(policyChecks).where(eq(policyChecks.runId, run.id)).orderBy(asc(policyChecks.createdAt)).all();
  }

  visible(principal: Principal, id: string): { row: PolicyCheckRow; run: RunRow; canOverride: boolean } {
    const row = this.db.select().from(policyChecks).where(eq(policyChecks.id, id)).get();
    if (!row) throw NOT_FOUND;
    const { run, located } = this.runs.locate(principal, row.runId);
    const canOverride = new Permissions(this.db).can(principal, located.organization, 'manage-policy-overrides');
    return { row, run, canOverride };
  }

  isOverridable(row: PolicyCheckRow, run: RunRow): boolean {
    return row.status === 'soft_failed' && run.status === 'policy_override';
  }

  /** `actions/override`: Manage Policy Overrides lets a soft-failed check's run go on. */
  override(principal: Principal, id: string): PolicyCheckRow {
    const { row, run, canOverride } = this.visible(principal, id);
    if (!canOverride) throw NOT_FOUND;
    const resume = this.waiting.get(run.id);
    if (!this.isOverridable(row, run) || !resume) throw NOT_OVERRIDABLE();
    const statusTimestamps = { ...row.statusTimestamps, 'overridden-at': isoTimestamp(this.clock.now()) };
    this.db.update(policyChecks).set({ status: 'overridden', statusTimestamps }).where(eq(policyChecks.id, id)).run();
    resume('proceed');
    return { ...row, status: 'overridden', statusTimestamps };
  }

  /** The check's output: one line per policy. */
  output(principal: Principal, id: string): string {
    const { row } = this.visible(principal, id);
    return `${row.result.lines.join('\n')}\n`;
  }

  /** Whether `principal` may override policy checks in the organization of this run's workspace. */
  canOverrideFor(principal: Principal, organizationId: string): boolean {
    return new Permissions(this.db).can(principal, { id: organizationId }, 'manage-policy-overrides');
  }
}
