import type { Clock } from '../../core/clock.js';
import type { Db } from '../../store/store.js';
import type { ExecutionDetails } from '../../store/tables.js';
import { findAgentPool } from '../agent-pools/repo.js';
import * as agentsRepo from '../agents/repo.js';
import { withClockStatus } from '../agents/service.js';
import { findOrganizationById } from '../organizations/repo.js';
import { findWorkspace } from '../workspaces/repo.js';
import { effectiveExecution } from '../workspaces/resource.js';
import type { RunRow } from './repo.js';

interface Waiter {
  runId: string;
  take: (details: ExecutionDetails) => void;
}

/** The run's phase was canceled while it waited for an agent. */
export class AgentWaitAborted extends Error {}

/**
 * Hands the phases of runs in `agent` execution mode to the registered agents of the workspace's
 * pool: one phase per agent at a time, an agent `busy` while it holds one and `idle` again after.
 * With no idle agent the phase waits (the run stays queued), oldest first, until an agent
 * registers or reports idle. The simulated executor still does the work; the agent is who the
 * run records as having done it (`execution-details`).
 */
export class AgentDispatch {
  /** Agent id → the run holding it (an agent's own `idle` ping does not free it meanwhile). */
  private readonly held = new Map<string, string>();
  private readonly waiting = new Map<string, Waiter[]>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** The pool a run's phases go to, or null when its workspace does not run on agents. */
  poolOf(run: RunRow): string | null {
    const workspace = findWorkspace(this.db, run.workspaceId);
    const organization = findOrganizationById(this.db, run.organizationId);
    if (!workspace || !organization) return null;
    const execution = effectiveExecution(workspace, organization);
    return execution.mode === 'agent' ? execution.agentPoolId : null;
  }

  /**
   * An agent of the pool for the run's next phase: at once when one is idle, otherwise when one
   * becomes so. `onWait` is told when the phase has to wait; the signal abandons the wait.
   */
  claim(run: RunRow, poolId: string, signal: AbortSignal, onWait: () => void): Promise<ExecutionDetails> {
    const ready = this.take(poolId, run.id);
    if (ready) return Promise.resolve(ready);
    return new Promise<ExecutionDetails>((resolve, reject) => {
      const waiter: Waiter = {
        runId: run.id,
        take: (details) => {
          signal.removeEventListener('abort', abandon);
          resolve(details);
        },
      };
      const abandon = () => {
        this.dropWaiter(poolId, waiter);
        reject(new AgentWaitAborted());
      };
      if (signal.aborted) return abandon();
      signal.addEventListener('abort', abandon, { once: true });
      this.waiting.set(poolId, [...(this.waiting.get(poolId) ?? []), waiter]);
      onWait();
    });
  }

  /** The run's phase is over: its agent is idle again and goes to the next waiting run. */
  release(runId: string): void {
    for (const [agentId, holder] of this.held) {
      if (holder !== runId) continue;
      this.held.delete(agentId);
      const agent = agentsRepo.findAgent(this.db, agentId);
      if (!agent) continue;
      if (agent.status === 'busy') agentsRepo.updateAgent(this.db, agentId, { status: 'idle' });
      this.offer(agent.agentPoolId);
    }
  }

  /** An agent of the pool registered or reported idle: waiting runs get it, oldest first. */
  offer(poolId: string): void {
    const queue = this.waiting.get(poolId) ?? [];
    for (let first = queue[0]; first !== undefined; first = queue[0]) {
      const details = this.take(poolId, first.runId);
      if (!details) break;
      queue.shift();
      first.take(details);
    }
    if (queue.length === 0) this.waiting.delete(poolId);
  }

  /** After a reset: the store is empty, so nobody holds or waits for an agent. */
  reset(): void {
    this.held.clear();
    this.waiting.clear();
  }

  /** Marks the first idle, live, unheld agent of the pool busy for the run; undefined when there is none. */
  private take(poolId: string, runId: string): ExecutionDetails | undefined {
    const now = this.clock.nowMs();
    const agent = agentsRepo
      .idleAgentsOf(this.db, poolId)
      .find((candidate) => !this.held.has(candidate.id) && withClockStatus(candidate, now).status === 'idle');
    if (!agent) return undefined;
    this.held.set(agent.id, runId);
    agentsRepo.updateAgent(this.db, agent.id, { status: 'busy' });
    return {
      mode: 'agent',
      'agent-id': agent.id,
      'agent-name': agent.name,
      'agent-pool-id': poolId,
      'agent-pool-name': findAgentPool(this.db, poolId)?.name ?? poolId,
    };
  }

  private dropWaiter(poolId: string, waiter: Waiter): void {
    const queue = (this.waiting.get(poolId) ?? []).filter((entry) => entry !== waiter);
    if (queue.length > 0) this.waiting.set(poolId, queue);
    else this.waiting.delete(poolId);
  }
}
