import { isoTimestamp } from '../../core/clock.js';
import type { ResourceObject } from '../jsonapi/types.js';
import type { ToolVersionRow } from './repo.js';

/** An admin `terraform-versions`, `opa-versions` or `sentinel-versions` resource, with how many workspaces or policy sets pin it. */
export function toolVersionResource(
  row: Omit<ToolVersionRow, 'removed'>,
  usage: number,
  type: 'terraform-versions' | 'opa-versions' | 'sentinel-versions' = 'terraform-versions',
): ResourceObject {
  return {
    id: row.id,
    type,
    attributes: {
      version: row.version,
      url: row.url,
      sha: row.sha,
      official: row.official,
      enabled: row.enabled,
      beta: row.beta,
      deprecated: row.deprecated,
      'deprecated-reason': row.deprecatedReason,
      usage,
      'created-at': isoTimestamp(row.createdAt),
      archs: row.archs,
    },
    links: { self: `/api/v2/admin/${type}/${row.id}` },
  };
}
