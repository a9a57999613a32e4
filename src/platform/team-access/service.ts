import type { Clock } from '../../core/clock.js';
import { unprocessable } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { Db } from '../../store/store.js';
import type { Principal } from '../auth/principal.js';
import type { AccessLevel } from '../auth/workspace-permissions.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import { findTeam } from '../teams/repo.js';
import { WorkspaceService, type Located } from '../workspaces/service.js';
import * as repo from './repo.js';
import type { TeamWorkspaceRow } from './repo.js';
import type { Attributes } from '../jsonapi/body.js';
import { CUSTOM_DEFAULTS, readCustomPermissions, refuseCustomWithFixedLevel } from './custom.js';

export type GrantAccess = AccessLevel | 'custom';

/**
 * Team access to workspaces. Reading who has access needs read access to the workspace;
 * granting, changing and revoking it needs admin access (as changing any setting does).
 */
export class TeamAccessService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly workspaces: WorkspaceService,
  ) {}

  list(principal: Principal, workspaceId: string, offset: number, limit: number) {
    const located = this.workspaces.require(this.workspaces.locate(principal, workspaceId));
    return repo.listTeamWorkspaces(this.db, located.workspace.id, offset, limit);
  }

  /** The grant and its workspace, when the caller may read that workspace (else the 404 of a missing grant). */
  visible(principal: Principal, id: string): { grant: TeamWorkspaceRow; located: Located } {
    const grant = repo.findTeamWorkspace(this.db, id);
    if (!grant) throw NOT_FOUND;
    return { grant, located: this.workspaces.require(this.workspaces.locate(principal, grant.workspaceId)) };
  }

  /** Admin access to the workspace before anything else is looked at, so outsiders learn nothing. */
  administrable(principal: Principal, workspaceId: string): Located {
    return this.workspaces.require(this.workspaces.locate(principal, workspaceId), 'can-update');
  }

  /** The custom permissions of `custom` access (over the grant's current ones); null for fixed levels. */
  private custom(access: GrantAccess, attributes: Attributes, current: TeamWorkspaceRow['customPermissions']) {
    refuseCustomWithFixedLevel(access, attributes);
    return access === 'custom' ? readCustomPermissions(attributes, current ?? CUSTOM_DEFAULTS) : null;
  }

  create(located: Located, teamId: string, access: GrantAccess, attributes: Attributes): TeamWorkspaceRow {
    const team = findTeam(this.db, teamId);
    if (!team || team.organizationId !== located.organization.id) {
      throw unprocessable("team does not exist in the workspace's organization", '/data/relationships/team/data/id');
    }
    if (repo.findTeamWorkspaceFor(this.db, teamId, located.workspace.id)) {
      throw unprocessable('the team already has access to this workspace; update that access instead', '/data/relationships/team/data/id');
    }
    const customPermissions = this.custom(access, attributes, null);
    const row: TeamWorkspaceRow = {
      id: newId('tws'),
      teamId,
      workspaceId: located.workspace.id,
      access,
      customPermissions,
      createdAt: this.clock.now(),
    };
    repo.insertTeamWorkspace(this.db, row);
    return row;
  }

  /** Without `access` the grant keeps its level; a custom grant then takes the permissions the body sets. */
  update(principal: Principal, id: string, requested: GrantAccess | undefined, attributes: Attributes): TeamWorkspaceRow {
    const { grant, located } = this.visible(principal, id);
    this.workspaces.require(located, 'can-update');
    const access = requested ?? grant.access;
    const customPermissions = this.custom(access, attributes, grant.customPermissions);
    repo.updateTeamWorkspace(this.db, id, access, customPermissions);
    return { ...grant, access, customPermissions };
  }

  destroy(principal: Principal, id: string): void {
    const { located } = this.visible(principal, id);
    this.workspaces.require(located, 'can-update');
    repo.deleteTeamWorkspace(this.db, id);
  }
}
