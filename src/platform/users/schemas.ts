/** Response schemas of this domain's resources (see ../jsonapi/responses.ts). */
import { A, created, ok, paged, resourceSchema, type ResponseTable, single } from '../jsonapi/responses.js';

/** The `users` resource. */
export const USER = resourceSchema(
  'users',
  {
    username: A.string(),
    email: A.string(),
    'unconfirmed-email': A.nullable(A.string()),
    'avatar-url': A.string(),
    'is-service-account': A.boolean(),
    'two-factor': A.object(),
    'v2-only': A.boolean(),
    'is-site-admin': A.boolean(),
    'is-admin': A.boolean(),
    'is-suspended': A.boolean(),
    'is-sso-login': A.boolean(),
    'is-scim-managed': A.boolean(),
    permissions: A.flags(),
  },
  { relationships: ['authentication-tokens', 'organizations'] },
);

/** What each of this domain's routes answers, keyed as registered under /api/v2. */
export const USERS_RESPONSES: ResponseTable = {
  'GET /users/:id': ok(single(USER)),
  'GET /account/details': ok(single(USER)),
  'PATCH /account/update': ok(single(USER)),
  'POST /admin/users': created(single(USER)),
  'GET /admin/users': ok(paged(USER)),
};
