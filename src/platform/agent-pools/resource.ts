import { isoTimestamp } from '../../core/clock.js';
import type { ResourceObject } from '../jsonapi/types.js';
import type { AgentPoolRow } from './repo.js';

export function agentPoolResource(pool: AgentPoolRow, organizationName: string, workspaceIds: readonly string[]): ResourceObject {
  const self = `/api/v2/agent-pools/${pool.id}`;
  const workspaceRefs = workspaceIds.map((id) => ({ id, type: 'workspaces' }));
  return {
    id: pool.id,
    type: 'agent-pools',
    attributes: {
      name: pool.name,
      'created-at': isoTimestamp(pool.createdAt),
      'organization-scoped': pool.organizationScoped,
      // No agents ever connect to understudy.
      'agent-count': 0,
    },
    relationships: {
      organization: { data: { id: organizationName, type: 'organizations' } },
      agents: { links: { related: `${self}/agents` } },
      'authentication-tokens': { links: { related: `${self}/authentication-tokens` } },
      workspaces: { data: workspaceRefs },
      'allowed-workspaces': { data: [] },
    },
    links: { self },
  };
}
