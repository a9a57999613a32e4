/** Response schemas of this domain's resources (see ../jsonapi/responses.ts). */
import { A, created, listed, ok, resourceSchema, type ResponseTable, single } from '../jsonapi/responses.js';

/** The `oauth-clients` resource. */
export const OAUTH_CLIENT = resourceSchema(
  'oauth-clients',
  {
    name: A.nullable(A.string()),
    'service-provider': A.string(),
    'http-url': A.string(),
    'api-url': A.string(),
    'created-at': A.time(),
  },
  { relationships: ['oauth-tokens', 'organization'], links: 'never' },
);

/** The `oauth-tokens` resource. */
export const OAUTH_TOKEN = resourceSchema(
  'oauth-tokens',
  {
    'has-ssh-key': A.boolean(),
    'created-at': A.time(),
  },
  { relationships: ['oauth-client'], links: 'never' },
);

/** What each of this domain's routes answers, keyed as registered under /api/v2. */
export const OAUTH_CLIENTS_RESPONSES: ResponseTable = {
  'POST /organizations/:org/oauth-clients': created(single(OAUTH_CLIENT)),
  'GET /organizations/:org/oauth-clients': ok(listed(OAUTH_CLIENT)),
  'GET /oauth-clients/:id': ok(single(OAUTH_CLIENT)),
  'GET /oauth-tokens/:id': ok(single(OAUTH_TOKEN)),
};
