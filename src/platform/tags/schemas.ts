/** Response schemas of this domain's resources (see ../jsonapi/responses.ts). */
import { A, noContent, ok, paged, resourceSchema, type ResponseTable } from '../jsonapi/responses.js';

/** The `tags` resource. */
export const TAG = resourceSchema(
  'tags',
  { name: A.string(), 'created-at': A.time(), 'instance-count': A.integer() },
  { relationships: ['organization'] },
);

/** What each of this domain's routes answers, keyed as registered under /api/v2. */
export const TAGS_RESPONSES: ResponseTable = {
  'GET /organizations/:org/tags': ok(paged(TAG)),
  'GET /workspaces/:id/relationships/tags': ok(paged(TAG)),
  'POST /workspaces/:id/relationships/tags': noContent,
  'DELETE /workspaces/:id/relationships/tags': noContent,
  'DELETE /organizations/:org/tags': noContent,
  'POST /tags/:id/relationships/workspaces': noContent,
};
