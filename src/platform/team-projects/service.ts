import type { Clock } from '../../core/clock.js';
import { unprocessable } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { Db } from '../../store/store.js';
import type { Principal } from '../auth/principal.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import { ProjectService, type LocatedProject } from '../projects/service.js';
import { findTeam } from '../teams/repo.js';
import { CUSTOM_PROJECT_DEFAULTS, detailsOf } from '../auth/project-permissions.js';
import type { Attributes } from '../jsonapi/body.js';
import { readCustomDocuments, refuseCustomWithFixedLevel } from './custom.js';
import * as repo from './repo.js';
import type { TeamProjectAccess, TeamProjectRow } from './repo.js';

export const TEAM_PROJECT_ACCESS: readonly TeamProjectAccess[] = ['read', 'write', 'maintain', 'admin', 'custom'];

/**
 * Team access to projects: a grant gives the team that level on every workspace of the project
 * (auth/workspace-permissions.ts) and rights on the project itself (auth/project-permissions.ts).
 * Whoever reads the project sees its grants; Manage Projects (owners have it), project admins and
 * custom access with `teams: manage` grant, change and revoke them.
 */
export class TeamProjectService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly projects: ProjectService,
  ) {}

  list(principal: Principal, projectId: string, offset: number, limit: number) {
    const { project } = this.projects.locate(principal, projectId);
    return repo.listTeamProjects(this.db, project.id, offset, limit);
  }

  visible(principal: Principal, id: string): { grant: TeamProjectRow; located: LocatedProject } {
    const grant = repo.findTeamProject(this.db, id);
    if (!grant) throw NOT_FOUND;
    return { grant, located: this.projects.locate(principal, grant.projectId) };
  }

  private manageable(located: LocatedProject): void {
    if (!located.rights.has('manage-teams')) throw NOT_FOUND;
  }

  /** `attributes` may carry `project-access` and `workspace-access`, for the custom level only. */
  create(principal: Principal, projectId: string, teamId: string, access: TeamProjectAccess, attributes: Attributes): TeamProjectRow {
    const located = this.projects.locate(principal, projectId);
    this.manageable(located);
    refuseCustomWithFixedLevel(access, attributes);
    const custom = access === 'custom' ? readCustomDocuments(attributes, CUSTOM_PROJECT_DEFAULTS) : null;
    const team = findTeam(this.db, teamId);
    if (!team || team.organizationId !== located.organization.id) {
      throw unprocessable("team does not exist in the project's organization", '/data/relationships/team/data/id');
    }
    if (repo.findTeamProjectFor(this.db, teamId, projectId)) {
      throw unprocessable('the team already has access to this project; update that access instead', '/data/relationships/team/data/id');
    }
    const row: TeamProjectRow = {
      id: newId('tprj'),
      teamId,
      projectId,
      access,
      projectAccess: custom?.project ?? null,
      workspaceAccess: custom?.workspace ?? null,
      createdAt: this.clock.now(),
    };
    repo.insertTeamProject(this.db, row);
    return row;
  }

  /**
   * Without `access` the grant keeps its level. Turning custom (or staying custom), the body's
   * permissions apply over what the grant gave until now, fixed level or custom.
   */
  update(principal: Principal, id: string, requested: TeamProjectAccess | undefined, attributes: Attributes): TeamProjectRow {
    const { grant, located } = this.visible(principal, id);
    this.manageable(located);
    const access = requested ?? grant.access;
    refuseCustomWithFixedLevel(access, attributes);
    const custom = access === 'custom' ? readCustomDocuments(attributes, detailsOf(grant)) : null;
    const changes = { access, projectAccess: custom?.project ?? null, workspaceAccess: custom?.workspace ?? null };
    repo.updateTeamProject(this.db, id, changes);
    return { ...grant, ...changes };
  }

  destroy(principal: Principal, id: string): void {
    const { located } = this.visible(principal, id);
    this.manageable(located);
    repo.deleteTeamProject(this.db, id);
  }
}
