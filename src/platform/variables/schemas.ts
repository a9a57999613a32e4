/** Response schemas of this domain's resources (see ../jsonapi/responses.ts). */
import {
  created,
  crud,
  noContent,
  ok,
  paged,
  resourceSchema,
  type ResponseTable,
  single,
  VARIABLE_ATTRIBUTES,
} from '../jsonapi/responses.js';

/** The `vars` resource. */
export const VARIABLE = resourceSchema('vars', VARIABLE_ATTRIBUTES, { relationships: ['configurable'] });

/** What each of this domain's routes answers, keyed as registered under /api/v2. */
export const VARIABLES_RESPONSES: ResponseTable = {
  ...crud('/workspaces/:id/vars', '/workspaces/:id/vars/:var', VARIABLE),
  'GET /vars': ok(paged(VARIABLE)),
  'POST /vars': created(single(VARIABLE)),
  'PATCH /vars/:id': ok(single(VARIABLE)),
  'DELETE /vars/:id': noContent,
};
