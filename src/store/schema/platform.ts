import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/** Organization-level permissions a team can hold (`organization-access` on the wire). */
export interface OrganizationAccess {
  'manage-workspaces'?: boolean;
  'manage-run-tasks'?: boolean;
  'manage-membership'?: boolean;
  'manage-modules'?: boolean;
  'manage-providers'?: boolean;
  'manage-policies'?: boolean;
  'manage-policy-overrides'?: boolean;
  'manage-vcs-settings'?: boolean;
  'manage-projects'?: boolean;
  'read-workspaces'?: boolean;
  'read-projects'?: boolean;
  'delegate-policy-overrides'?: boolean;
  'manage-teams'?: boolean;
  'manage-organization-access'?: boolean;
  'access-secret-teams'?: boolean;
  'manage-agent-pools'?: boolean;
}

/** Per-organization knobs that the seed and the control plane can set. */
export interface OrganizationSettings {
  /** Invitations beyond this many memberships are refused with 400; null means no limit. */
  membershipLimit?: number | null;
  /** Entitlement overrides (`run-tasks: false` models a free-tier organization). */
  entitlements?: Record<string, boolean | number>;
  /** Invitations start `active`, as if the invitee had accepted at once (seed `auto-accept-invitations`). */
  autoAcceptInvitations?: boolean;
  /** The plan a site admin put the organization on (`POST /admin/organizations/:org/subscription`). */
  subscription?: StoredSubscription;
  /** What a site administrator set through `PATCH /admin/organizations/:org` (wire names). */
  admin?: Record<string, unknown>;
  /** Organizations allowed to use this one's private modules (`…/relationships/module-consumers`), by id. */
  moduleConsumerIds?: string[];
}

/** A subscription as stored; the contract figures are echoed, never enforced. */
export interface StoredSubscription {
  featureSetId: string;
  startedAt: string;
  contract: Record<string, number | string>;
}

const createdAt = () => integer('created_at', { mode: 'timestamp_ms' }).notNull();
const updatedAt = () => integer('updated_at', { mode: 'timestamp_ms' }).notNull();

/**
 * A data retention policy of an organization or a workspace (self-hosted edition): delete data
 * older than a number of days, or explicitly keep everything. Its id is the wire id (`drp-…`).
 */
export type StoredRetentionPolicy =
  { id: string; kind: 'delete-older'; deleteOlderThanNDays: number } | { id: string; kind: 'dont-delete' };

export const organizations = sqliteTable('organizations', {
  id: text('id').primaryKey(),
  name: text('name').notNull().unique(),
  email: text('email').notNull(),
  settings: text('settings', { mode: 'json' })
    .$type<OrganizationSettings>()
    .notNull()
    .default(sql`'{}'`),
  attributes: text('attributes', { mode: 'json' })
    .$type<Record<string, unknown>>()
    .notNull()
    .default(sql`'{}'`),
  /** The organization's data retention policy (self-hosted edition), or null. */
  dataRetentionPolicy: text('data_retention_policy', { mode: 'json' }).$type<StoredRetentionPolicy>(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const users = sqliteTable('users', {
  id: text('id').primaryKey(),
  username: text('username').notNull().unique(),
  email: text('email').notNull().unique(),
  isSiteAdmin: integer('is_site_admin', { mode: 'boolean' }).notNull().default(false),
  isServiceAccount: integer('is_service_account', { mode: 'boolean' }).notNull().default(false),
  /** A suspended user's tokens are refused until a site administrator unsuspends them. */
  isSuspended: integer('is_suspended', { mode: 'boolean' }).notNull().default(false),
  createdAt: createdAt(),
});

export const teams = sqliteTable(
  'teams',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    visibility: text('visibility').notNull().default('secret'),
    /** The owners team: every permission, cannot be deleted, never left without a member. */
    isOwners: integer('is_owners', { mode: 'boolean' }).notNull().default(false),
    organizationAccess: text('organization_access', { mode: 'json' })
      .$type<OrganizationAccess>()
      .notNull()
      .default(sql`'{}'`),
    /** Identifier an SSO provider uses to map its groups onto this team; stored and echoed only. */
    ssoTeamId: text('sso_team_id'),
    /** Whether members of the team (not only team managers) may create and revoke its token. */
    allowMemberTokenManagement: integer('allow_member_token_management', { mode: 'boolean' }).notNull().default(true),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('teams_org_name').on(t.organizationId, t.name)],
);

export const teamMembers = sqliteTable(
  'team_members',
  {
    teamId: text('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.userId] }), index('team_members_user').on(t.userId)],
);

export const organizationMemberships = sqliteTable(
  'organization_memberships',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** `invited` until accepted, then `active`; only active members get their teams' permissions. */
    status: text('status', { enum: ['invited', 'active'] }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('memberships_org_user').on(t.organizationId, t.userId),
    index('memberships_user').on(t.userId),
    // The list's order, so a page is read off the index instead of sorting every membership.
    index('memberships_org_created').on(t.organizationId, t.createdAt, t.id),
  ],
);

/** API tokens. Only a SHA-256 of the secret is kept; the secret is shown once, at creation. */
export const platformTokens = sqliteTable(
  'platform_tokens',
  {
    id: text('id').primaryKey(),
    /** `audit-trails` tokens read an organization's audit trail and nothing else (hosted edition). */
    kind: text('kind', { enum: ['user', 'team', 'organization', 'audit-trails'] }).notNull(),
    userId: text('user_id').references(() => users.id, { onDelete: 'cascade' }),
    teamId: text('team_id').references(() => teams.id, { onDelete: 'cascade' }),
    organizationId: text('organization_id').references(() => organizations.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull().unique(),
    description: text('description'),
    createdById: text('created_by_id'),
    createdAt: createdAt(),
    lastUsedAt: integer('last_used_at', { mode: 'timestamp_ms' }),
    expiredAt: integer('expired_at', { mode: 'timestamp_ms' }),
  },
  (t) => [index('tokens_user').on(t.userId), index('tokens_team').on(t.teamId), index('tokens_org').on(t.organizationId)],
);

/** An organization membership row; the memberships domain writes them, teams read them for their members. */
export type MembershipRow = typeof organizationMemberships.$inferSelect;
