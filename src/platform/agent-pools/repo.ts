import { and, asc, count, eq, exists, not, or } from 'drizzle-orm';
import { inList } from '../../store/sql-lists.js';
import type { DbOrTx } from '../../store/store.js';
import { agentPoolWorkspaces, agentPools, workspaces } from '../../store/tables.js';
import { inSlices } from '../sql-slices.js';
import { containsIgnoringCase } from '../users/repo.js';
import { updateRows } from '../../store/update.js';

export type AgentPoolRow = typeof agentPools.$inferSelect;

export function findAgentPool(db: DbOrTx, id: string): AgentPoolRow | undefined {
  return db.select().from(agentPools).where(eq(agentPools.id, id)).get();
}

export function findAgentPoolByName(db: DbOrTx, organizationId: string, name: string): AgentPoolRow | undefined {
  return db
    .select()
    .from(agentPools)
    .where(and(eq(agentPools.organizationId, organizationId), eq(agentPools.name, name)))
    .get();
}

export type PoolWorkspaceKind = (typeof agentPoolWorkspaces.$inferSelect)['kind'];

export interface AgentPoolFilter {
  /** Substring of the pool name (`q`). */
  query?: string;
  /** Exact name of a workspace that may use the pool (`filter[allowed_workspaces][name]`). */
  allowedWorkspaceName?: string;
}

/**
 * Pools the organization's workspace of this name may use: those that name it among their allowed
 * workspaces, and the organization-scoped ones that do not exclude it. A name no workspace has
 * matches no pool.
 */
function usableByWorkspaceNamed(db: DbOrTx, organizationId: string, name: string) {
  const named = and(eq(workspaces.organizationId, organizationId), eq(workspaces.name, name));
  const listing = (kind: PoolWorkspaceKind) =>
    db
      .select({ id: agentPoolWorkspaces.poolId })
      .from(agentPoolWorkspaces)
      .innerJoin(workspaces, eq(workspaces.id, agentPoolWorkspaces.workspaceId))
      .where(and(eq(agentPoolWorkspaces.kind, kind), named));
  const workspaceExists = exists(db.select({ id: workspaces.id }).from(workspaces).where(named));
  return or(
    inList(agentPools.id, listing('allowed')),
    and(eq(agentPools.organizationScoped, true), workspaceExists, not(inList(agentPools.id, listing('excluded')))),
  );
}

export function listAgentPools(
  db: DbOrTx,
  organizationId: string,
  filter: AgentPoolFilter,
  offset: number,
  limit: number,
): { rows: AgentPoolRow[]; total: number } {
  const where = and(
    eq(agentPools.organizationId, organizationId),
    filter.query ? containsIgnoringCase(agentPools.name, filter.query) : undefined,
    filter.allowedWorkspaceName !== undefined ? usableByWorkspaceNamed(db, organizationId, filter.allowedWorkspaceName) : undefined,
  );
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
    .where(inList(workspaces.agentPoolId, poolIds))
    .orderBy(asc(workspaces.name))
    .all();
  for (const row of rows) if (row.poolId) result.get(row.poolId)?.push(row.id);
  return result;
}

export function insertAgentPool(db: DbOrTx, row: AgentPoolRow): void {
  db.insert(agentPools).values(row).run();
}

export function updateAgentPool(db: DbOrTx, id: string, changes: Partial<Pick<AgentPoolRow, 'name' | 'organizationScoped'>>): void {
  updateRows(db, agentPools, changes, eq(agentPools.id, id));
}

export function deleteAgentPool(db: DbOrTx, id: string): void {
  db.delete(agentPools).where(eq(agentPools.id, id)).run();
}

/** Workspace ids each pool names, by kind, in one query. */
export function poolWorkspaceIds(db: DbOrTx, poolIds: string[]): Map<string, Record<PoolWorkspaceKind, string[]>> {
  const result = new Map<string, Record<PoolWorkspaceKind, string[]>>(poolIds.map((id) => [id, { allowed: [], excluded: [] }]));
  if (poolIds.length === 0) return result;
  const rows = db
    .select({ poolId: agentPoolWorkspaces.poolId, workspaceId: agentPoolWorkspaces.workspaceId, kind: agentPoolWorkspaces.kind })
    .from(agentPoolWorkspaces)
    .innerJoin(workspaces, eq(workspaces.id, agentPoolWorkspaces.workspaceId))
    .where(inList(agentPoolWorkspaces.poolId, poolIds))
    .orderBy(asc(workspaces.name))
    .all();
  for (const row of rows) result.get(row.poolId)?.[row.kind].push(row.workspaceId);
  return result;
}

/** Replaces the pool's workspaces of one kind. */
export function setPoolWorkspaces(db: DbOrTx, poolId: string, kind: PoolWorkspaceKind, workspaceIds: readonly string[]): void {
  db.delete(agentPoolWorkspaces)
    .where(and(eq(agentPoolWorkspaces.poolId, poolId), eq(agentPoolWorkspaces.kind, kind)))
    .run();
  const unique = [...new Set(workspaceIds)];
  // A body may name any number of workspaces; slices keep each statement within SQLite's limits.
  for (const slice of inSlices(unique))
    db.insert(agentPoolWorkspaces)
      .values(slice.map((workspaceId) => ({ poolId, workspaceId, kind })))
      .run();
}
