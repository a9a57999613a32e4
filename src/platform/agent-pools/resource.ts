import { isoTimestamp } from '../../core/clock.js';
import type { ResourceObject } from '../jsonapi/types.js';
import type { AgentPoolRow } from './repo.js';

/** The workspaces a pool touches: those running on it, and those it allows or excludes. */
export interface PoolWorkspaces {
  using: readonly string[];
  allowed: readonly string[];
  excluded: readonly string[];
}

const refs = (ids: readonly string[]) => ids.map((id) => ({ id, type: 'workspaces' }));

export function agentPoolResource(pool: AgentPoolRow, organizationName: string, workspaces: PoolWorkspaces): ResourceObject {
  const self = `/api/v2/agent-pools/${pool.id}`;
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
      workspaces: { data: refs(workspaces.using) },
      'allowed-workspaces': { data: refs(workspaces.allowed) },
      'excluded-workspaces': { data: refs(workspaces.excluded) },
    },
    links: { self },
  };
}
