import { and, asc, count, desc, eq, gte } from 'drizzle-orm';
import type { DbOrTx } from '../../store/store.js';
import { agents, agentTokens } from '../../store/tables.js';

export type AgentTokenRow = typeof agentTokens.$inferSelect;
export type AgentRow = typeof agents.$inferSelect;

export function insertToken(db: DbOrTx, row: AgentTokenRow): void {
  db.insert(agentTokens).values(row).run();
}

export function tokensOf(db: DbOrTx, poolId: string, offset: number, limit: number): { rows: AgentTokenRow[]; total: number } {
  const where = eq(agentTokens.agentPoolId, poolId);
  const rows = db
    .select()
    .from(agentTokens)
    .where(where)
    .orderBy(asc(agentTokens.createdAt), asc(agentTokens.id))
    .limit(limit)
    .offset(offset)
    .all();
  return { rows, total: db.select({ n: count() }).from(agentTokens).where(where).get()?.n ?? 0 };
}

export function findToken(db: DbOrTx, id: string): AgentTokenRow | undefined {
  return db.select().from(agentTokens).where(eq(agentTokens.id, id)).get();
}

export function findTokenByHash(db: DbOrTx, hash: string): AgentTokenRow | undefined {
  return db.select().from(agentTokens).where(eq(agentTokens.tokenHash, hash)).get();
}

export function touchToken(db: DbOrTx, id: string, at: Date): void {
  db.update(agentTokens).set({ lastUsedAt: at }).where(eq(agentTokens.id, id)).run();
}

export function deleteToken(db: DbOrTx, id: string): void {
  db.delete(agentTokens).where(eq(agentTokens.id, id)).run();
}

export function insertAgent(db: DbOrTx, row: AgentRow): void {
  db.insert(agents).values(row).run();
}

export function findAgent(db: DbOrTx, id: string): AgentRow | undefined {
  return db.select().from(agents).where(eq(agents.id, id)).get();
}

export function updateAgent(db: DbOrTx, id: string, changes: Partial<Pick<AgentRow, 'status' | 'lastPingAt' | 'ipAddress'>>): void {
  db.update(agents).set(changes).where(eq(agents.id, id)).run();
}

export function agentsOf(
  db: DbOrTx,
  poolId: string,
  since: Date | undefined,
  offset: number,
  limit: number,
): { rows: AgentRow[]; total: number } {
  const where = and(eq(agents.agentPoolId, poolId), since ? gte(agents.lastPingAt, since) : undefined);
  const rows = db.select().from(agents).where(where).orderBy(desc(agents.lastPingAt), asc(agents.id)).limit(limit).offset(offset).all();
  return { rows, total: db.select({ n: count() }).from(agents).where(where).get()?.n ?? 0 };
}

/** A pool's agents that last said they were idle, longest-registered first (the order they are handed runs). */
export function idleAgentsOf(db: DbOrTx, poolId: string): AgentRow[] {
  return db
    .select()
    .from(agents)
    .where(and(eq(agents.agentPoolId, poolId), eq(agents.status, 'idle')))
    .orderBy(asc(agents.createdAt), asc(agents.id))
    .all();
}
