import { isoTimestamp } from '../../core/clock.js';
import type { ResourceObject } from '../jsonapi/types.js';
import type { VariableRow } from './repo.js';

type VariableFields = Pick<VariableRow, 'key' | 'value' | 'sensitive' | 'category' | 'hcl' | 'description' | 'createdAt' | 'versionId'>;

/** A variable's attributes, wherever it lives (a workspace, a variable set); a sensitive value is never rendered, to anyone. */
export function variableAttributes(variable: VariableFields): Record<string, unknown> {
  return {
    key: variable.key,
    value: variable.sensitive ? null : variable.value,
    sensitive: variable.sensitive,
    category: variable.category,
    hcl: variable.hcl,
    description: variable.description,
    'created-at': isoTimestamp(variable.createdAt),
    'version-id': variable.versionId,
  };
}

/** The `vars` resource of a workspace variable. */
export function variableResource(variable: VariableRow): ResourceObject {
  return {
    id: variable.id,
    type: 'vars',
    attributes: variableAttributes(variable),
    relationships: {
      configurable: {
        data: { id: variable.workspaceId, type: 'workspaces' },
        links: { related: `/api/v2/workspaces/${variable.workspaceId}` },
      },
    },
    links: { self: `/api/v2/workspaces/${variable.workspaceId}/vars/${variable.id}` },
  };
}
