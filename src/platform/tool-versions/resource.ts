import { isoTimestamp } from '../../core/clock.js';
import type { ResourceObject } from '../jsonapi/types.js';
import type { ToolVersionRow } from './repo.js';

/** A `terraform-versions` resource of the admin API, with how many workspaces pin it. */
export function toolVersionResource(row: ToolVersionRow, usage: number): ResourceObject {
  return {
    id: row.id,
    type: 'terraform-versions',
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
    links: { self: `/api/v2/admin/terraform-versions/${row.id}` },
  };
}
