import type { OrganizationAccess } from '../../store/tables.js';
import { ORGANIZATION_ACCESS_FLAGS, type TeamPermission } from '../auth/permissions.js';
import type { TeamRow, UserRow } from '../auth/principal.js';
import type { ResourceObject } from '../jsonapi/types.js';
import type { MembershipRow } from './repo.js';

/** A team with what its wire form needs besides the row. */
export interface TeamView {
  team: TeamRow;
  organizationName: string;
  /** Members with an active membership (the `users` relationship and `users-count`). */
  users: UserRow[];
  /** Memberships of every member, invited ones included. */
  memberships: MembershipRow[];
  /** What the caller may do to this team. */
  permissions: ReadonlySet<TeamPermission>;
}

/** Every flag, set or not; the owners team holds them all whatever its stored value says. */
export function organizationAccess(team: TeamRow): Required<OrganizationAccess> {
  return Object.fromEntries(
    ORGANIZATION_ACCESS_FLAGS.map((flag) => [flag, team.isOwners || team.organizationAccess[flag] === true]),
  ) as Required<OrganizationAccess>;
}

export function teamResource(view: TeamView): ResourceObject {
  const { team, permissions } = view;
  const self = `/api/v2/teams/${encodeURIComponent(team.id)}`;
  return {
    id: team.id,
    type: 'teams',
    attributes: {
      name: team.name,
      visibility: team.visibility,
      'users-count': view.users.length,
      'is-unified': false,
      'sso-team-id': team.ssoTeamId,
      'allow-member-token-management': team.allowMemberTokenManagement,
      'organization-access': organizationAccess(team),
      permissions: {
        'can-update-membership': permissions.has('update-membership'),
        'can-destroy': permissions.has('destroy'),
        'can-update-organization-access': permissions.has('update-organization-access'),
        'can-update-api-token': permissions.has('update-api-token'),
        'can-update-visibility': permissions.has('update-visibility'),
      },
    },
    relationships: {
      organization: { data: { id: view.organizationName, type: 'organizations' } },
      users: { data: view.users.map((user) => ({ id: user.id, type: 'users' })) },
      'organization-memberships': { data: view.memberships.map((membership) => ({ id: membership.id, type: 'organization-memberships' })) },
      'authentication-token': { links: { related: `${self}/authentication-token` } },
    },
    links: { self },
  };
}
