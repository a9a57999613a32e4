import { preparedSql } from '../../store/prepared.js';
import { rowReader } from '../row-reader.js';
import { sqliteOf, type DbOrTx } from '../../store/store.js';
import { teams, type OrganizationAccess } from '../../store/tables.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import type { OrganizationRow, Principal, TeamRow } from './principal.js';

/**
 * The one place that decides what a caller may do. Routes ask it and answer a refusal with the
 * same 404 a missing resource gets, so a caller cannot probe for what it may not see.
 *
 * Organization level — the first matching row decides:
 *
 * | principal                                             | holds on organization O                               |
 * |-------------------------------------------------------|-------------------------------------------------------|
 * | user who is a site administrator                      | everything, on every organization                     |
 * | user, active member of O's owners team                | everything                                            |
 * | team token of O's owners team                         | everything                                            |
 * | organization token of O                               | everything but `destroy` and `create-run-tasks`       |
 * | user, active member of O                              | MEMBER + what each of their teams' flags grant        |
 * | team token of another team of O                       | MEMBER + what that team's flags grant                 |
 * | user whose membership is only `invited`               | nothing: invitations carry no permissions until accepted |
 * | anyone else (outsiders, other organizations' tokens)  | nothing                                               |
 *
 * MEMBER is `read` and `read-teams`. The flag grants are `ACCESS_GRANTS` below.
 *
 * The organization token "acts as an owner" for teams, memberships and its own regeneration, as
 * the real service documents, but cannot delete the organization; run-task creation needs owner
 * permission in the spec, which an organization token is not.
 */
export const ORGANIZATION_PERMISSIONS = [
  'read',
  'update',
  'destroy',
  /** See the organization's visible teams, and secret teams the caller belongs to. */
  'read-teams',
  /** See every secret team too. */
  'read-secret-teams',
  /** Create, rename, delete teams and manage their tokens. */
  'manage-teams',
  /** Change a team's `organization-access`. */
  'manage-organization-access',
  /** Change the owners team's membership and token (owners and the organization token only). */
  'manage-owners-team',
  /** Invite and remove members; add and remove team members. */
  'manage-membership',
  'manage-organization-token',
  'read-workspaces',
  'manage-workspaces',
  'read-projects',
  'manage-projects',
  'manage-run-tasks',
  'create-run-tasks',
  'manage-modules',
  'manage-providers',
  'manage-policies',
  'manage-policy-overrides',
  'manage-vcs-settings',
  'manage-agent-pools',
] as const;

export type OrganizationPermission = (typeof ORGANIZATION_PERMISSIONS)[number];

const ALL: ReadonlySet<OrganizationPermission> = new Set(ORGANIZATION_PERMISSIONS);

const MEMBER_BASE: readonly OrganizationPermission[] = ['read', 'read-teams'];

/**
 * What each `organization-access` flag grants beyond membership. The team-management flags nest
 * as in the real service: managing organization access implies managing teams, which implies
 * managing membership; `access-secret-teams` widens whichever of them the caller holds to secret
 * teams.
 */
export const ACCESS_GRANTS: Readonly<Record<keyof OrganizationAccess, readonly OrganizationPermission[]>> = {
  'read-workspaces': ['read-workspaces'],
  'manage-workspaces': ['read-workspaces', 'manage-workspaces'],
  'read-projects': ['read-projects'],
  'manage-projects': ['read-projects', 'manage-projects', 'read-workspaces'],
  'manage-run-tasks': ['manage-run-tasks'],
  'manage-membership': ['manage-membership'],
  'manage-teams': ['manage-teams', 'manage-membership'],
  'manage-organization-access': ['manage-organization-access', 'manage-teams', 'manage-membership'],
  'access-secret-teams': ['read-secret-teams'],
  'manage-modules': ['manage-modules'],
  'manage-providers': ['manage-providers'],
  'manage-policies': ['manage-policies'],
  'manage-policy-overrides': ['manage-policy-overrides'],
  // Delegation applies to workspace-level policy overrides, which nothing here models.
  'delegate-policy-overrides': [],
  'manage-vcs-settings': ['manage-vcs-settings'],
  'manage-agent-pools': ['manage-agent-pools'],
};

/** Every `organization-access` flag, in wire order. */
export const ORGANIZATION_ACCESS_FLAGS = Object.keys(ACCESS_GRANTS) as (keyof OrganizationAccess)[];

