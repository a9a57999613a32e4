import { integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { organizations } from './platform.js';

/**
 * How many rows each organization-scoped list holds, so a list answers `total-count` without a
 * `count(*)` scan per request. Kept by triggers (migrations/0004_lists.sql), so every write path —
 * the API, the control plane, the seed, a reset, cascades — keeps it right without knowing it.
 *
 * `list` is `workspaces`, `teams`, `run-tasks`, `memberships:active`, `memberships:invited` or
 * `audit-events` (migrations/0010).
 * `version` grows with every insert, delete or change of a sort key, so a cached page boundary of
 * the list (see platform/list-anchors.ts) is known to be stale.
 */
export const listCounts = sqliteTable(
  'list_counts',
  {
    list: text('list').notNull(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    total: integer('total').notNull().default(0),
    version: integer('version').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.list, t.organizationId] })],
);
