/** Response schemas of this domain's resources (see ../jsonapi/responses.ts). */
import { A, crud, noContent, ok, paged, resourceSchema, type ResponseTable, VARIABLE_ATTRIBUTES } from '../jsonapi/responses.js';

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
export const SET_VARIABLE = resourceSchema('vars', VARIABLE_ATTRIBUTES, { relationships: ['configurable'] });

/** What each of this domain's routes answers, keyed as registered under /api/v2. */
export const VARIABLE_SETS_RESPONSES: ResponseTable = {
  ...crud('/organizations/:org/varsets', '/varsets/:id', VARIABLE_SET),
  'POST /varsets/:id/relationships/workspaces': noContent,
  'DELETE /varsets/:id/relationships/workspaces': noContent,
  'POST /varsets/:id/relationships/projects': noContent,
  'DELETE /varsets/:id/relationships/projects': noContent,
  ...crud('/varsets/:id/relationships/vars', '/varsets/:id/relationships/vars/:var', SET_VARIABLE),
  'GET /workspaces/:id/varsets': ok(paged(VARIABLE_SET)),
};
