import { detailsOf } from '../auth/project-permissions.js';
import type { ResourceObject } from '../jsonapi/types.js';
import type { TeamProjectRow } from './repo.js';

/** A team's project access; `project-access` and `workspace-access` spell out what the level grants, fixed or custom. */
export function teamProjectResource(grant: TeamProjectRow): ResourceObject {
  const details = detailsOf(grant);
  return {
    id: grant.id,
    type: 'team-projects',
    attributes: { access: grant.access, 'project-access': details.project, 'workspace-access': details.workspace },
    relationships: {
      team: { data: { id: grant.teamId, type: 'teams' }, links: { related: `/api/v2/teams/${grant.teamId}` } },
      project: { data: { id: grant.projectId, type: 'projects' }, links: { related: `/api/v2/projects/${grant.projectId}` } },
    },
    links: { self: `/api/v2/team-projects/${grant.id}` },
  };
}
