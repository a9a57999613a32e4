import { asc, eq, sql } from 'drizzle-orm';
import { isoTimestamp, type Clock } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import { prepared } from '../../store/prepared.js';
import { inList } from '../../store/sql-lists.js';
import type { Db, DbOrTx } from '../../store/store.js';
import {
  policyEvaluations,
  policySetOutcomes,
  type PolicyEvaluationStatus,
  type PolicyKind,
  type PolicyOutcome,
  type PolicyResultCount,
} from '../../store/tables.js';
import type { ResourceObject } from '../jsonapi/types.js';
import type { RunRow } from '../runs/repo.js';
import { findWorkspace } from '../workspaces/repo.js';
import { applicableSets, type PolicySetRow, type SetEvaluation, type SetEvaluator } from './set-evaluation.js';

export type PolicyEvaluationRow = typeof policyEvaluations.$inferSelect;
export type PolicySetOutcomeRow = typeof policySetOutcomes.$inferSelect;

/** What a stage's evaluations found: the task stage runner turns it into the stage's status. */
export type EvaluationsVerdict = 'passed' | 'failed' | 'overridable' | 'errored';

/** A stage's evaluations: asked several times by every run with a post-plan stage, so built once. */
const byStage = prepared((db) =>
  db
    .select()
    .from(policyEvaluations)
    .where(eq(policyEvaluations.taskStageId, sql.placeholder('stageId')))
    .orderBy(asc(policyEvaluations.createdAt), asc(policyEvaluations.policyKind))
    .prepare(),
);

/**
 * A stage's evaluations (one per kind), their status moves (twice each) and set outcomes (one per set):
 * statements built once. An insert maps a placeholder with its column's mapping (the nullable text
 * columns travel through `sql` so a null stays NULL); an update's set takes only `sql`, so its
 * values travel in the store's form (JSON text, milliseconds).
 */
const moveStatement = prepared((db) =>
  db
    .update(policyEvaluations)
    .set({
      status: sql`${sql.placeholder('status')}`,
      statusTimestamps: sql`${sql.placeholder('statusTimestamps')}`,
      updatedAt: sql`${sql.placeholder('updatedAt')}`,
      // Only the final move gives a count; the others pass null and keep the row's.
      resultCount: sql`coalesce(${sql.placeholder('resultCount')}, ${policyEvaluations.resultCount})`,
    })
    .where(eq(policyEvaluations.id, sql.placeholder('id')))
    .prepare(),
);
const insertEvaluation = prepared((db) =>
  db
    .insert(policyEvaluations)
    .values({
      id: sql.placeholder('id'),
      runId: sql.placeholder('runId'),
      taskStageId: sql.placeholder('taskStageId'),
      status: sql.placeholder('status'),
      policyKind: sql.placeholder('policyKind'),
      resultCount: sql.placeholder('resultCount'),
      statusTimestamps: sql.placeholder('statusTimestamps'),
      createdAt: sql.placeholder('createdAt'),
      updatedAt: sql.placeholder('updatedAt'),
    })
    .prepare(),
);
const insertOutcome = prepared((db) =>
  db
    .insert(policySetOutcomes)
    .values({
      id: sql.placeholder('id'),
      policyEvaluationId: sql.placeholder('policyEvaluationId'),
      policySetId: sql.placeholder('policySetId'),
      policySetName: sql.placeholder('policySetName'),
      policySetDescription: sql`${sql.placeholder('policySetDescription')}`,
      overridable: sql.placeholder('overridable'),
      error: sql`${sql.placeholder('error')}`,
      outcomes: sql.placeholder('outcomes'),
      resultCount: sql.placeholder('resultCount'),
      createdAt: sql.placeholder('createdAt'),
    })
    .prepare(),
);

/** Sets evaluated in a task stage rather than by a policy check: OPA sets, and sentinel sets enabled for agents. */
const inStage = (set: PolicySetRow) => set.kind === 'opa' || set.agentEnabled;

