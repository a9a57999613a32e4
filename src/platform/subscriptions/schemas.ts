/** Response schemas of this domain's resources (see ../jsonapi/responses.ts). */
import { A, created, ok, paged, resourceSchema, type ResponseTable, single } from '../jsonapi/responses.js';

/** The `feature-sets` resource. */
export const FEATURE_SET = resourceSchema('feature-sets', {
  name: A.string(),
  agents: A.optional(A.boolean()),
  'audit-logging': A.optional(A.boolean()),
  'global-run-tasks': A.optional(A.boolean()),
  'private-run-tasks': A.optional(A.boolean()),
  'run-tasks': A.optional(A.boolean()),
  sentinel: A.optional(A.boolean()),
  sso: A.optional(A.boolean()),
  teams: A.optional(A.boolean()),
  'cost-estimation': A.optional(A.boolean()),
  'no-code-modules': A.optional(A.boolean()),
  'waypoint-actions': A.boolean(),
  'waypoint-templates-and-addons': A.optional(A.boolean()),
});

/** The `subscriptions` resource. */
export const SUBSCRIPTION = resourceSchema(
  'subscriptions',
  {
    'is-active': A.boolean(),
    'is-public-free-tier': A.boolean(),
    'is-self-serve-trial': A.boolean(),
    'start-at': A.time(),
    'runs-ceiling': A.integer(),
    'agents-ceiling': A.nullable(A.integer()),
  },
  { relationships: ['feature-set', 'organization'] },
);

/** What each of this domain's routes answers, keyed as registered under /api/v2. */
export const SUBSCRIPTIONS_RESPONSES: ResponseTable = {
  'GET /admin/feature-sets': ok(paged(FEATURE_SET)),
  'POST /admin/organizations/:org/subscription': created(single(SUBSCRIPTION)),
  'GET /organizations/:org/subscription': ok(single(SUBSCRIPTION)),
};
