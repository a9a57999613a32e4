import { and, eq, sql } from 'drizzle-orm';
import { prepared } from '../store/prepared.js';
import type { DbOrTx } from '../store/store.js';
import { listCounts } from '../store/tables.js';

/** The lists `list_counts` keeps (see store/schema/lists.ts). */
export type CountedList = 'workspaces' | 'teams' | 'run-tasks' | 'memberships:active' | 'memberships:invited' | 'audit-events';

const countOf = prepared((db) =>
  db
    .select({ total: listCounts.total })
    .from(listCounts)
    .where(and(eq(listCounts.list, sql.placeholder('list')), eq(listCounts.organizationId, sql.placeholder('organizationId'))))
    .prepare(),
);

const countAndVersionOf = prepared((db) =>
  db
    .select({ total: listCounts.total, version: listCounts.version })
    .from(listCounts)
    .where(and(eq(listCounts.list, sql.placeholder('list')), eq(listCounts.organizationId, sql.placeholder('organizationId'))))
    .prepare(),
);

/** The count and its version: the version moves with every insert, delete and reordering change. */
export function listCountAndVersion(db: DbOrTx, list: CountedList, organizationId: string): { total: number; version: number } {
  return countAndVersionOf(db).get({ list, organizationId }) ?? { total: 0, version: 0 };
}

/** How many rows an unfiltered list of the organization holds, without counting them. */
export function listCount(db: DbOrTx, list: CountedList, organizationId: string): number {
  return countOf(db).get({ list, organizationId })?.total ?? 0;
}
