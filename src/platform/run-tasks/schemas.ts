/** Response schemas of this domain's resources (see ../jsonapi/responses.ts). */
import { A, created, noContent, ok, paged, resourceSchema, type ResponseTable, single } from '../jsonapi/responses.js';

/** The `tasks` resource. */
export const RUN_TASK = resourceSchema(
  'tasks',
  {
    name: A.string(),
    url: A.string(),
    description: A.nullable(A.string()),
    category: A.string(),
    'hmac-key': A.nullable(A.string()),
    enabled: A.boolean(),
    'global-configuration': A.nullable(A.object()),
    'created-at': A.time(),
  },
  { relationships: ['agent-pool', 'organization', 'tasks'] },
);

/** The `workspace-tasks` resource. */
export const WORKSPACE_TASK = resourceSchema(
  'workspace-tasks',
  {
    'enforcement-level': A.string(),
    stage: A.string(),
    stages: A.strings(),
    enabled: A.boolean(),
    'created-at': A.time(),
  },
  { relationships: ['task', 'workspace'] },
);

/** What each of this domain's routes answers, keyed as registered under /api/v2. */
export const RUN_TASKS_RESPONSES: ResponseTable = {
  'POST /organizations/:org/tasks': created(single(RUN_TASK)),
  'GET /organizations/:org/tasks': ok(paged(RUN_TASK)),
  'GET /tasks/:id': ok(single(RUN_TASK)),
  'PATCH /tasks/:id': ok(single(RUN_TASK)),
  'DELETE /tasks/:id': noContent,
};
