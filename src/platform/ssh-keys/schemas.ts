/** Response schemas of this domain's resources (see ../jsonapi/responses.ts). */
import { A, created, noContent, ok, paged, resourceSchema, type ResponseTable, single } from '../jsonapi/responses.js';

/** The `ssh-keys` resource. */
export const SSH_KEY = resourceSchema(
  'ssh-keys',
  {
    name: A.string(),
  },
  { relationships: ['organization'] },
);

/** What each of this domain's routes answers, keyed as registered under /api/v2. */
export const SSH_KEYS_RESPONSES: ResponseTable = {
  'GET /organizations/:org/ssh-keys': ok(paged(SSH_KEY)),
  'POST /organizations/:org/ssh-keys': created(single(SSH_KEY)),
  'GET /ssh-keys/:id': ok(single(SSH_KEY)),
  'PATCH /ssh-keys/:id': ok(single(SSH_KEY)),
  'DELETE /ssh-keys/:id': noContent,
};
