import { isoTimestamp } from '../../core/clock.js';
import { hasPermission } from '../auth/workspace-permissions.js';
import type { ResourceObject } from '../jsonapi/types.js';
import { actorRelationship } from '../runs/resource.js';
import type { Located } from '../workspaces/service.js';
import type { QueryRunRow } from './repo.js';

/**
 * The `queries` resource, with the attributes of the real API's document and the Go client's
 * `QueryRun`; `logReadUrl` is absolute and self-authorizing (the run logs' link).
 */
export function queryRunResource(query: QueryRunRow, located: Located, cancelable: boolean, logReadUrl: string): ResourceObject {
  const canQueue = hasPermission(located.scope, located.level, 'can-queue-run');
  const base = `/api/v2/queries/${query.id}`;
  const related = (id: string, type: string) => ({ data: { id, type }, links: { related: `/api/v2/${type}/${id}` } });
  return {
    id: query.id,
    type: 'queries',
    attributes: {
      actions: { 'is-cancelable': cancelable, 'is-force-cancelable': false },
      permissions: { 'can-cancel': canQueue, 'can-force-cancel': canQueue },
      'canceled-at': query.statusTimestamps['canceled-at'] ?? null,
      'created-at': isoTimestamp(query.createdAt),
      'updated-at': isoTimestamp(query.updatedAt),
      'force-cancel-available-at': null,
      'generate-config-out': query.generateConfigOut,
      'log-read-url': logReadUrl,
      'policy-paths': [],
      'resources-discovered': query.resourcesDiscovered,
      source: query.source,
      status: query.status,
      'status-timestamps': query.statusTimestamps,
      'terraform-version': query.terraformVersion,
      variables: query.variables,
    },
    relationships: {
      workspace: related(query.workspaceId, 'workspaces'),
      'configuration-version': related(query.configurationVersionId, 'configuration-versions'),
      'created-by': actorRelationship(query.createdBy, located.organization),
      'canceled-by': actorRelationship(query.canceledBy, located.organization),
      'no-code-query': { data: null },
    },
    links: { self: base },
  };
}
