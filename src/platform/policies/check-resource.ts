import type { ResourceObject } from '../jsonapi/types.js';
import type { PolicyCheckRow } from './checks.js';

/** The `policy-checks` resource; sentinel's detailed result is not simulated (null). */
export function policyCheckResource(row: PolicyCheckRow, flags: { overridable: boolean; canOverride: boolean }): ResourceObject {
  const { lines: _lines, ...result } = row.result;
  return {
    id: row.id,
    type: 'policy-checks',
    attributes: {
      actions: { 'is-overridable': flags.overridable },
      permissions: { 'can-override': flags.canOverride },
      result: { ...result, sentinel: null },
      scope: 'organization',
      status: row.status,
      'status-timestamps': row.statusTimestamps,
    },
    relationships: { run: { data: { id: row.runId, type: 'runs' } } },
    links: { output: `/api/v2/policy-checks/${row.id}/output` },
  };
}
