import { and, eq } from 'drizzle-orm';
import type { DbOrTx } from '../../store/store.js';
import { policies, policySetPolicies, policySets, type PolicyCheckResult, type PolicyKind } from '../../store/tables.js';
import { membersOf, type PolicyRow } from './repo.js';

/**
 * The simulated evaluation: no policy language runs here. A policy passes unless its uploaded
 * source carries `understudy:fail`; a failing policy fails at its enforcement level, so a suite
 * can meet every outcome (advisory, soft and hard failures) with a one-line source.
 */
export const FAIL_MARKER = 'understudy:fail';

export const fails = (policy: PolicyRow) => (policy.source ?? '').includes(FAIL_MARKER);

/** The policies of `kind` that apply to a workspace: through sets attached to it, its project, or global ones not excluding it. */
export function applicablePolicies(
  db: DbOrTx,
  organizationId: string,
  workspaceId: string,
  projectId: string | null,
  kind: PolicyKind,
): PolicyRow[] {
  const sets = db
    .select()
    .from(policySets)
    .where(and(eq(policySets.organizationId, organizationId), eq(policySets.kind, kind)))
    .all();
  const byId = new Map<string, PolicyRow>();
  for (const set of sets) {
    const members = membersOf(db, set.id);
    const applies = set.global
      ? !members['workspace-exclusions'].includes(workspaceId)
      : members.workspaces.includes(workspaceId) || (projectId !== null && members.projects.includes(projectId));
    if (!applies) continue;
    const rows = db
      .select({ policy: policies })
      .from(policySetPolicies)
      .innerJoin(policies, eq(policies.id, policySetPolicies.policyId))
      .where(eq(policySetPolicies.policySetId, set.id))
      .all();
    for (const { policy } of rows) byId.set(policy.id, policy);
  }
  return [...byId.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/** Counts the outcome of every policy, as the check's `result` shows it. */
export function evaluate(applicable: readonly PolicyRow[]): PolicyCheckResult {
  const result: PolicyCheckResult = {
    result: true,
    passed: 0,
    'total-failed': 0,
    'hard-failed': 0,
    'soft-failed': 0,
    'advisory-failed': 0,
    duration: 0,
    lines: [],
  };
  for (const policy of applicable) {
    if (!fails(policy)) {
      result.passed += 1;
      result.lines.push(`${policy.name} (${policy.enforcementLevel}): PASS`);
      continue;
    }
    result['total-failed'] += 1;
    if (policy.enforcementLevel === 'advisory') result['advisory-failed'] += 1;
    else if (policy.enforcementLevel === 'soft-mandatory') result['soft-failed'] += 1;
    else result['hard-failed'] += 1;
    result.lines.push(`${policy.name} (${policy.enforcementLevel}): FAIL`);
  }
  result.result = result['hard-failed'] === 0 && result['soft-failed'] === 0;
  return result;
}
