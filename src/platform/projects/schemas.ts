/** Response schemas of this domain's resources (see ../jsonapi/responses.ts). */
import { A, crud, resourceSchema, type ResponseTable } from '../jsonapi/responses.js';

/** The `projects` resource. */
export const PROJECT = resourceSchema(
  'projects',
  {
    name: A.string(),
    description: A.nullable(A.string()),
    'created-at': A.time(),
    'updated-at': A.time(),
    'is-unified': A.boolean(),
    'auto-destroy-activity-duration': A.nullable(A.string()),
    'workspace-count': A.integer(),
    'team-count': A.integer(),
    permissions: A.flags(),
  },
  { relationships: ['effective-tag-bindings', 'organization', 'tag-bindings'] },
);

/** What each of this domain's routes answers, keyed as registered under /api/v2. */
export const PROJECTS_RESPONSES: ResponseTable = {
  ...crud('/organizations/:org/projects', '/projects/:id', PROJECT),
};
