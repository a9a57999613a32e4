/** Response schemas of this domain's resources (see ../jsonapi/responses.ts). */
import { A, created, listed, noContent, ok, resourceSchema, type ResponseTable, single } from '../jsonapi/responses.js';

/** The `oauth-clients` resource. `secret` and `private-key` are write-only: never returned. */
export const OAUTH_CLIENT = resourceSchema(
  'oauth-clients',
  {
    name: A.nullable(A.string()),
    'callback-url': A.string(),
    'connect-path': A.string(),
    'service-provider': A.string(),
    'service-provider-display-name': A.string(),
    'http-url': A.string(),
    'api-url': A.string(),
    key: A.nullable(A.string()),
    'rsa-public-key': A.nullable(A.string()),
    'organization-scoped': A.boolean(),
    'created-at': A.time(),
  },
  { relationships: ['agent-pool', 'oauth-tokens', 'organization', 'projects'], links: 'never' },
);

/** The `oauth-tokens` resource. The token string and an SSH key are write-only. */
export const OAUTH_TOKEN = resourceSchema(
  'oauth-tokens',
  {
    'has-ssh-key': A.boolean(),
    'service-provider-user': A.nullable(A.string()),
    'created-at': A.time(),
  },
  { relationships: ['oauth-client'], links: 'never' },
);

/** What each of this domain's routes answers, keyed as registered under /api/v2. */
export const OAUTH_CLIENTS_RESPONSES: ResponseTable = {
  'POST /organizations/:org/oauth-clients': created(single(OAUTH_CLIENT)),
  'GET /organizations/:org/oauth-clients': ok(listed(OAUTH_CLIENT, 'every connection; paginated only when page parameters are given')),
  'GET /oauth-clients/:id': ok(single(OAUTH_CLIENT)),
  'PATCH /oauth-clients/:id': ok(single(OAUTH_CLIENT)),
  'DELETE /oauth-clients/:id': noContent,
  'POST /oauth-clients/:id/relationships/projects': noContent,
  'DELETE /oauth-clients/:id/relationships/projects': noContent,
  'GET /oauth-tokens/:id': ok(single(OAUTH_TOKEN)),
  'GET /organizations/:org/oauth-tokens': ok(
    listed(OAUTH_TOKEN, "the organization's tokens; paginated only when page parameters are given"),
  ),
  'PATCH /oauth-tokens/:id': ok(single(OAUTH_TOKEN)),
  'DELETE /oauth-tokens/:id': noContent,
};
