import type { Db } from '../../store/store.js';
import { Permissions } from '../auth/permissions.js';
import type { OrganizationRow, Principal, UserRow } from '../auth/principal.js';
import { IncludeRegistry } from '../jsonapi/include.js';
import { findTeam, teamIdsOfUsers } from '../teams/repo.js';
import { teamResource } from '../teams/resource.js';
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
    const rowsOfTeams = ids.map((id) => findTeam(db, id)).filter((team) => team !== undefined);
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
}
