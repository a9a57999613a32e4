import type { ResourceObject } from '../jsonapi/types.js';
import type { TeamProjectRow } from './repo.js';

export function teamProjectResource(grant: TeamProjectRow): ResourceObject {
  return {
    id: grant.id,
    type: 'team-projects',
    attributes: { access: grant.access },
    relationships: {
      team: { data: { id: grant.teamId, type: 'teams' }, links: { related: `/api/v2/teams/${grant.teamId}` } },
      project: { data: { id: grant.projectId, type: 'projects' }, links: { related: `/api/v2/projects/${grant.projectId}` } },
    },
    links: { self: `/api/v2/team-projects/${grant.id}` },
  };
}
