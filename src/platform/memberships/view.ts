import type { Db, DbOrTx } from '../../store/store.js';
import { Permissions } from '../auth/permissions.js';
import type { OrganizationRow, Principal, UserRow } from '../auth/principal.js';
import { IncludeRegistry, Included } from '../jsonapi/include.js';
import type { ResourceObject } from '../jsonapi/types.js';
import { findTeams, findUsersByIds, teamIdsOfUsers } from '../teams/repo.js';
import { teamResource } from '../teams/resource.js';
import type { TeamPage } from '../teams/view.js';
import type { TeamService } from '../teams/service.js';
import { userResource } from '../users/resource.js';
import type { MembershipRow, MembershipWithUser } from './repo.js';
import { membershipResource } from './resource.js';

interface IncludeSource {
  db: Db;
  teams: TeamService;
  principal: Principal;
  organization: OrganizationRow;
  rows: MembershipWithUser[];
  teamIds: Map<string, string[]>;
}

/** What a membership can include, declared once (real clients send only these). */
export const MEMBERSHIP_INCLUDES = new IncludeRegistry<IncludeSource>({
  user: ({ rows }) => rows.map((row) => userResource(row.user)),
  teams: ({ db, teams, principal, organization, teamIds }) => {
    const ids = [...new Set([...teamIds.values()].flat())];
    const found = new Map(findTeams(db, ids).map((team) => [team.id, team]));
    const rowsOfTeams = ids.flatMap((id) => found.get(id) ?? []);
    const grants = new Permissions(db).grants(principal, organization);
    return teams.views({ organization, grants }, rowsOfTeams).map(teamResource);
  },
});
/** Memberships of one organization as wire objects, identical wherever they appear, with the requested includes. */
export class MembershipViews {
  constructor(
    private readonly db: Db,
    private readonly teams: TeamService,
  ) {}

  render(
    principal: Principal,
    organization: OrganizationRow,
    rows: { membership: MembershipRow; user: UserRow }[],
    wanted: ReadonlySet<string>,
  ) {
    const { db, teams } = this;
    const teamIds = teamIdsOfUsers(
      db,
      organization.id,
      rows.map((row) => row.user.id),
    );
    const data = rows.map(({ membership, user }) => membershipResource(membership, user, organization.name, teamIds.get(user.id) ?? []));
    return { data, included: MEMBERSHIP_INCLUDES.collect(wanted, { db, teams, principal, organization, rows, teamIds }) };
  }

  /** Memberships in several organizations (the caller's own): each organization's rows rendered together, in the order given. */
  renderAcross(
    principal: Principal,
    rows: readonly { membership: MembershipRow; organization: OrganizationRow; user: UserRow }[],
    wanted: ReadonlySet<string>,
  ) {
    const byOrganization = new Map<string, { organization: OrganizationRow; rows: MembershipWithUser[] }>();
    for (const { membership, organization, user } of rows) {
      const group = byOrganization.get(organization.id) ?? { organization, rows: [] };
      group.rows.push({ membership, user });
      byOrganization.set(organization.id, group);
    }
    const rendered = new Map<string, ResourceObject>();
    const included = new Included();
    for (const group of byOrganization.values()) {
      const page = this.render(principal, group.organization, group.rows, wanted);
      for (const item of page.data) rendered.set(item.id, item);
      included.add(...(page.included.toArray() ?? []));
    }
    return { data: rows.flatMap(({ membership }) => rendered.get(membership.id) ?? []), included };
  }
}

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