const zero = (): PolicyResultCount => ({ 'advisory-failed': 0, 'mandatory-failed': 0, passed: 0, errored: 0 });

const add = (total: PolicyResultCount, more: PolicyResultCount) => {
  for (const key of Object.keys(total) as (keyof PolicyResultCount)[]) total[key] += more[key];
};

/** A failing policy at a level other than advisory blocks the run. */
const mandatory = (level: string) => level !== 'advisory';

/**
 * Whether a set's mandatory failures may be overridden: an OPA set's `overridable`; for an
 * agent-enabled sentinel set, whether every mandatory failure is soft-mandatory (as in a check).
 */
function overridableOf(evaluation: SetEvaluation): boolean {
  if (evaluation.set.kind === 'opa') return evaluation.set.overridable;
  return evaluation.policies.every((policy) => !policy.failed || policy.level !== 'hard-mandatory');
}

function outcomeOf(evaluation: SetEvaluation): { outcomes: PolicyOutcome[]; count: PolicyResultCount } {
  const count = zero();
  const outcomes = evaluation.policies.map((policy): PolicyOutcome => {
    if (!policy.failed) count.passed += 1;
    else if (mandatory(policy.level)) count['mandatory-failed'] += 1;
    else count['advisory-failed'] += 1;
    return {
      enforcement_level: policy.level,
      query: policy.query,
      status: policy.failed ? 'failed' : 'passed',
      policy_name: policy.name,
      description: policy.description,
    };
  });
  if (evaluation.error !== null) count.errored += 1;
  return { outcomes, count };
}

export function policyEvaluationResource(row: PolicyEvaluationRow, outcomeIds: readonly string[]): ResourceObject {
  const base = `/api/v2/policy-evaluations/${row.id}`;
  return {
    id: row.id,
    type: 'policy-evaluations',
    attributes: {
      status: row.status,
      'policy-kind': row.policyKind,
      'result-count': row.resultCount,
      'status-timestamps': row.statusTimestamps,
      'created-at': isoTimestamp(row.createdAt),
      'updated-at': isoTimestamp(row.updatedAt),
    },
    relationships: {
      'policy-attachable': { data: { id: row.taskStageId, type: 'task-stages' } },
      'policy-set-outcomes': {
        data: outcomeIds.map((id) => ({ id, type: 'policy-set-outcomes' })),
        links: { related: `${base}/policy-set-outcomes` },
      },
    },
    links: { self: base },
  };
}

/** A set's outcome; `outcomes` may be narrowed by a list's filters. The client reads `result_count` with an underscore. */
export function policySetOutcomeResource(row: PolicySetOutcomeRow, outcomes: readonly PolicyOutcome[] = row.outcomes): ResourceObject {
  return {
    id: row.id,
    type: 'policy-set-outcomes',
    attributes: {
      outcomes,
      error: row.error,
      overridable: row.overridable,
      'policy-set-name': row.policySetName,
      'policy-set-description': row.policySetDescription,
      result_count: row.resultCount,
    },
    relationships: {
      'policy-evaluation': { data: { id: row.policyEvaluationId, type: 'policy-evaluations' } },
    },
    links: { self: `/api/v2/policy-set-outcomes/${row.id}` },
  };
}

/** One `filter[N][status]` / `filter[N][enforcement_level]` group: an outcome matches every member given. */
export interface OutcomeFilter {
  status?: string;
  enforcementLevel?: string;
}

/** The outcomes a list shows: those matching any filter group (all without filters); sets left with none are left out. */
export function filterOutcomes(rows: readonly PolicySetOutcomeRow[], filters: readonly OutcomeFilter[]): ResourceObject[] {
  if (filters.length === 0) return rows.map((row) => policySetOutcomeResource(row));
  const matches = (outcome: PolicyOutcome) =>
    filters.some(
      (filter) =>
        (filter.status === undefined || outcome.status === filter.status) &&
        (filter.enforcementLevel === undefined || outcome.enforcement_level === filter.enforcementLevel),
    );
  return rows.flatMap((row) => {
    const kept = row.outcomes.filter(matches);
    return kept.length === 0 ? [] : [policySetOutcomeResource(row, kept)];
  });
}

