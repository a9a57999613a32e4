/** Response schemas of this domain's resources (see ../jsonapi/responses.ts). */
import { A, created, noContent, ok, paged, resourceSchema, type ResponseTable, single } from '../jsonapi/responses.js';

/** The `vars` resource. */
export const VARIABLE = resourceSchema(
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
export const VARIABLES_RESPONSES: ResponseTable = {
  'GET /workspaces/:id/vars': ok(paged(VARIABLE)),
  'POST /workspaces/:id/vars': created(single(VARIABLE)),
  'GET /workspaces/:id/vars/:var': ok(single(VARIABLE)),
  'PATCH /workspaces/:id/vars/:var': ok(single(VARIABLE)),
  'DELETE /workspaces/:id/vars/:var': noContent,
  'GET /vars': ok(paged(VARIABLE)),
  'POST /vars': created(single(VARIABLE)),
  'PATCH /vars/:id': ok(single(VARIABLE)),
  'DELETE /vars/:id': noContent,
};
