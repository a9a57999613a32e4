/** Response schemas of this domain's resources (see ../jsonapi/responses.ts). */
import { A, crud, noContent, resourceSchema, type ResponseTable } from '../jsonapi/responses.js';

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
  ...crud('/organizations/:organization/teams', '/teams/:id', TEAM),
  'POST /teams/:id/relationships/users': noContent,
  'DELETE /teams/:id/relationships/users': noContent,
  'POST /teams/:id/relationships/organization-memberships': noContent,
  'DELETE /teams/:id/relationships/organization-memberships': noContent,
};
