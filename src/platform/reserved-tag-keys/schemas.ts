/** Response schemas of this domain's resources (see ../jsonapi/responses.ts). */
import { A, created, noContent, ok, paged, resourceSchema, type ResponseTable, single } from '../jsonapi/responses.js';

/** The `reserved-tag-keys` resource. */
export const RESERVED_TAG_KEY = resourceSchema('reserved-tag-keys', {
  key: A.string(),
  'disable-overrides': A.boolean(),
  created_at: A.time(),
  updated_at: A.time(),
});

/** What each of this domain's routes answers, keyed as registered under /api/v2. */
export const RESERVED_TAG_KEYS_RESPONSES: ResponseTable = {
  'GET /organizations/:org/reserved-tag-keys': ok(paged(RESERVED_TAG_KEY)),
  'POST /organizations/:org/reserved-tag-keys': created(single(RESERVED_TAG_KEY)),
  'PATCH /reserved-tag-keys/:id': ok(single(RESERVED_TAG_KEY)),
  'DELETE /reserved-tag-keys/:id': noContent,
};
