import type { Clock } from '../../core/clock.js';
import { sha256Hex } from '../../core/crypto.js';
import { ApiError, unprocessable } from '../../core/errors.js';
import { newId, secretToken } from '../../core/ids.js';
import type { Db } from '../../store/store.js';
import type { AgentPoolService } from '../agent-pools/service.js';
import { Permissions } from '../auth/permissions.js';
import type { Principal } from '../auth/principal.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import * as repo from './repo.js';
import { agentTokenResource } from './resource.js';
import type { AgentRow, AgentTokenRow } from './repo.js';

/** An agent that has not pinged for this long is `unknown`, then `exited` (the real service's words). */
const UNKNOWN_AFTER_MS = 2 * 60 * 1000;
const EXITED_AFTER_MS = 60 * 60 * 1000;
/** The statuses an agent reports (`idle`, `busy`) or is given when it stops reporting. */
export const AGENT_STATUSES = ['idle', 'busy', 'unknown', 'exited', 'errored'] as const;

/** What the clock says about an agent that stopped pinging. */
export function withClockStatus(agent: AgentRow, nowMs: number): AgentRow {
  const silent = nowMs - agent.lastPingAt.getTime();
  if (agent.status === 'exited' || agent.status === 'errored') return agent;
  if (silent >= EXITED_AFTER_MS) return { ...agent, status: 'exited' };
  if (silent >= UNKNOWN_AFTER_MS) return { ...agent, status: 'unknown' };
  return agent;
}

const refused = () => new ApiError(401, 'the agent token is not valid', { title: 'unauthorized' });

/**
 * Agent tokens of a pool and the agents that registered with them. Managing tokens takes Manage
 * Agent Pools; reading agents, membership of the organization. Agents speak their own small API
 * (`/api/agent`), authenticated by an agent token, never by an API token.
 */
export class AgentService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly pools: AgentPoolService,
    /** Told when an agent of a pool is ready for work (registered, or reported idle): queued agent runs take it. */
    private readonly onIdle: (poolId: string) => void = () => undefined,
  ) {}

  private managedPool(principal: Principal, poolId: string) {
    const visible = this.pools.visible(principal, poolId);
    if (!new Permissions(this.db).can(principal, visible.organization, 'manage-agent-pools')) throw NOT_FOUND;
    return visible;
  }

  createToken(principal: Principal, poolId: string, description: string | null | undefined): { row: AgentTokenRow; secret: string } {
    const { pool } = this.managedPool(principal, poolId);
    if (!description) throw unprocessable("Description can't be blank", '/data/attributes/description');
    if (description.length > 255)
      throw unprocessable('Description is too long (maximum is 255 characters)', '/data/attributes/description');
    const secret = `${secretToken(10)}.agent.${secretToken(32)}`;
    const row: AgentTokenRow = {
      id: newId('at'),
      agentPoolId: pool.id,
      tokenHash: sha256Hex(secret),
      description,
      createdById: principal.kind === 'user' ? principal.user.id : null,
      createdAt: this.clock.now(),
      lastUsedAt: null,
    };
    repo.insertToken(this.db, row);
    return { row, secret };
  }

  listTokens(principal: Principal, poolId: string, offset: number, limit: number) {
    return repo.tokensOf(this.db, this.managedPool(principal, poolId).pool.id, offset, limit);
  }

  /** An agent token the caller may manage, or undefined when the id names no agent token (another kind may own it). */
  findToken(principal: Principal, id: string): AgentTokenRow | undefined {
    const row = repo.findToken(this.db, id);
    if (!row) return undefined;
    this.managedPool(principal, row.agentPoolId);
    return row;
  }

  /** An agent token as a wire object (for the shared `/authentication-tokens/:id` read). */
  tokenDocument(row: AgentTokenRow) {
    return agentTokenResource(row);
  }

  revokeToken(principal: Principal, id: string): boolean {
    const row = this.findToken(principal, id);
    if (!row) return false;
    repo.deleteToken(this.db, row.id);
    return true;
  }

  listAgents(principal: Principal, poolId: string, since: Date | undefined, offset: number, limit: number) {
    const { pool } = this.pools.visible(principal, poolId);
    const { rows, total } = repo.agentsOf(this.db, pool.id, since, offset, limit);
    return { rows: rows.map((row) => this.withStatus(row)), total };
  }

  getAgent(principal: Principal, id: string): AgentRow {
    const agent = repo.findAgent(this.db, id);
    if (!agent) throw NOT_FOUND;
    this.pools.visible(principal, agent.agentPoolId);
    return this.withStatus(agent);
  }

  private withStatus(agent: AgentRow): AgentRow {
    return withClockStatus(agent, this.clock.nowMs());
  }

  /** The token behind an agent's bearer secret (401 for anything else). */
  private agentToken(secret: string | undefined): AgentTokenRow {
    const row = secret ? repo.findTokenByHash(this.db, sha256Hex(secret)) : undefined;
    if (!row) throw refused();
    repo.touchToken(this.db, row.id, this.clock.now());
    return row;
  }

  /** `POST /api/agent/register`: a new agent in the token's pool, `idle`. */
  register(secret: string | undefined, name: string | undefined, ipAddress: string): AgentRow {
    const token = this.agentToken(secret);
    const at = this.clock.now();
    const row: AgentRow = {
      id: newId('agent'),
      agentPoolId: token.agentPoolId,
      name: name && name.length <= 255 ? name : `agent-${at.getTime().toString(36)}`,
      ipAddress,
      status: 'idle',
      lastPingAt: at,
      createdAt: at,
    };
    repo.insertAgent(this.db, row);
    this.onIdle(row.agentPoolId);
    return row;
  }

  /** `POST /api/agent/status`: the agent is alive and says what it is doing (`idle`, `busy`, `exited`). */
  ping(secret: string | undefined, agentId: string, status: string | undefined): AgentRow {
    const token = this.agentToken(secret);
    const agent = repo.findAgent(this.db, agentId);
    if (!agent || agent.agentPoolId !== token.agentPoolId) throw NOT_FOUND;
    const next = status ?? 'idle';
    if (!['idle', 'busy', 'exited', 'errored'].includes(next)) {
      throw new ApiError(422, 'status must be one of idle, busy, exited, errored', { title: 'invalid attribute', pointer: '/status' });
    }
    const changes = { status: next, lastPingAt: this.clock.now() };
    repo.updateAgent(this.db, agent.id, changes);
    if (next === 'idle') this.onIdle(agent.agentPoolId);
    return { ...agent, ...changes };
  }
}