/**
 * Policy evaluations in a run's post-plan task stage (the real platform's agent-based
 * evaluations): OPA sets and agent-enabled sentinel sets. A run created where such sets apply
 * gets a post-plan stage with one pending evaluation per policy kind; when the stage runs, each
 * applicable set is evaluated the simulated way (set-evaluation.ts) into a set outcome. A
 * mandatory failure holds the stage in `awaiting_override` when every failing set may be
 * overridden, and fails it otherwise; advisory failures pass.
 */
export class PolicyEvaluationService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly sets: SetEvaluator,
  ) {}

  private applicable(run: RunRow): PolicySetRow[] {
    const workspace = findWorkspace(this.db, run.workspaceId);
    if (!workspace) return [];
    const where = { organizationId: workspace.organizationId, workspaceId: workspace.id, projectId: workspace.projectId ?? null };
    return applicableSets(this.db, where, inStage);
  }

  /** The kinds of the sets evaluated in the run's post-plan stage (none: the run has no evaluation). */
  kindsFor(run: RunRow): PolicyKind[] {
    return [...new Set(this.applicable(run).map((set) => set.kind))].sort();
  }

  /** Creates the stage's pending evaluations, one per kind. */
  prepare(tx: DbOrTx, run: RunRow, stageId: string, kinds: readonly PolicyKind[]): void {
    const at = this.clock.now();
    for (const kind of kinds) {
      insertEvaluation(tx).run({
        id: newId('poleval'),
        runId: run.id,
        taskStageId: stageId,
        status: 'pending',
        policyKind: kind,
        resultCount: zero(),
        statusTimestamps: {},
        createdAt: at,
        updatedAt: at,
      });
    }
  }

  /** Moves an evaluation to `status` (and `resultCount`, when given), stamped now; answers its new timestamps. */
  private set(row: PolicyEvaluationRow, status: PolicyEvaluationStatus, resultCount?: PolicyResultCount): Record<string, string> {
    const at = this.clock.now();
    const statusTimestamps = { ...row.statusTimestamps, [`${status}-at`]: isoTimestamp(at) };
    moveStatement(this.db).run({
      id: row.id,
      status,
      statusTimestamps: JSON.stringify(statusTimestamps),
      updatedAt: at.getTime(),
      resultCount: resultCount === undefined ? null : JSON.stringify(resultCount),
    });
    return statusTimestamps;
  }

  /** Evaluates the stage's pending evaluations against the sets that apply now; what they found. */
  async evaluate(run: RunRow, stageId: string): Promise<EvaluationsVerdict> {
    const rows = this.ofStages([stageId]);
    if (rows.length === 0) return 'passed';
    const running = new Map(rows.map((row) => [row.id, this.set(row, 'running')]));
    const applicable = this.applicable(run);
    const evaluated = await Promise.all(applicable.map((set) => this.sets.evaluate(set)));
    let verdict: EvaluationsVerdict = 'passed';
    for (const row of rows) {
      const total = zero();
      let blocked = false;
      let lockedOut = false;
      let errored = false;
      this.db.transaction((tx) => {
        for (const evaluation of evaluated.filter((item) => item.set.kind === row.policyKind)) {
          const { outcomes, count } = outcomeOf(evaluation);
          add(total, count);
          const overridable = overridableOf(evaluation);
          if (evaluation.error !== null) errored = true;
          if (count['mandatory-failed'] > 0) {
            blocked = true;
            if (!overridable) lockedOut = true;
          }
          insertOutcome(tx).run({
            id: newId('polsetout'),
            policyEvaluationId: row.id,
            policySetId: evaluation.set.id,
            policySetName: evaluation.set.name,
            policySetDescription: evaluation.set.description,
            overridable,
            error: evaluation.error,
            outcomes,
            resultCount: count,
            createdAt: this.clock.now(),
          });
        }
      });
      const status: PolicyEvaluationStatus = errored ? 'errored' : blocked ? 'failed' : 'passed';
      this.set({ ...row, statusTimestamps: running.get(row.id) ?? row.statusTimestamps }, status, total);
      const here: EvaluationsVerdict = errored ? 'errored' : lockedOut ? 'failed' : blocked ? 'overridable' : 'passed';
      verdict = worse(verdict, here);
    }
    return verdict;
  }

  /** The stage was overridden: its failed evaluations are `overridden`. */
  overridden(stageId: string): void {
    for (const row of this.ofStages([stageId])) if (row.status === 'failed') this.set(row, 'overridden');
  }

  /** The run ended before the stage finished: its unfinished evaluations are `canceled`. */
  canceled(stageId: string): void {
    for (const row of this.ofStages([stageId])) {
      if (row.status === 'pending' || row.status === 'queued' || row.status === 'running') this.set(row, 'canceled');
    }
  }

  find(id: string): PolicyEvaluationRow | undefined {
    return this.db.select().from(policyEvaluations).where(eq(policyEvaluations.id, id)).get();
  }

  ofStages(stageIds: readonly string[]): PolicyEvaluationRow[] {
    if (stageIds.length === 0) return [];
    if (stageIds.length === 1) return byStage(this.db).all({ stageId: stageIds[0] });
    return this.db
      .select()
      .from(policyEvaluations)
      .where(inList(policyEvaluations.taskStageId, [...stageIds]))
      .orderBy(asc(policyEvaluations.createdAt), asc(policyEvaluations.policyKind))
      .all();
  }

  /** Evaluation ids per stage. */
  idsOf(stageIds: readonly string[]): Map<string, string[]> {
    const byStage = new Map<string, string[]>();
    for (const row of this.ofStages(stageIds)) byStage.set(row.taskStageId, [...(byStage.get(row.taskStageId) ?? []), row.id]);
    return byStage;
  }

  outcomesOf(evaluationIds: readonly string[]): PolicySetOutcomeRow[] {
    if (evaluationIds.length === 0) return [];
    return this.db
      .select()
      .from(policySetOutcomes)
      .where(inList(policySetOutcomes.policyEvaluationId, [...evaluationIds]))
      .orderBy(asc(policySetOutcomes.policySetName), asc(policySetOutcomes.id))
      .all();
  }

  findOutcome(id: string): PolicySetOutcomeRow | undefined {
    return this.db.select().from(policySetOutcomes).where(eq(policySetOutcomes.id, id)).get();
  }

  /** The evaluations as resources, with their outcomes' ids. */
  stageIncludes(stageIds: readonly string[]): { evaluations: ResourceObject[]; outcomes: ResourceObject[] } {
    const rows = this.ofStages(stageIds);
    const outcomes = this.outcomesOf(rows.map((row) => row.id)).map((row) => policySetOutcomeResource(row));
    return { evaluations: this.render(rows), outcomes };
  }

  render(rows: readonly PolicyEvaluationRow[]): ResourceObject[] {
    const outcomes = this.outcomesOf(rows.map((row) => row.id));
    return rows.map((row) =>
      policyEvaluationResource(
        row,
        outcomes.filter((outcome) => outcome.policyEvaluationId === row.id).map((outcome) => outcome.id),
      ),
    );
  }
}

const ORDER: EvaluationsVerdict[] = ['passed', 'overridable', 'failed', 'errored'];
const worse = (a: EvaluationsVerdict, b: EvaluationsVerdict) => (ORDER.indexOf(a) >= ORDER.indexOf(b) ? a : b);
