import type { PolicyCheckResult } from '../../store/tables.js';
import type { PolicyRow } from './repo.js';
import type { EvaluatedPolicy, SetEvaluation } from './set-evaluation.js';

/**
 * The simulated evaluation: no policy language runs here. A policy passes unless its uploaded
 * source carries `understudy:fail`; a failing policy fails at its enforcement level, so a suite
 * can meet every outcome (advisory, soft and hard failures) with a one-line source.
 */
export const FAIL_MARKER = 'understudy:fail';

export const fails = (policy: PolicyRow) => (policy.source ?? '').includes(FAIL_MARKER);

/**
 * Counts the outcome of every policy of the sets a sentinel check evaluates, as its `result`
 * shows it. A policy attached to several sets counts once; a set whose archive could not be read
 * counts as a hard failure (the run cannot go on without it), with the reason in the output.
 */
export function countCheck(sets: readonly SetEvaluation[]): PolicyCheckResult {
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
  const seen = new Set<string>();
  const all: EvaluatedPolicy[] = [];
  for (const evaluation of sets) {
    for (const policy of evaluation.policies) {
      if (policy.id !== undefined && seen.has(policy.id)) continue;
      if (policy.id !== undefined) seen.add(policy.id);
      all.push(policy);
    }
  }
  for (const policy of all.sort((a, b) => a.name.localeCompare(b.name))) {
    if (!policy.failed) {
      result.passed += 1;
      result.lines.push(`${policy.name} (${policy.level}): PASS`);
      continue;
    }
    result['total-failed'] += 1;
    if (policy.level === 'advisory') result['advisory-failed'] += 1;
    else if (policy.level === 'soft-mandatory') result['soft-failed'] += 1;
    else result['hard-failed'] += 1;
    result.lines.push(`${policy.name} (${policy.level}): FAIL`);
  }
  for (const evaluation of sets) {
    if (evaluation.error === null) continue;
    result['total-failed'] += 1;
    result['hard-failed'] += 1;
    result.lines.push(`policy set ${evaluation.set.name}: ERROR ${evaluation.error}`);
  }
  result.result = result['hard-failed'] === 0 && result['soft-failed'] === 0;
  return result;
}
