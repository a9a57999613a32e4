import { isoTimestamp } from '../../core/clock.js';
import type { ResourceObject } from '../jsonapi/types.js';
import type { VariableSetRow } from './precedence.js';
import type { SetVariableRow } from './repo.js';
import { variableAttributes } from '../variables/resource.js';

export interface VariableSetMembers {
  workspaceIds: readonly string[];
  projectIds: readonly string[];
  variableIds: readonly string[];
}

export function variableSetResource(set: VariableSetRow, organizationName: string, members: VariableSetMembers): ResourceObject {
  const refs = (ids: readonly string[], type: string) => ids.map((id) => ({ id, type }));
  return {
    id: set.id,
    type: 'varsets',
    attributes: {
      name: set.name,
      description: set.description,
      global: set.global,
      priority: set.priority,
      'updated-at': isoTimestamp(set.updatedAt),
      'var-count': members.variableIds.length,
      'workspace-count': members.workspaceIds.length,
      'project-count': members.projectIds.length,
    },
    relationships: {
      organization: { data: { id: organizationName, type: 'organizations' } },
      workspaces: { data: refs(members.workspaceIds, 'workspaces') },
      projects: { data: refs(members.projectIds, 'projects') },
      vars: { data: refs(members.variableIds, 'vars') },
    },
    links: { self: `/api/v2/varsets/${set.id}` },
  };
}

/** A set's variable: a `vars` resource whose `configurable` is the set; sensitive values never leave. */
export function setVariableResource(variable: SetVariableRow): ResourceObject {
  return {
    id: variable.id,
    type: 'vars',
    attributes: variableAttributes(variable),
    relationships: {
      configurable: { data: { id: variable.setId, type: 'varsets' }, links: { related: `/api/v2/varsets/${variable.setId}` } },
    },
    links: { self: `/api/v2/varsets/${variable.setId}/relationships/vars/${variable.id}` },
  };
}
