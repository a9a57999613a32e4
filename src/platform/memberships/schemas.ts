/** Response schemas of this domain's resources (see ../jsonapi/responses.ts). */
import { A, created, noContent, ok, paged, resourceSchema, type ResponseTable, single } from '../jsonapi/responses.js';

/** The `organization-memberships` resource. */
export const ORGANIZATION_MEMBERSHIP = resourceSchema(
  'organization-memberships',
  {
    status: A.string(),
    email: A.string(),
    'created-at': A.time(),
  },
  { relationships: ['organization', 'teams', 'user'] },
);

/** What each of this domain's routes answers, keyed as registered under /api/v2. */
export const MEMBERSHIPS_RESPONSES: ResponseTable = {
  'POST /organizations/:org/organization-memberships': created(single(ORGANIZATION_MEMBERSHIP)),
  'GET /organizations/:org/organization-memberships': ok(paged(ORGANIZATION_MEMBERSHIP)),
  'GET /organization-memberships': ok(paged(ORGANIZATION_MEMBERSHIP)),
  'GET /organization-memberships/:id': ok(single(ORGANIZATION_MEMBERSHIP)),
  'DELETE /organization-memberships/:id': noContent,
};
