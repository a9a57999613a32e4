import { and, asc, count, eq, sql, type SQL } from 'drizzle-orm';
import type { AnySQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { DbOrTx } from '../../store/store.js';
import { policies, policySetPolicies, policySetProjects, policySets, policySetWorkspaces, type PolicyKind } from '../../store/tables.js';
import { inList } from '../../store/sql-lists.js';
import { updateRows } from '../../store/update.js';
import { likeLiteral } from '../sql-like.js';

export type PolicyRow = typeof policies.$inferSelect;
export type PolicySetRow = typeof policySets.$inferSelect;

/** What a policy set is attached to, as the wire's relationships name it. */
export interface PolicySetMembers {
  policies: string[];
  workspaces: string[];
  projects: string[];
  'workspace-exclusions': string[];
}
export type MemberKind = keyof PolicySetMembers;

export interface ListFilter {
  search?: string;
  kind?: PolicyKind;
}

function filtered(organization: SQL, nameColumn: AnySQLiteColumn, kindColumn: AnySQLiteColumn, filter: ListFilter): SQL {
  const parts: SQL[] = [organization];
  if (filter.search) parts.push(sql`${nameColumn} LIKE ${`%${likeLiteral(filter.search)}%`} ESCAPE '\\'`);
  if (filter.kind) parts.push(eq(kindColumn, filter.kind));
  return and(...parts) as SQL;
}

export function findPolicy(db: DbOrTx, id: string): PolicyRow | undefined {
  return db.select().from(policies).where(eq(policies.id, id)).get();
}

export function listPolicies(db: DbOrTx, organizationId: string, filter: ListFilter, offset: number, limit: number) {
  const where = filtered(eq(policies.organizationId, organizationId), policies.name, policies.kind, filter);
  const rows = db.select().from(policies).where(where).orderBy(asc(policies.name), asc(policies.id)).limit(limit).offset(offset).all();
  const total = db.select({ n: count() }).from(policies).where(where).get()?.n ?? 0;
  return { rows, total };
}

export function insertPolicy(db: DbOrTx, row: PolicyRow): void {
  db.insert(policies).values(row).run();
}

export function updatePolicy(db: DbOrTx, id: string, changes: Partial<PolicyRow>): void {
  updateRows(db, policies, changes, eq(policies.id, id));
}

export function deletePolicy(db: DbOrTx, id: string): void {
  db.delete(policies).where(eq(policies.id, id)).run();
}

/** The ids of the sets each policy belongs to. */
export function setsOfPolicies(db: DbOrTx, policyIds: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>(policyIds.map((id) => [id, []]));
  if (policyIds.length === 0) return out;
  const rows = db.select().from(policySetPolicies).where(inList(policySetPolicies.policyId, policyIds)).all();
  for (const row of rows) out.get(row.policyId)?.push(row.policySetId);
  return out;
}

export function findPolicySet(db: DbOrTx, id: string): PolicySetRow | undefined {
  return db.select().from(policySets).where(eq(policySets.id, id)).get();
}

export function listPolicySets(db: DbOrTx, organizationId: string, filter: ListFilter, offset: number, limit: number) {
  const where = filtered(eq(policySets.organizationId, organizationId), policySets.name, policySets.kind, filter);
  const rows = db
    .select()
    .from(policySets)
    .where(where)
    .orderBy(asc(policySets.name), asc(policySets.id))
    .limit(limit)
    .offset(offset)
    .all();
  const total = db.select({ n: count() }).from(policySets).where(where).get()?.n ?? 0;
  return { rows, total };
}

export function insertPolicySet(db: DbOrTx, row: PolicySetRow): void {
  db.insert(policySets).values(row).run();
}

export function updatePolicySet(db: DbOrTx, id: string, changes: Partial<PolicySetRow>): void {
  updateRows(db, policySets, changes, eq(policySets.id, id));
}

export function deletePolicySet(db: DbOrTx, id: string): void {
  db.delete(policySets).where(eq(policySets.id, id)).run();
}

export function membersOf(db: DbOrTx, policySetId: string): PolicySetMembers {
  const attached = db.select().from(policySetWorkspaces).where(eq(policySetWorkspaces.policySetId, policySetId)).all();
  return {
    policies: db
      .select({ id: policySetPolicies.policyId })
      .from(policySetPolicies)
      .where(eq(policySetPolicies.policySetId, policySetId))
      .all()
      .map((row) => row.id),
    workspaces: attached.filter((row) => !row.excluded).map((row) => row.workspaceId),
    projects: db
      .select({ id: policySetProjects.projectId })
      .from(policySetProjects)
      .where(eq(policySetProjects.policySetId, policySetId))
      .all()
      .map((row) => row.id),
    'workspace-exclusions': attached.filter((row) => row.excluded).map((row) => row.workspaceId),
  };
}

/** Adds members (already present ones are kept as they are). */
export function attach(db: DbOrTx, policySetId: string, kind: MemberKind, ids: readonly string[]): void {
  for (const id of ids) {
    if (kind === 'policies') db.insert(policySetPolicies).values({ policySetId, policyId: id }).onConflictDoNothing().run();
    else if (kind === 'projects') db.insert(policySetProjects).values({ policySetId, projectId: id }).onConflictDoNothing().run();
    else {
      const excluded = kind === 'workspace-exclusions';
      db.insert(policySetWorkspaces).values({ policySetId, workspaceId: id, excluded }).onConflictDoNothing().run();
    }
  }
}

export function detach(db: DbOrTx, policySetId: string, kind: MemberKind, ids: readonly string[]): void {
  if (ids.length === 0) return;
  const list = ids;
  if (kind === 'policies') {
    db.delete(policySetPolicies)
      .where(and(eq(policySetPolicies.policySetId, policySetId), inList(policySetPolicies.policyId, list)))
      .run();
  } else if (kind === 'projects') {
    db.delete(policySetProjects)
      .where(and(eq(policySetProjects.policySetId, policySetId), inList(policySetProjects.projectId, list)))
      .run();
  } else {
    const excluded = kind === 'workspace-exclusions';
    db.delete(policySetWorkspaces)
      .where(
        and(
          eq(policySetWorkspaces.policySetId, policySetId),
          eq(policySetWorkspaces.excluded, excluded),
          inList(policySetWorkspaces.workspaceId, list),
        ),
      )
      .run();
  }
}

/** Replaces one kind of member wholesale (a PATCH naming the relationship). */
export function replaceMembers(db: DbOrTx, policySetId: string, kind: MemberKind, ids: readonly string[]): void {
  detach(db, policySetId, kind, membersOf(db, policySetId)[kind]);
  attach(db, policySetId, kind, ids);
}
