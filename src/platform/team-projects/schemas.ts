/** Response schemas of this domain's resources (see ../jsonapi/responses.ts). */
import { A, created, noContent, ok, paged, resourceSchema, type ResponseTable, single } from '../jsonapi/responses.js';

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
  'GET /team-projects': ok(paged(TEAM_PROJECT)),
  'POST /team-projects': created(single(TEAM_PROJECT)),
  'GET /team-projects/:id': ok(single(TEAM_PROJECT)),
  'PATCH /team-projects/:id': ok(single(TEAM_PROJECT)),
  'DELETE /team-projects/:id': noContent,
};
