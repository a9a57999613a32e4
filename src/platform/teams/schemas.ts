/** Response schemas of this domain's resources (see ../jsonapi/responses.ts). */
import { A, created, noContent, ok, paged, resourceSchema, type ResponseTable, single } from '../jsonapi/responses.js';

/** The `teams` resource. */
export const TEAM = resourceSchema(
  'teams',
  {
    name: A.string(),
    visibility: A.string(),
    'users-count': A.integer(),
    'is-unified': A.boolean(),
    'sso-team-id': A.nullable(A.string()),
    'allow-member-token-management': A.boolean(),
    'organization-access': A.object(),
    permissions: A.flags(),
  },
  { relationships: ['authentication-token', 'organization', 'organization-memberships', 'users'] },
);

/** What each of this domain's routes answers, keyed as registered under /api/v2. */
export const TEAMS_RESPONSES: ResponseTable = {
  'GET /organizations/:organization/teams': ok(paged(TEAM)),
  'POST /organizations/:organization/teams': created(single(TEAM)),
  'GET /teams/:id': ok(single(TEAM)),
  'PATCH /teams/:id': ok(single(TEAM)),
  'DELETE /teams/:id': noContent,
  'POST /teams/:id/relationships/users': noContent,
  'DELETE /teams/:id/relationships/users': noContent,
  'POST /teams/:id/relationships/organization-memberships': noContent,
  'DELETE /teams/:id/relationships/organization-memberships': noContent,
};
