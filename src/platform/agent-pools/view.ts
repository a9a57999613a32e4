import type { DbOrTx } from '../../store/store.js';
import { poolWorkspaceIds, workspaceIdsByPool, type AgentPoolRow } from './repo.js';
import { agentPoolResource } from './resource.js';

/** The pools as resources, with their workspaces read in two queries whatever the number of pools. */
export function renderPools(db: DbOrTx, pools: AgentPoolRow[], organizationName: string) {
  const ids = pools.map((pool) => pool.id);
  const using = workspaceIdsByPool(db, ids);
  const lists = poolWorkspaceIds(db, ids);
  return pools.map((pool) => {
    const { allowed, excluded } = lists.get(pool.id) ?? { allowed: [], excluded: [] };
    return agentPoolResource(pool, organizationName, { using: using.get(pool.id) ?? [], allowed, excluded });
  });
}
