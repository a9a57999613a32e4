import { unprocessable } from '../../core/errors.js';
import type { DbOrTx } from '../../store/store.js';
import * as repo from './repo.js';
import type { AgentPoolRow } from './repo.js';

/** The text real clients match when a request names a pool that is not there. */
export const UNKNOWN_AGENT_POOL = 'The provided agent pool does not exist';

/** The pool `id` if it belongs to `organizationId`; otherwise the 422 real clients match on. */
export function requireAgentPoolOf(db: DbOrTx, organizationId: string, id: string, pointer: string): AgentPoolRow {
  const pool = repo.findAgentPool(db, id);
  if (!pool || pool.organizationId !== organizationId) throw unprocessable(UNKNOWN_AGENT_POOL, pointer);
  return pool;
}