const ORGANIZATION_TOKEN: ReadonlySet<OrganizationPermission> = new Set(
  ORGANIZATION_PERMISSIONS.filter((permission) => permission !== 'destroy' && permission !== 'create-run-tasks'),
);

/** The organization-level permissions one team's membership (or its token) carries. */
export function teamGrants(team: TeamRow): Set<OrganizationPermission> {
  if (team.isOwners) return new Set(ALL);
  const granted = new Set<OrganizationPermission>(MEMBER_BASE);
  for (const [flag, enabled] of Object.entries(team.organizationAccess)) {
    if (enabled) for (const permission of ACCESS_GRANTS[flag as keyof OrganizationAccess] ?? []) granted.add(permission);
  }
  return granted;
}

/** A principal's standing in one organization: what it may do, and which teams it speaks for. */
export interface OrganizationGrants {
  readonly permissions: ReadonlySet<OrganizationPermission>;
  /** Teams of the organization the caller belongs to: an active user's teams, or a team token's team. */
  readonly teamIds: ReadonlySet<string>;
  readonly principalKind: Principal['kind'];
}

/**
 * What a caller may do to one team, derived from its organization grants:
 *
 * | team permission             | needs                                                                    |
 * |-----------------------------|--------------------------------------------------------------------------|
 * | read                        | read-teams, and the team is `organization`-visible, or the caller belongs to it, or read-secret-teams |
 * | update, update-visibility   | read + manage-teams (owners team: + manage-owners-team)                  |
 * | destroy                     | read + manage-teams; never the owners team                               |
 * | update-membership           | read + manage-membership (owners team: + manage-owners-team)             |
 * | update-organization-access  | read + manage-organization-access; never the owners team (it holds all)  |
 * | update-api-token            | read + manage-teams (owners team: + manage-owners-team), or a user member   |
 * |                             | of a team that allows member token management                            |
 */
export const TEAM_PERMISSIONS = [
  'read',
  'update',
  'update-visibility',
  'destroy',
  'update-membership',
  'update-organization-access',
  'update-api-token',
] as const;

export type TeamPermission = (typeof TEAM_PERMISSIONS)[number];

export function teamPermissions(grants: OrganizationGrants, team: TeamRow): Set<TeamPermission> {
  const has = (permission: OrganizationPermission) => grants.permissions.has(permission);
  const belongs = grants.teamIds.has(team.id);
  const granted = new Set<TeamPermission>();
  const readable = has('read-teams') && (team.visibility === 'organization' || belongs || has('read-secret-teams'));
  if (!readable) return granted;
  granted.add('read');
  const ownersGuard = !team.isOwners || has('manage-owners-team');
  if (has('manage-teams') && ownersGuard) {
    granted.add('update');
    granted.add('update-visibility');
    granted.add('update-api-token');
    if (!team.isOwners) granted.add('destroy');
  }
  if (has('manage-membership') && ownersGuard) granted.add('update-membership');
  if (has('manage-organization-access') && !team.isOwners) granted.add('update-organization-access');
  if (belongs && grants.principalKind === 'user' && team.allowMemberTokenManagement) granted.add('update-api-token');
  return granted;
}

// Every platform request asks this: the membership's status and the user's teams in the
// organization in one statement (a row per team, or one row with no team), compiled once per
// connection; team rows are mapped by row-reader.ts. A read that already knows the organization
// (a workspace show) joins the same columns and joins into its own statement instead
// (`CALLER_MEMBERSHIP`), so the caller's standing costs no statement of its own.
const teamRows = rowReader(teams);

/**
 * The select list and joins that add the caller's membership and teams to a statement whose
 * organization is `organizationId` (an SQL expression); the user id is the next `?` after those
 * before the joins. Read the rows back with `teamsOfMembership`.
 */
export const CALLER_MEMBERSHIP = {
  columns: `m.status, ${teamRows.columns('t')}`,
  joins: (organizationId: string) =>
    `LEFT JOIN organization_memberships m ON m.organization_id = ${organizationId} AND m.user_id = ? ` +
    'LEFT JOIN team_members tm ON tm.user_id = m.user_id ' +
    'LEFT JOIN teams t ON t.id = tm.team_id AND t.organization_id = m.organization_id',
};

const MEMBERSHIP_AND_TEAMS =
  `SELECT ${CALLER_MEMBERSHIP.columns} FROM organization_memberships m ` +
  'LEFT JOIN team_members tm ON tm.user_id = m.user_id ' +
  'LEFT JOIN teams t ON t.id = tm.team_id AND t.organization_id = m.organization_id ' +
  'WHERE m.organization_id = ? AND m.user_id = ?';

