/** Response schemas of this domain's resources (see ../jsonapi/responses.ts). */
import { A, created, noContent, ok, paged, resourceSchema, type ResponseTable, single } from '../jsonapi/responses.js';

/** The `authentication-tokens` resource. */
export const AUTHENTICATION_TOKEN = resourceSchema(
  'authentication-tokens',
  {
    'created-at': A.time(),
    'last-used-at': A.nullable(A.time()),
    description: A.nullable(A.string()),
    token: A.nullable(A.string()),
    'expired-at': A.optional(A.nullable(A.time())),
  },
  { relationships: ['created-by', 'team'] },
);

/** What each of this domain's routes answers, keyed as registered under /api/v2. */
export const TOKENS_RESPONSES: ResponseTable = {
  'POST /users/:userId/authentication-tokens': created(single(AUTHENTICATION_TOKEN)),
  'GET /users/:userId/authentication-tokens': ok(paged(AUTHENTICATION_TOKEN)),
  'GET /authentication-tokens/:id': ok(single(AUTHENTICATION_TOKEN)),
  'DELETE /authentication-tokens/:id': noContent,
  'POST /teams/:teamId/authentication-token': created(single(AUTHENTICATION_TOKEN)),
  'GET /teams/:teamId/authentication-token': ok(single(AUTHENTICATION_TOKEN)),
  'DELETE /teams/:teamId/authentication-token': noContent,
  'POST /teams/:teamId/authentication-tokens': created(single(AUTHENTICATION_TOKEN)),
  'GET /teams/:teamId/authentication-tokens': ok(paged(AUTHENTICATION_TOKEN)),
  'GET /organizations/:organization/team-tokens': ok(paged(AUTHENTICATION_TOKEN)),
  'POST /organizations/:organization/authentication-token': created(single(AUTHENTICATION_TOKEN)),
  'GET /organizations/:organization/authentication-token': ok(single(AUTHENTICATION_TOKEN)),
  'DELETE /organizations/:organization/authentication-token': noContent,
};
