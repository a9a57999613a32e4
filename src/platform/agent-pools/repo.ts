import { and, asc, count, eq, inArray } from 'drizzle-orm';
import type { DbOrTx } from '../../store/store.js';
import { agentPools, workspaces } from '../../store/tables.js';
import { containsIgnoringCase } from '../users/repo.js';

export type AgentPoolRow = typeof agentPools.$inferSelect;

export function findAgentPool(db: DbOrTx, id: string): AgentPoolRow | undefined {
  return db.select().from(agentPools).where(eq(agentPools.id, id)).get();
}

export function findAgentPoolByName(db: DbOrTx, organizationId: string, name: string): AgentPoolRow | undefined {
  return db.select().from(agentPools).where(and(eq(agentPools.organizationId, organizationId), eq(agentPools.name, name))).get();
}

export function listAgentPools(db: DbOrTx, organizationId: string, query: string | undefined, offset: number, limit: number): { rows: AgentPoolRow[]; total: number } {
  const where = and(eq(agentPools.organizationId, organizationId), query ? containsIgnoringCase(agentPools.name, query) : undefined);
  const rows = db.select().from(agentPools).where(where).orderBy(asc(agentPools.name)).limit(limit).offset(offset).all();
  const total = db.select({ n: count() }).from(agentPools).where(where).get()?.n ?? 0;
  return { rows, total };
}

/** Ids of the workspaces using each pool, in one query. */
export function workspaceIdsByPool(db: DbOrTx, poolIds: string[]): Map<string, string[]> {
  const result = new Map<string, string[]>(poolIds.map((id) => [id, []]));
  if (poolIds.length === 0) return result;
  const rows = db
    .select({ poolId: workspaces.agentPoolId, id: workspaces.id })
    .from(workspaces)
    .where(inArray(workspaces.agentPoolId, poolIds))
    .orderBy(asc(workspaces.name))
    .all();
  for (const row of rows) if (row.poolId) result.get(row.poolId)?.push(row.id);
  return result;
}

export function insertAgentPool(db: DbOrTx, row: AgentPoolRow): void {
  db.insert(agentPools).values(row).run();
}

export function updateAgentPool(db: DbOrTx, id: string, changes: Partial<Pick<AgentPoolRow, 'name' | 'organizationScoped'>>): void {
  db.update(agentPools).set(changes).where(eq(agentPools.id, id)).run();
}

export function deleteAgentPool(db: DbOrTx, id: string): void {
  db.delete(agentPools).where(eq(agentPools.id, id)).run();
}