/**
 * The teams a user's rows of `CALLER_MEMBERSHIP` (starting at `offset` of each row) name, or null
 * when the user has no active membership (an invited member gets nothing from the teams they
 * were invited to).
 */
export function teamsOfMembership(rows: readonly (readonly unknown[])[], offset = 0): TeamRow[] | null {
  if (rows[0]?.[offset] !== 'active') return null;
  // A row without a team (the left join found none) has a null team id.
  return rows.flatMap((row) => (row[offset + 1] === null ? [] : [teamRows.read(row, offset + 1)]));
}

const NONE = (principal: Principal): OrganizationGrants => ({ permissions: new Set(), teamIds: new Set(), principalKind: principal.kind });

export class Permissions {
  constructor(private readonly db: DbOrTx) {}

  /** Everything `principal` holds on `organization` (empty grants when it has no standing there). */
  grants(principal: Principal, organization: Pick<OrganizationRow, 'id'>): OrganizationGrants {
    return this.grantsGiven(principal, organization, () =>
      principal.kind === 'user' ? this.activeTeams(principal.user.id, organization.id) : null,
    );
  }

  /**
   * `grants`, with a user's active teams in the organization (null: no active membership) taken
   * from `teamsOfUser` when the caller already read them (`CALLER_MEMBERSHIP`); asked only for
   * a user principal.
   */
  grantsGiven(principal: Principal, organization: Pick<OrganizationRow, 'id'>, teamsOfUser: () => TeamRow[] | null): OrganizationGrants {
    switch (principal.kind) {
      case 'organization':
        if (principal.organization.id !== organization.id) return NONE(principal);
        return { permissions: ORGANIZATION_TOKEN, teamIds: new Set(), principalKind: principal.kind };
      case 'team':
        if (principal.team.organizationId !== organization.id) return NONE(principal);
        return { permissions: teamGrants(principal.team), teamIds: new Set([principal.team.id]), principalKind: principal.kind };
      case 'user': {
        const teams = teamsOfUser();
        const teamIds = new Set((teams ?? []).map((team) => team.id));
        if (principal.user.isSiteAdmin) return { permissions: ALL, teamIds, principalKind: principal.kind };
        if (teams === null) return NONE(principal);
        const permissions = new Set<OrganizationPermission>(MEMBER_BASE);
        for (const team of teams) for (const permission of teamGrants(team)) permissions.add(permission);
        return { permissions, teamIds, principalKind: principal.kind };
      }
    }
  }

  /** The permissions `principal` holds on `organization` (empty when it has none). */
  organization(principal: Principal, organization: Pick<OrganizationRow, 'id'>): Set<OrganizationPermission> {
    return new Set(this.grants(principal, organization).permissions);
  }

  can(principal: Principal, organization: Pick<OrganizationRow, 'id'>, permission: OrganizationPermission): boolean {
    return this.grants(principal, organization).permissions.has(permission);
  }

  /** Throws the same 404 a missing resource gets when `principal` lacks `permission`. */
  require(principal: Principal, organization: Pick<OrganizationRow, 'id'>, permission: OrganizationPermission): void {
    if (!this.can(principal, organization, permission)) throw NOT_FOUND;
  }

  /** What `principal` may do to `team`. */
  team(principal: Principal, team: TeamRow): Set<TeamPermission> {
    return teamPermissions(this.grants(principal, { id: team.organizationId }), team);
  }

  /** Throws the missing-resource 404 unless `principal` holds `permission` on `team`. */
  requireTeam(principal: Principal, team: TeamRow, permission: TeamPermission): void {
    if (!this.team(principal, team).has(permission)) throw NOT_FOUND;
  }

  /** Only a user manages their own tokens; a site administrator manages anyone's. */
  canManageUserTokens(principal: Principal, userId: string): boolean {
    return principal.kind === 'user' && (principal.user.isSiteAdmin || principal.user.id === userId);
  }

  /**
   * The teams of `organizationId` a user belongs to, or null when the user has no active
   * membership there.
   */
  private activeTeams(userId: string, organizationId: string): TeamRow[] | null {
    return teamsOfMembership(preparedSql(sqliteOf(this.db), MEMBERSHIP_AND_TEAMS).raw().all(organizationId, userId) as unknown[][]);
  }
}
