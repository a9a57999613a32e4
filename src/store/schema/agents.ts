import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { agentPools } from './workspaces.js';

const createdAt = () => integer('created_at', { mode: 'timestamp_ms' }).notNull();

/**
 * Agent tokens of a pool: what an agent registers and pings with. Only a SHA-256 of the secret is
 * kept (shown once, at creation), as for API tokens; they never authenticate `/api/v2`.
 */
export const agentTokens = sqliteTable(
  'agent_tokens',
  {
    id: text('id').primaryKey(),
    agentPoolId: text('agent_pool_id')
      .notNull()
      .references(() => agentPools.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull().unique(),
    description: text('description').notNull(),
    createdById: text('created_by_id'),
    createdAt: createdAt(),
    lastUsedAt: integer('last_used_at', { mode: 'timestamp_ms' }),
  },
  (t) => [index('agent_tokens_pool').on(t.agentPoolId)],
);

/** An agent that registered with a pool's token; `status` and `last-ping-at` follow its pings. */
export const agents = sqliteTable(
  'agents',
  {
    id: text('id').primaryKey(),
    agentPoolId: text('agent_pool_id')
      .notNull()
      .references(() => agentPools.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    ipAddress: text('ip_address').notNull(),
    status: text('status').notNull(),
    lastPingAt: integer('last_ping_at', { mode: 'timestamp_ms' }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('agents_pool').on(t.agentPoolId, t.lastPingAt)],
);
