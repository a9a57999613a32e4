/** Response schemas of this domain's resources (see ../jsonapi/responses.ts). */
import { BACKING_DATA_ACTIONS } from '../backing-data.js';
import { A, created, noContent, ok, paged, resourceSchema, type ResponseTable, single } from '../jsonapi/responses.js';

/** The `state-versions` resource. */
export const STATE_VERSION = resourceSchema(
  'state-versions',
  {
    'created-at': A.time(),
    size: A.integer(),
    serial: A.integer(),
    lineage: A.nullable(A.string()),
    md5: A.string(),
    status: A.string(),
    intermediate: A.boolean(),
    'resources-processed': A.boolean(),
    'resource-count': A.integer(),
    'state-version': A.nullable(A.integer()),
    'terraform-version': A.nullable(A.string()),
    'hosted-state-download-url': A.nullable(A.string()),
    'hosted-json-state-download-url': A.nullable(A.string()),
    'hosted-state-upload-url': A.nullable(A.string()),
    'hosted-json-state-upload-url': A.nullable(A.string()),
    'vcs-commit-sha': A.nullable(A.string()),
    'vcs-commit-url': A.nullable(A.string()),
    'billable-rum-count': A.integer(),
    modules: A.nullable(A.object()),
    providers: A.nullable(A.object()),
    resources: A.nullable(A.object()),
  },
  { relationships: ['created-by', 'outputs', 'run', 'workspace'] },
);

/** The `state-version-outputs` resource. */
export const STATE_VERSION_OUTPUT = resourceSchema('state-version-outputs', {
  name: A.string(),
  sensitive: A.boolean(),
  type: A.string(),
  value: A.any(),
  'detailed-type': A.any(),
});

/** The `resources` resource. */
export const WORKSPACE_RESOURCE = resourceSchema(
  'resources',
  {
    address: A.string(),
    name: A.string(),
    'created-at': A.date(),
    'updated-at': A.date(),
    module: A.string(),
    provider: A.string(),
    'provider-type': A.string(),
    'modified-by-state-version-id': A.string(),
    'name-index': A.nullable(A.string()),
  },
  { links: 'never' },
);

/** What each of this domain's routes answers, keyed as registered under /api/v2. */
export const STATE_VERSIONS_RESPONSES: ResponseTable = {
  'POST /workspaces/:id/state-versions': created(single(STATE_VERSION)),
  'PATCH /workspaces/:id/state-versions': ok(single(STATE_VERSION)),
  'GET /state-versions': ok(paged(STATE_VERSION)),
  'GET /state-versions/:id': ok(single(STATE_VERSION)),
  'GET /workspaces/:id/current-state-version': ok(single(STATE_VERSION)),
  'GET /state-versions/:id/outputs': ok(paged(STATE_VERSION_OUTPUT)),
  'GET /workspaces/:id/current-state-version-outputs': ok(paged(STATE_VERSION_OUTPUT)),
  'GET /workspaces/:id/resources': ok(paged(WORKSPACE_RESOURCE)),
  'GET /state-version-outputs/:id': ok(single(STATE_VERSION_OUTPUT)),
  // The backing-data actions (self-hosted): 204.
  ...Object.fromEntries(BACKING_DATA_ACTIONS.map((action) => [`POST /state-versions/:id/actions/${action}`, noContent])),
};
