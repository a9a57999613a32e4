import { isoTimestamp } from '../../core/clock.js';
import type { ResourceObject } from '../jsonapi/types.js';
import type { VariableRow } from './repo.js';

/** The `vars` resource. A sensitive variable's value is never rendered, to anyone. */
export function variableResource(variable: VariableRow): ResourceObject {
  return {
    id: variable.id,
    type: 'vars',
    attributes: {
      key: variable.key,
      value: variable.sensitive ? null : variable.value,
      sensitive: variable.sensitive,
      category: variable.category,
      hcl: variable.hcl,
      description: variable.description,
      'created-at': isoTimestamp(variable.createdAt),
      'version-id': variable.versionId,
    },
    relationships: {
      configurable: {
        data: { id: variable.workspaceId, type: 'workspaces' },
        links: { related: `/api/v2/workspaces/${variable.workspaceId}` },
      },
    },
    links: { self: `/api/v2/workspaces/${variable.workspaceId}/vars/${variable.id}` },
  };
}
