/** Response schemas of this domain's resources (see ../jsonapi/responses.ts). */
import { A, crud, resourceSchema, type ResponseTable } from '../jsonapi/responses.js';

/** The `team-projects` resource. */
export const TEAM_PROJECT = resourceSchema(
  'team-projects',
  {
    access: A.string(),
    'project-access': A.object(),
    'workspace-access': A.object(),
  },
  { relationships: ['project', 'team'] },
);

/** What each of this domain's routes answers, keyed as registered under /api/v2. */
export const TEAM_PROJECTS_RESPONSES: ResponseTable = {
  ...crud('/team-projects', '/team-projects/:id', TEAM_PROJECT),
};
