import type { ResourceObject } from '../jsonapi/types.js';
import type { AgentRow, AgentTokenRow } from './repo.js';

/** An agent token as go-tfe reads it; `token` only in the answer that created it. */
export function agentTokenResource(row: AgentTokenRow, secret?: string): ResourceObject {
  return {
    id: row.id,
    type: 'authentication-tokens',
    attributes: {
      'created-at': row.createdAt.toISOString(),
      'last-used-at': row.lastUsedAt?.toISOString() ?? null,
      description: row.description,
      token: secret ?? null,
    },
    relationships: { 'created-by': { data: row.createdById ? { id: row.createdById, type: 'users' } : null } },
    links: { self: `/api/v2/authentication-tokens/${row.id}` },
  };
}

export function agentResource(row: AgentRow): ResourceObject {
  return {
    id: row.id,
    type: 'agents',
    attributes: {
      name: row.name,
      status: row.status,
      'ip-address': row.ipAddress,
      'last-ping-at': row.lastPingAt.toISOString(),
    },
    relationships: { 'agent-pool': { data: { id: row.agentPoolId, type: 'agent-pools' } } },
    links: { self: `/api/v2/agents/${row.id}` },
  };
}
