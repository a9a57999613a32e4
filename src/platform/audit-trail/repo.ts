import { and, asc, count, desc, eq, gt } from 'drizzle-orm';
import type { DbOrTx } from '../../store/store.js';
import { auditEvents } from '../../store/tables.js';
import { listCount } from '../list-counts.js';

export type AuditEventRow = typeof auditEvents.$inferSelect;

export function insertAuditEvent(db: DbOrTx, row: Omit<AuditEventRow, 'seq'>): void {
  db.insert(auditEvents).values(row).run();
}

/**
 * One page of an organization's events, oldest first, and the total. The whole trail's total is
 * kept in `list_counts` (a trigger counts each insert); only a `since` filter counts rows. A page
 * in the second half is read from the newest end, so the first and the last page cost the same
 * however long the trail is.
 */
export function pageOfAuditEvents(
  db: DbOrTx,
  organizationId: string,
  since: Date | undefined,
  offset: number,
  limit: number,
): { rows: AuditEventRow[]; total: number } {
  const where = and(eq(auditEvents.organizationId, organizationId), since ? gt(auditEvents.timestamp, since) : undefined);
  const total = since
    ? (db.select({ n: count() }).from(auditEvents).where(where).get()?.n ?? 0)
    : listCount(db, 'audit-events', organizationId);
  if (offset >= total) return { rows: [], total };
  const query = db.select().from(auditEvents).where(where);
  if (offset * 2 < total) return { rows: query.orderBy(asc(auditEvents.seq)).limit(limit).offset(offset).all(), total };
  const end = Math.min(offset + limit, total);
  const rows = query
    .orderBy(desc(auditEvents.seq))
    .limit(end - offset)
    .offset(total - end)
    .all();
  return { rows: rows.reverse(), total };
}
