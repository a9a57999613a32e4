import { and, eq } from 'drizzle-orm';
import { ApiError } from '../../core/errors.js';
import type { DbOrTx } from '../../store/store.js';
import { organizationMemberships, teamMembers, teams, type OrganizationAccess } from '../../store/tables.js';
import type { OrganizationRow, Principal, TeamRow } from './principal.js';

/**
 * Everything a caller may do at organization level. This module is the one place that decides;
 * routes ask it and answer 404 on refusal, exactly as for a missing resource.
 */
export const ORGANIZATION_PERMISSIONS = [
  'read',
  'update',
  'destroy',
  'read-teams',
  'manage-teams',
  'manage-membership',
  'manage-organization-token',
  'read-workspaces',
  'manage-workspaces',
  'manage-run-tasks',
  'create-run-tasks',
  'manage-modules',
] as const;

export type OrganizationPermission = (typeof ORGANIZATION_PERMISSIONS)[number];

const ALL: ReadonlySet<OrganizationPermission> = new Set(ORGANIZATION_PERMISSIONS);

/** What an `organization-access` flag grants beyond membership itself. */
const ACCESS_GRANTS: Record<keyof OrganizationAccess, OrganizationPermission[]> = {
  'manage-workspaces': ['read-workspaces', 'manage-workspaces'],
  'read-workspaces': ['read-workspaces'],
  'manage-run-tasks': ['manage-run-tasks'],
  'manage-membership': ['manage-membership', 'read-teams'],
  'manage-modules': ['manage-modules'],
  'manage-providers': [],
  'manage-policies': [],
  'manage-policy-overrides': [],
  'manage-vcs-settings': [],
  'manage-projects': ['read-workspaces'],
  'read-projects': [],
  'delegate-policy-overrides': [],
};

/** Any member sees the organization and its visible teams. */
const MEMBER_BASE: OrganizationPermission[] = ['read', 'read-teams'];

/** The organization token manages the organization's resources but is not an owner. */
const ORGANIZATION_TOKEN: ReadonlySet<OrganizationPermission> = new Set<OrganizationPermission>([
  'read',
  'update',
  'read-teams',
  'manage-teams',
  'manage-membership',
  'read-workspaces',
  'manage-workspaces',
  'manage-run-tasks',
  'manage-modules',
]);

export function teamGrants(team: TeamRow): Set<OrganizationPermission> {
  if (team.isOwners) return new Set(ALL);
  const granted = new Set<OrganizationPermission>(MEMBER_BASE);
  for (const [flag, enabled] of Object.entries(team.organizationAccess)) {
    if (enabled) for (const permission of ACCESS_GRANTS[flag as keyof OrganizationAccess] ?? []) granted.add(permission);
  }
  return granted;
}

export class Permissions {
  constructor(private readonly db: DbOrTx) {}

  /** The permissions `principal` holds on `organization` (empty when it has none). */
  organization(principal: Principal, organization: Pick<OrganizationRow, 'id'>): Set<OrganizationPermission> {
    switch (principal.kind) {
      case 'organization':
        return principal.organization.id === organization.id ? new Set(ORGANIZATION_TOKEN) : new Set();
      case 'team':
        return principal.team.organizationId === organization.id ? teamGrants(principal.team) : new Set();
      case 'user': {
        if (principal.user.isSiteAdmin) return new Set(ALL);
        const membership = this.db
          .select({ status: organizationMemberships.status })
          .from(organizationMemberships)
          .where(and(eq(organizationMemberships.organizationId, organization.id), eq(organizationMemberships.userId, principal.user.id)))
          .get();
        if (membership?.status !== 'active') return new Set();
        const rows = this.db
          .select({ team: teams })
          .from(teamMembers)
          .innerJoin(teams, eq(teams.id, teamMembers.teamId))
          .where(and(eq(teamMembers.userId, principal.user.id), eq(teams.organizationId, organization.id)))
          .all();
        const granted = new Set<OrganizationPermission>(MEMBER_BASE);
        for (const { team } of rows) for (const permission of teamGrants(team)) granted.add(permission);
        return granted;
      }
    }
  }

  can(principal: Principal, organization: Pick<OrganizationRow, 'id'>, permission: OrganizationPermission): boolean {
    return this.organization(principal, organization).has(permission);
  }

  /** Throws the same 404 a missing resource gets when `principal` lacks `permission`. */
  require(principal: Principal, organization: Pick<OrganizationRow, 'id'>, permission: OrganizationPermission): void {
    if (!this.can(principal, organization, permission)) throw new ApiError(404, 'not found');
  }
}
