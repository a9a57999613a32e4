/** Response schemas of this domain's resources (see ../jsonapi/responses.ts). */
import { Type } from '@fastify/type-provider-typebox';
import { A, accepted, bytes, created, noContent, ok, paged, resourceSchema, type ResponseTable, single } from '../jsonapi/responses.js';

/** The `run-triggers` resource. */
export const RUN_TRIGGER = resourceSchema(
  'run-triggers',
  {
    'created-at': A.time(),
    'sourceable-name': A.string(),
    'workspace-name': A.string(),
  },
  { relationships: ['sourceable', 'sourceable_choice', 'workspace'] },
);

/** The `runs` resource. */
export const RUN = resourceSchema(
  'runs',
  {
    actions: A.flags(),
    'allow-config-generation': A.boolean(),
    'allow-empty-apply': A.boolean(),
    'auto-apply': A.boolean(),
    'canceled-at': A.nullable(A.time()),
    'created-at': A.time(),
    'force-cancel-available-at': A.nullable(A.time()),
    'has-changes': A.boolean(),
    'is-destroy': A.boolean(),
    message: A.string(),
    permissions: A.flags(),
    'plan-only': A.boolean(),
    'policy-paths': A.strings(),
    'position-in-queue': A.integer(),
    refresh: A.boolean(),
    'refresh-only': A.boolean(),
    'replace-addrs': A.strings(),
    'save-plan': A.boolean(),
    source: A.string(),
    status: A.string(),
    'status-timestamps': A.object(),
    'target-addrs': A.strings(),
    'tool-version': A.string(),
    'trigger-reason': A.string(),
    variables: Type.Array(A.any()),
  },
  {
    relationships: [
      'apply',
      'comments',
      'configuration-version',
      'confirmed-by',
      'cost-estimate',
      'created-by',
      'plan',
      'policy-checks',
      'run-events',
      'task-stages',
      'workspace',
    ],
  },
);

/** The `comments` resource. */
export const COMMENT = resourceSchema(
  'comments',
  {
    body: A.string(),
    'created-at': A.time(),
  },
  { relationships: ['created-by', 'run-event'] },
);

/** The `run-events` resource. */
export const RUN_EVENT = resourceSchema(
  'run-events',
  {
    action: A.string(),
    'created-at': A.time(),
    description: A.nullable(A.string()),
  },
  { relationships: ['actor', 'comment'], links: 'never' },
);

/** The `organization-capacity` resource. */
export const ORGANIZATION_CAPACITY = resourceSchema(
  'organization-capacity',
  {
    pending: A.integer(),
    running: A.integer(),
  },
  { links: 'never' },
);

/** What a plan and an apply both carry. */
const PHASE_ATTRIBUTES = {
  'execution-details': A.object(),
  'log-read-url': A.string(),
  'resource-additions': A.integer(),
  'resource-changes': A.integer(),
  'resource-destructions': A.integer(),
  'resource-imports': A.integer(),
  status: A.string(),
  'status-timestamps': A.object(),
};

/** The `plans` resource. */
export const PLAN = resourceSchema(
  'plans',
  {
    ...PHASE_ATTRIBUTES,
    'has-changes': A.boolean(),
    'generated-configuration': A.boolean(),
  },
  { relationships: ['exports'] },
);

/** The `applies` resource. */
export const APPLY = resourceSchema('applies', PHASE_ATTRIBUTES, { relationships: ['state-versions'] });

/** What each of this domain's routes answers, keyed as registered under /api/v2. */
export const RUNS_RESPONSES: ResponseTable = {
  'GET /runs/:id/run-events': ok(paged(RUN_EVENT)),
  'GET /run-events/:id': ok(single(RUN_EVENT)),
  'GET /runs/:id/comments': ok(paged(COMMENT)),
  'POST /runs/:id/comments': created(single(COMMENT)),
  'GET /comments/:id': ok(single(COMMENT)),
  'POST /runs': created(single(RUN)),
  'GET /runs/:id': ok(single(RUN)),
  'GET /workspaces/:id/runs': ok(paged(RUN)),
  'GET /organizations/:org/runs': ok(paged(RUN)),
  'GET /organizations/:org/runs/queue': ok(paged(RUN)),
  'GET /organizations/:org/capacity': ok(single(ORGANIZATION_CAPACITY)),
  'POST /runs/:id/actions/apply': accepted(),
  'POST /runs/:id/actions/discard': accepted(),
  'POST /runs/:id/actions/cancel': accepted(),
  'POST /runs/:id/actions/force-cancel': accepted(),
  'POST /runs/:id/actions/force-execute': accepted(),
  'GET /plans/:id': ok(single(PLAN)),
  'GET /runs/:id/plan': ok(single(PLAN)),
  'GET /applies/:id': ok(single(APPLY)),
  'GET /runs/:id/apply': ok(single(APPLY)),
  'GET /plans/:id/json-output': ok(bytes('application/json', 'the plan in terraform show -json form')),
  'GET /plans/:id/json-output-redacted': ok(bytes('application/json', 'the plan in terraform show -json form')),
  'GET /runs/:id/plan/json-output': ok(bytes('application/json', 'the plan in terraform show -json form')),
  'POST /workspaces/:id/run-triggers': created(single(RUN_TRIGGER)),
  'GET /workspaces/:id/run-triggers': ok(paged(RUN_TRIGGER)),
  'GET /run-triggers/:id': ok(single(RUN_TRIGGER)),
  'DELETE /run-triggers/:id': noContent,
};
