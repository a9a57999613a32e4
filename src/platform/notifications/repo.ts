import { and, asc, count, eq, or, sql, type SQL } from 'drizzle-orm';
import { prepared } from '../../store/prepared.js';
import type { DbOrTx } from '../../store/store.js';
import { notificationConfigurations, type DeliveryResponse } from '../../store/tables.js';
import { updateRows } from '../../store/update.js';
import type { SubscribableKind } from './triggers.js';

export type NotificationRow = typeof notificationConfigurations.$inferSelect;

/** The configuration's owner, as stored (one of three columns) and as the wire names it. */
export interface Subscribable {
  kind: SubscribableKind;
  id: string;
}

const OWNER_COLUMN = {
  workspaces: notificationConfigurations.workspaceId,
  teams: notificationConfigurations.teamId,
  projects: notificationConfigurations.projectId,
} as const;

export function subscribableOf(row: NotificationRow): Subscribable {
  if (row.workspaceId) return { kind: 'workspaces', id: row.workspaceId };
  if (row.teamId) return { kind: 'teams', id: row.teamId };
  return { kind: 'projects', id: row.projectId ?? '' };
}

export function findNotification(db: DbOrTx, id: string): NotificationRow | undefined {
  return db.select().from(notificationConfigurations).where(eq(notificationConfigurations.id, id)).get();
}

const ownedBy = (owner: Subscribable): SQL => eq(OWNER_COLUMN[owner.kind], owner.id);

export function countNotifications(db: DbOrTx, owner: Subscribable): number {
  return db.select({ count: count() }).from(notificationConfigurations).where(ownedBy(owner)).get()?.count ?? 0;
}

/** Every configuration of one owner, oldest first (at most 20 per workspace, so no page is read off an index). */
export function listNotifications(db: DbOrTx, owner: Subscribable): NotificationRow[] {
  return db
    .select()
    .from(notificationConfigurations)
    .where(ownedBy(owner))
    .orderBy(asc(notificationConfigurations.createdAt), asc(notificationConfigurations.id))
    .all();
}

/**
 * The enabled configurations subscribed to `trigger` that a run in `workspaceId` (of `projectId`)
 * notifies: the workspace's own and its project's. The trigger is matched in SQL because every
 * run transition asks, and most ask for a trigger the workspace's configurations do not have.
 */
const enabledSubscribed = prepared((db) =>
  db
    .select()
    .from(notificationConfigurations)
    .where(
      and(
        eq(notificationConfigurations.enabled, true),
        // A run without a project passes null: `project_id = NULL` matches no row.
        or(
          eq(notificationConfigurations.workspaceId, sql.placeholder('workspaceId')),
          eq(notificationConfigurations.projectId, sql.placeholder('projectId')),
        ),
        sql`exists (select 1 from json_each(${notificationConfigurations.triggers}) where value = ${sql.placeholder('trigger')})`,
      ),
    )
    .orderBy(asc(notificationConfigurations.createdAt), asc(notificationConfigurations.id))
    .prepare(),
);

export function enabledForWorkspace(db: DbOrTx, workspaceId: string, projectId: string | null, trigger: string): NotificationRow[] {
  return enabledSubscribed(db).all({ workspaceId, projectId, trigger });
}

export function insertNotification(db: DbOrTx, row: NotificationRow): void {
  db.insert(notificationConfigurations).values(row).run();
}

export function updateNotification(db: DbOrTx, id: string, changes: Partial<NotificationRow>): void {
  updateRows(db, notificationConfigurations, changes, eq(notificationConfigurations.id, id));
}

/** Keeps only the latest response, as the real service does; a configuration deleted meanwhile is left alone. */
export function recordDeliveryResponse(db: DbOrTx, id: string, response: DeliveryResponse): void {
  updateRows(db, notificationConfigurations, { deliveryResponses: [response] }, eq(notificationConfigurations.id, id));
}

export function deleteNotification(db: DbOrTx, id: string): void {
  db.delete(notificationConfigurations).where(eq(notificationConfigurations.id, id)).run();
}
