/** Response schemas of this domain's resources (see ../jsonapi/responses.ts). */
import { Type } from '@fastify/type-provider-typebox';
import { A, bytes, created, crud, noContent, ok, paged, resourceSchema, type ResponseTable, single } from '../jsonapi/responses.js';

/** The `policies` resource. */
export const POLICY = resourceSchema(
  'policies',
  {
    name: A.string(),
    kind: A.string(),
    query: A.nullable(A.string()),
    description: A.nullable(A.string()),
    'enforcement-level': A.string(),
    enforce: Type.Array(Type.Object({})),
    'policy-set-count': A.integer(),
    'updated-at': A.time(),
  },
  { relationships: ['organization', 'policy-sets'] },
);

/** The `policy-sets` resource. */
export const POLICY_SET = resourceSchema(
  'policy-sets',
  {
    name: A.string(),
    description: A.nullable(A.string()),
    kind: A.string(),
    global: A.boolean(),
    overridable: A.boolean(),
    'agent-enabled': A.boolean(),
    'policy-tool-version': A.nullable(A.string()),
    'policies-path': A.nullable(A.string()),
    'policy-count': A.integer(),
    'workspace-count': A.integer(),
    'project-count': A.integer(),
    'vcs-repo': A.nullable(A.object()),
    'created-at': A.time(),
    'updated-at': A.time(),
  },
  { relationships: ['current-version', 'newest-version', 'organization', 'policies', 'projects', 'workspace-exclusions', 'workspaces'] },
);

/** The `vars` resource (parameter view). */
export const POLICY_SET_PARAMETER = resourceSchema(
  'vars',
  {
    key: A.string(),
    value: A.nullable(A.string()),
    category: A.string(),
    sensitive: A.boolean(),
  },
  { relationships: ['configurable'] },
);

/** The `policy-set-versions` resource. */
export const POLICY_SET_VERSION = resourceSchema(
  'policy-set-versions',
  {
    source: A.string(),
    status: A.string(),
    'status-timestamps': A.object(),
    error: A.nullable(A.string()),
    'error-message': A.nullable(A.string()),
    'ingress-attributes': A.nullable(A.object()),
    'created-at': A.time(),
    'updated-at': A.time(),
  },
  { relationships: ['policy-set'] },
);

/** The `plan-exports` resource. */
export const PLAN_EXPORT = resourceSchema(
  'plan-exports',
  {
    'data-type': A.string(),
    status: A.string(),
    'status-timestamps': A.object(),
  },
  { relationships: ['plan'] },
);

/** The `policy-checks` resource. */
export const POLICY_CHECK = resourceSchema(
  'policy-checks',
  {
    actions: A.flags(),
    permissions: A.flags(),
    result: A.object(),
    scope: A.string(),
    status: A.string(),
    'status-timestamps': A.object(),
  },
  { relationships: ['run'] },
);

const COUNT = Type.Object({
  'advisory-failed': A.integer(),
  'mandatory-failed': A.integer(),
  passed: A.integer(),
  errored: A.integer(),
});

/** The `policy-evaluations` resource: a task stage's evaluation of one policy kind. */
export const POLICY_EVALUATION = resourceSchema(
  'policy-evaluations',
  {
    status: A.oneOf('pending', 'queued', 'running', 'passed', 'failed', 'errored', 'canceled', 'overridden', 'unreachable'),
    'policy-kind': A.oneOf('opa', 'sentinel'),
    'result-count': COUNT,
    'status-timestamps': A.object(),
    'created-at': A.time(),
    'updated-at': A.time(),
  },
  { relationships: ['policy-attachable', 'policy-set-outcomes'] },
);

/** The `policy-set-outcomes` resource: one set's policies in an evaluation (`result_count`, as the client reads it). */
export const POLICY_SET_OUTCOME = resourceSchema(
  'policy-set-outcomes',
  {
    outcomes: Type.Array(
      Type.Object({
        enforcement_level: A.string(),
        query: A.string(),
        status: A.oneOf('passed', 'failed'),
        policy_name: A.string(),
        description: A.string(),
      }),
    ),
    error: A.nullable(A.string()),
    overridable: A.boolean(),
    'policy-set-name': A.string(),
    'policy-set-description': A.nullable(A.string()),
    result_count: COUNT,
  },
  { relationships: ['policy-evaluation'] },
);

/** What each of this domain's routes answers, keyed as registered under /api/v2. */
export const POLICIES_RESPONSES: ResponseTable = {
  'GET /task-stages/:id/policy-evaluations': ok(paged(POLICY_EVALUATION)),
  'GET /policy-evaluations/:id': ok(single(POLICY_EVALUATION)),
  'GET /policy-evaluations/:id/policy-set-outcomes': ok(paged(POLICY_SET_OUTCOME)),
  'GET /policy-set-outcomes/:id': ok(single(POLICY_SET_OUTCOME)),
  'GET /runs/:id/policy-checks': ok(paged(POLICY_CHECK)),
  'GET /policy-checks/:id': ok(single(POLICY_CHECK)),
  'POST /policy-checks/:id/actions/override': ok(single(POLICY_CHECK)),
  'GET /policy-checks/:id/output': ok(bytes('text/plain', 'the policy check output')),
  ...crud('/policy-sets/:id/parameters', '/policy-sets/:id/parameters/:param', POLICY_SET_PARAMETER),
  'POST /plan-exports': created(single(PLAN_EXPORT)),
  'GET /plan-exports/:id': ok(single(PLAN_EXPORT)),
  'GET /plan-exports/:id/download': ok(bytes('application/octet-stream', 'the export bundle (tar.gz)')),
  'DELETE /plan-exports/:id': noContent,
  ...crud('/organizations/:org/policies', '/policies/:id', POLICY),
  'PUT /policies/:id/upload': noContent,
  'GET /policies/:id/download': ok(bytes('text/plain', 'the policy code')),
  ...crud('/organizations/:org/policy-sets', '/policy-sets/:id', POLICY_SET),
  'POST /policy-sets/:id/versions': created(single(POLICY_SET_VERSION)),
  'GET /policy-set-versions/:id': ok(single(POLICY_SET_VERSION)),
  'POST /policy-sets/:id/relationships/policies': noContent,
  'DELETE /policy-sets/:id/relationships/policies': noContent,
  'POST /policy-sets/:id/relationships/workspaces': noContent,
  'DELETE /policy-sets/:id/relationships/workspaces': noContent,
  'POST /policy-sets/:id/relationships/projects': noContent,
  'DELETE /policy-sets/:id/relationships/projects': noContent,
  'POST /policy-sets/:id/relationships/workspace-exclusions': noContent,
  'DELETE /policy-sets/:id/relationships/workspace-exclusions': noContent,
};
