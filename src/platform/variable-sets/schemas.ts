/** Response schemas of this domain's resources (see ../jsonapi/responses.ts). */
import { A, created, noContent, ok, paged, resourceSchema, type ResponseTable, single } from '../jsonapi/responses.js';

/** The `varsets` resource. */
export const VARIABLE_SET = resourceSchema(
  'varsets',
  {
    name: A.string(),
    description: A.nullable(A.string()),
    global: A.boolean(),
    priority: A.boolean(),
    'updated-at': A.time(),
    'var-count': A.integer(),
    'workspace-count': A.integer(),
    'project-count': A.integer(),
  },
  { relationships: ['organization', 'projects', 'vars', 'workspaces'] },
);

/** A variable of a set: a `vars` resource whose `configurable` is the set. */
export const SET_VARIABLE = resourceSchema(
  'vars',
  {
    key: A.string(),
    value: A.nullable(A.string()),
    sensitive: A.boolean(),
    category: A.string(),
    hcl: A.boolean(),
    description: A.nullable(A.string()),
    'created-at': A.time(),
    'version-id': A.string(),
  },
  { relationships: ['configurable'] },
);

/** What each of this domain's routes answers, keyed as registered under /api/v2. */
export const VARIABLE_SETS_RESPONSES: ResponseTable = {
  'GET /organizations/:org/varsets': ok(paged(VARIABLE_SET)),
  'POST /organizations/:org/varsets': created(single(VARIABLE_SET)),
  'GET /varsets/:id': ok(single(VARIABLE_SET)),
  'PATCH /varsets/:id': ok(single(VARIABLE_SET)),
  'DELETE /varsets/:id': noContent,
  'POST /varsets/:id/relationships/workspaces': noContent,
  'DELETE /varsets/:id/relationships/workspaces': noContent,
  'POST /varsets/:id/relationships/projects': noContent,
  'DELETE /varsets/:id/relationships/projects': noContent,
  'GET /varsets/:id/relationships/vars': ok(paged(SET_VARIABLE)),
  'POST /varsets/:id/relationships/vars': created(single(SET_VARIABLE)),
  'GET /varsets/:id/relationships/vars/:var': ok(single(SET_VARIABLE)),
  'PATCH /varsets/:id/relationships/vars/:var': ok(single(SET_VARIABLE)),
  'DELETE /varsets/:id/relationships/vars/:var': noContent,
  'GET /workspaces/:id/varsets': ok(paged(VARIABLE_SET)),
};
