import { and, eq } from 'drizzle-orm';
import { sha256Hex } from '../../core/crypto.js';
import type { DbOrTx } from '../../store/store.js';
import { taskResults, taskStages } from '../../store/tables.js';

/**
 * The run whose task service holds `token`: a run task payload's `access_token` reads that run's
 * plan JSON and configuration version (as a real task service does) while its result is still
 * `running`, and opens nothing else.
 */
export function runOfTaskAccessToken(db: DbOrTx, token: string | undefined): string | undefined {
  if (!token) return undefined;
  return db
    .select({ runId: taskStages.runId })
    .from(taskResults)
    .innerJoin(taskStages, eq(taskStages.id, taskResults.taskStageId))
    .where(and(eq(taskResults.tokenHash, sha256Hex(token)), eq(taskResults.status, 'running')))
    .get()?.runId;
}
