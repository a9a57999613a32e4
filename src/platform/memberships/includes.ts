import type { DbOrTx } from '../../store/store.js';
import type { ResourceObject } from '../jsonapi/types.js';
import { findUsersByIds, teamIdsOfUsers } from '../teams/repo.js';
import type { TeamPage } from '../teams/resource.js';
import { membershipResource } from './resource.js';

/** `include=organization-memberships` on teams: each member's membership, with its teams, for the page. */
export function teamMembershipsInclude(db: DbOrTx): (page: TeamPage) => (ResourceObject | undefined)[] {
  return ({ scope, views }) => {
    const memberships = views.flatMap((view) => view.memberships);
    const userIds = [...new Set(memberships.map((membership) => membership.userId))];
    const users = findUsersByIds(db, userIds);
    const teamsOfUser = teamIdsOfUsers(db, scope.organization.id, userIds);
    return memberships.map((membership) => {
      const user = users.get(membership.userId);
      return user && membershipResource(membership, user, scope.organization.name, teamsOfUser.get(user.id) ?? []);
    });
  };
}
