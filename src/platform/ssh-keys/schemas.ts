/** Response schemas of this domain's resources (see ../jsonapi/responses.ts). */
import { A, crud, resourceSchema, type ResponseTable } from '../jsonapi/responses.js';

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
  ...crud('/organizations/:org/ssh-keys', '/ssh-keys/:id', SSH_KEY),
};
