/** Response schemas of this domain's resources (see ../jsonapi/responses.ts). */
import { A, crud, resourceSchema, type ResponseTable } from '../jsonapi/responses.js';

/** The `team-workspaces` resource. */
export const TEAM_WORKSPACE = resourceSchema(
  'team-workspaces',
  {
    access: A.string(),
    runs: A.string(),
    variables: A.string(),
    'state-versions': A.string(),
    'sentinel-mocks': A.string(),
    'workspace-locking': A.boolean(),
    'run-tasks': A.boolean(),
  },
  { relationships: ['team', 'workspace'] },
);

/** What each of this domain's routes answers, keyed as registered under /api/v2. */
export const TEAM_ACCESS_RESPONSES: ResponseTable = {
  ...crud('/team-workspaces', '/team-workspaces/:id', TEAM_WORKSPACE),
};
