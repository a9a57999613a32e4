import { NO_CHANGES, type ChangeSummary } from './executor.js';

interface Change {
  actions?: string[];
  importing?: unknown;
}

/**
 * Counts a plan's changes the way the platform shows them: a replacement is one addition and one
 * destruction, an import is counted apart, and outputs alone are still changes (an apply is due).
 */
export function summarisePlan(plan: unknown): { summary: ChangeSummary; hasChanges: boolean } {
  if (typeof plan !== 'object' || plan === null) return { summary: NO_CHANGES, hasChanges: false };
  const document = plan as { resource_changes?: { change?: Change }[]; output_changes?: Record<string, Change> };
  const summary = { ...NO_CHANGES };
  let resourceChanges = false;
  for (const { change } of document.resource_changes ?? []) {
    const actions = change?.actions ?? [];
    if (change?.importing) summary.imports += 1;
    if (actions.includes('create')) summary.additions += 1;
    if (actions.includes('delete')) summary.destructions += 1;
    if (actions.length === 1 && actions[0] === 'update') summary.changes += 1;
    if (actions.some((action) => action !== 'no-op' && action !== 'read') || change?.importing) resourceChanges = true;
  }
  const outputChanges = Object.values(document.output_changes ?? {}).some((change) =>
    (change.actions ?? []).some((action) => action !== 'no-op'),
  );
  return { summary, hasChanges: resourceChanges || outputChanges };
}
