/** Response schemas of this domain's resources (see ../jsonapi/responses.ts). */
import { A, NoBody, ok, paged, resourceSchema, type ResponseTable, single } from '../jsonapi/responses.js';

/** The `task-stages` resource. */
export const TASK_STAGE = resourceSchema(
  'task-stages',
  {
    stage: A.string(),
    status: A.string(),
    'status-timestamps': A.object(),
    actions: A.flags(),
    permissions: A.flags(),
    'created-at': A.time(),
    'updated-at': A.time(),
  },
  { relationships: ['run', 'task-results', 'policy-evaluations'] },
);

/** The `task-results` resource. */
export const TASK_RESULT = resourceSchema(
  'task-results',
  {
    message: A.nullable(A.string()),
    status: A.string(),
    'status-timestamps': A.object(),
    url: A.nullable(A.string()),
    'task-id': A.string(),
    'task-name': A.string(),
    'task-url': A.string(),
    stage: A.string(),
    'workspace-task-id': A.string(),
    'workspace-task-enforcement-level': A.string(),
    'created-at': A.time(),
    'updated-at': A.time(),
  },
  { relationships: ['task-stage'] },
);

/** What each of this domain's routes answers, keyed as registered under /api/v2. */
export const TASK_STAGES_RESPONSES: ResponseTable = {
  'GET /runs/:id/task-stages': ok(paged(TASK_STAGE)),
  'GET /task-stages/:id': ok(single(TASK_STAGE)),
  'POST /task-stages/:id/actions/override': ok(single(TASK_STAGE, 'the stage, once a held policy failure is overridden')),
  'GET /task-results/:id': ok(single(TASK_RESULT)),
  'PATCH /task-results/:id/callback': ok(NoBody),
};
