import type { Clock } from '../../core/clock.js';
import { conflict, unprocessable } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { Db, DbOrTx } from '../../store/store.js';
import type { MembershipRow, OrganizationAccess } from '../../store/tables.js';
import {
  ORGANIZATION_ACCESS_FLAGS,
  Permissions,
  teamPermissions,
  type OrganizationGrants,
  type OrganizationPermission,
  type TeamPermission,
} from '../auth/permissions.js';
import type { OrganizationRow, Principal, TeamRow } from '../auth/principal.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import type { Page } from '../jsonapi/pagination.js';
import { findOrganizationById, findOrganizationByName } from '../organizations/repo.js';
import { findUserByUsername } from '../users/repo.js';
import { refusingDuplicates } from '../db-errors.js';
import { inSlices } from '../sql-slices.js';
import * as repo from './repo.js';
import { organizationAccess, type TeamView } from './resource.js';

/** Letters, numbers, "-", "_" and inner spaces: the real service accepts "Team Alpha" though its docs list no spaces. */
export const TEAM_NAME_PATTERN = /^[A-Za-z0-9_-](?:[A-Za-z0-9 _-]*[A-Za-z0-9_-])?$/;
export const VISIBILITIES = ['secret', 'organization'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

export interface TeamInput {
  name?: string;
  visibility?: Visibility;
  ssoTeamId?: string | null;
  allowMemberTokenManagement?: boolean;
  /** Only the flags the request gave; the rest keep their value. */
  organizationAccess?: OrganizationAccess;
}

/** The organization a request is about, and where the caller stands in it. */
export interface Scope {
  organization: OrganizationRow;
  grants: OrganizationGrants;
}

export interface TeamInScope extends Scope {
  team: TeamRow;
  permissions: Set<TeamPermission>;
}

/** Which relationship endpoint a member change came through, and so what its ids are. */
export type MemberKey = 'users' | 'organization-memberships';

export interface MemberEntry {
  /** A username (`users`) or an `ou-` id (`organization-memberships`). */
  id?: string;
}

/** How teams find organization memberships (the memberships domain answers; the door wires it in). */
export interface MembershipLookup {
  byId(id: string): MembershipRow | undefined;
  of(organizationId: string, userId: string): MembershipRow | undefined;
}

export class TeamService {
  private readonly permissions: Permissions;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly memberships: MembershipLookup,
  ) {
    this.permissions = new Permissions(db);
  }

  /**
   * The organization named in the path, when the caller holds `need` there; otherwise the
   * missing-resource 404. Routes call this (or `visible`) before reading the body, so a caller
   * without the permission learns nothing from validation errors.
   */
  scope(principal: Principal, organizationName: string, need: OrganizationPermission = 'read-teams'): Scope {
    const organization = findOrganizationByName(this.db, organizationName);
    if (!organization) throw NOT_FOUND;
    const grants = this.permissions.grants(principal, organization);
    if (!grants.permissions.has(need)) throw NOT_FOUND;
    return { organization, grants };
  }

  /** A team the caller may see and, when `anyOf` is given, act on in one of those ways; hidden and missing teams answer alike. */
  visible(principal: Principal, teamId: string, ...anyOf: TeamPermission[]): TeamInScope {
    const team = repo.findTeam(this.db, teamId);
    const organization = team && findOrganizationById(this.db, team.organizationId);
    if (!team || !organization) throw NOT_FOUND;
    const grants = this.permissions.grants(principal, organization);
    const permissions = teamPermissions(grants, team);
    if (!permissions.has('read')) throw NOT_FOUND;
    if (anyOf.length > 0 && !anyOf.some((permission) => permissions.has(permission))) throw NOT_FOUND;
    return { organization, grants, team, permissions };
  }

  list(principal: Principal, organizationName: string, filter: { query?: string; names?: string[] }, page: Page) {
    const scope = this.scope(principal, organizationName);
    const secretTeamsVisible = scope.grants.permissions.has('read-secret-teams') ? 'all' : scope.grants.teamIds;
    const { rows, total } = repo.listTeams(this.db, scope.organization.id, { ...filter, secretTeamsVisible }, page.offset, page.size);
    return { scope, rows, total };
  }

  /** Creates a team in a scope obtained with `manage-teams`. */
  create(scope: Scope, input: TeamInput & { name: string }): TeamInScope {
    const granted = scope.grants.permissions;
    if (!granted.has('manage-teams')) throw NOT_FOUND;
    const access = input.organizationAccess ?? {};
    if (Object.values(access).some(Boolean) && !granted.has('manage-organization-access')) throw NOT_FOUND;
    this.checkName(scope.organization.id, input.name);
    const team = newTeamRow(scope.organization.id, input, this.clock.now());
    repo.insertTeam(this.db, team);
    return { ...scope, team, permissions: teamPermissions(scope.grants, team) };
  }

  /** Many teams with the create defaults, in one transaction (the control plane's bulk creation, seeds). */
  createMany(organizationId: string, inputs: readonly (TeamInput & { name: string })[], db: DbOrTx = this.db): TeamRow[] {
    const at = this.clock.now();
    const rows = inputs.map((input) => newTeamRow(organizationId, input, at));
    refusingDuplicates(
      () => db.transaction((tx) => inSlices(rows).forEach((slice) => repo.insertTeams(tx, slice))),
      () => conflict('some teams names are already taken'),
    );
    return rows;
  }

  /**
   * Applies the given attributes. Each change needs its own permission: settings need
   * `update`, a change of flags `update-organization-access` (flags sent unchanged, as the
   * provider resends them on every update, need nothing). The owners team keeps its name and
   * its flags: changing either is a 422 for a caller who could otherwise edit the team.
   */
  update(found: TeamInScope, input: TeamInput): TeamInScope {
    const { team, permissions } = found;
    if (!permissions.has('update') && !permissions.has('update-organization-access')) throw NOT_FOUND;

    const current = organizationAccess(team);
    const merged = { ...current, ...input.organizationAccess };
    const flagsChange = ORGANIZATION_ACCESS_FLAGS.some((flag) => merged[flag] !== current[flag]);
    const renames = input.name !== undefined && input.name !== team.name;
    if (team.isOwners && renames) throw unprocessable('the owners team cannot be renamed', '/data/attributes/name');
    if (team.isOwners && flagsChange) {
      throw unprocessable("the owners team's organization access cannot be changed", '/data/attributes/organization-access');
    }
    const settingsChange =
      renames ||
      (input.visibility !== undefined && input.visibility !== team.visibility) ||
      (input.ssoTeamId !== undefined && input.ssoTeamId !== team.ssoTeamId) ||
      (input.allowMemberTokenManagement !== undefined && input.allowMemberTokenManagement !== team.allowMemberTokenManagement);
    if (settingsChange && !permissions.has('update')) throw NOT_FOUND;
    if (flagsChange && !permissions.has('update-organization-access')) throw NOT_FOUND;
    if (renames) this.checkName(team.organizationId, input.name as string);

    const changes = {
      name: input.name ?? team.name,
      visibility: input.visibility ?? team.visibility,
      ssoTeamId: input.ssoTeamId === undefined ? team.ssoTeamId : input.ssoTeamId,
      allowMemberTokenManagement: input.allowMemberTokenManagement ?? team.allowMemberTokenManagement,
      organizationAccess: team.isOwners ? team.organizationAccess : onlyTrue(merged),
    };
    repo.updateTeam(this.db, team.id, changes);
    const updated: TeamRow = { ...team, ...changes };
    return { ...found, team: updated, permissions: teamPermissions(found.grants, updated) };
  }

  destroy({ team, permissions }: TeamInScope): void {
    if (team.isOwners && permissions.has('update')) throw unprocessable('the owners team cannot be deleted');
    if (!permissions.has('destroy')) throw NOT_FOUND;
    repo.deleteTeam(this.db, team.id);
  }

  /**
   * Adds or removes members. Through `users` the ids are usernames and only active members of
   * the organization can join (the real service requires an accepted invitation there); through
   * `organization-memberships` the ids are membership ids and an invitation is enough. Every id
   * is checked before anything changes; the owners team is never left without an active member.
   */
  changeMembers({ team, permissions }: TeamInScope, action: 'add' | 'remove', key: MemberKey, entries: MemberEntry[]): void {
    if (!permissions.has('update-membership')) throw NOT_FOUND;
    const userIds = entries.map((entry, index) => this.resolveMember(team, action, key, entry, index));
    this.db.transaction((tx) => {
      if (action === 'add') repo.addTeamMembers(tx, team.id, userIds, this.clock.now());
      else repo.removeTeamMembers(tx, team.id, userIds);
      if (team.isOwners && action === 'remove' && repo.countActiveMembers(tx, team.id) === 0) {
        throw unprocessable('the owners team must keep at least one member', '/data');
      }
    });
  }

  /** Loads what the wire form of each team needs, in a fixed number of queries. */
  views(scope: Scope, rows: TeamRow[], db: DbOrTx = this.db): TeamView[] {
    const ids = rows.map((team) => team.id);
    const members = repo.activeMembersOf(db, ids);
    const memberships = repo.membershipsOf(db, ids);
    return rows.map((team) => ({
      team,
      organizationName: scope.organization.name,
      users: members.get(team.id) ?? [],
      memberships: memberships.get(team.id) ?? [],
      permissions: teamPermissions(scope.grants, team),
    }));
  }

  private resolveMember(team: TeamRow, action: 'add' | 'remove', key: MemberKey, entry: MemberEntry, index: number): string {
    const pointer = `/data/${index}/id`;
    if (!entry.id)
      throw unprocessable(`each entry needs an id (${key === 'users' ? 'a username' : 'an organization membership id'})`, pointer);
    if (key === 'organization-memberships') {
      const membership = this.memberships.byId(entry.id);
      if (!membership || membership.organizationId !== team.organizationId) {
        throw unprocessable(`organization membership "${entry.id}" does not exist in this organization`, pointer);
      }
      return membership.userId;
    }
    const user = findUserByUsername(this.db, entry.id);
    if (!user) throw unprocessable(`user "${entry.id}" does not exist`, pointer);
    if (action === 'add' && this.memberships.of(team.organizationId, user.id)?.status !== 'active') {
      throw unprocessable(
        `user "${entry.id}" is not an active member of the organization; invite them and have them accept first`,
        pointer,
      );
    }
    return user.id;
  }

  private checkName(organizationId: string, name: string): void {
    if (!TEAM_NAME_PATTERN.test(name))
      throw unprocessable(
        'name is invalid: use only letters, numbers, spaces, "-" and "_" (no leading or trailing space)',
        '/data/attributes/name',
      );
    if (repo.findTeamByName(this.db, organizationId, name)) throw unprocessable('name has already been taken', '/data/attributes/name');
  }
}

/** A new team's row: the API's create defaults for what the input leaves out. */
function newTeamRow(organizationId: string, input: TeamInput & { name: string }, at: Date): TeamRow {
  return {
    id: newId('team'),
    organizationId,
    name: input.name,
    visibility: input.visibility ?? 'secret',
    isOwners: false,
    organizationAccess: onlyTrue(input.organizationAccess ?? {}),
    ssoTeamId: input.ssoTeamId ?? null,
    allowMemberTokenManagement: input.allowMemberTokenManagement ?? true,
    createdAt: at,
  };
}

/** Stores only the flags that are on, so an unset flag and a false one are the same thing. */
function onlyTrue(access: OrganizationAccess): OrganizationAccess {
  return Object.fromEntries(Object.entries(access).filter(([, enabled]) => enabled === true));
}
