/** Response schemas of this domain's resources (see ../jsonapi/responses.ts). */
import { A, accepted, noContent, ok, paged, resourceSchema, type ResponseTable, single } from '../jsonapi/responses.js';

/** The `organizations` resource (admin view). */
export const ADMIN_ORGANIZATION = resourceSchema(
  'organizations',
  {
    name: A.string(),
    'created-at': A.time(),
    'external-id': A.string(),
    'notification-email': A.string(),
    'sso-enabled': A.boolean(),
    'access-beta-tools': A.boolean(),
    'global-module-sharing': A.boolean(),
    'global-provider-sharing': A.boolean(),
    'is-disabled': A.boolean(),
    'terraform-build-worker-apply-timeout': A.string(),
    'terraform-build-worker-plan-timeout': A.string(),
    'apply-timeout': A.string(),
    'plan-timeout': A.string(),
    'terraform-worker-sudo-enabled': A.boolean(),
    'workspace-limit': A.nullable(A.integer()),
  },
  { relationships: ['module-consumers', 'owners'] },
);

/** The `workspaces` resource (admin view). */
export const ADMIN_WORKSPACE = resourceSchema(
  'workspaces',
  {
    name: A.string(),
    locked: A.boolean(),
    'vcs-repo': A.nullable(A.object()),
  },
  { relationships: ['current-run', 'organization'] },
);

/** The `runs` resource (admin view). */
export const ADMIN_RUN = resourceSchema(
  'runs',
  {
    'created-at': A.time(),
    'has-changes': A.boolean(),
    status: A.string(),
    'status-timestamps': A.object(),
  },
  { relationships: ['workspace'] },
);

/** What each of this domain's routes answers, keyed as registered under /api/v2. */
export const SITE_ADMIN_RESPONSES: ResponseTable = {
  'GET /admin/organizations': ok(paged(ADMIN_ORGANIZATION)),
  'GET /admin/organizations/:org': ok(single(ADMIN_ORGANIZATION)),
  'PATCH /admin/organizations/:org': ok(single(ADMIN_ORGANIZATION)),
  'DELETE /admin/organizations/:org': noContent,
  'GET /admin/organizations/:org/relationships/module-consumers': ok(paged(ADMIN_ORGANIZATION)),
  'PATCH /admin/organizations/:org/relationships/module-consumers': noContent,
  'GET /admin/workspaces': ok(paged(ADMIN_WORKSPACE)),
  'GET /admin/runs': ok(paged(ADMIN_RUN)),
  'POST /admin/runs/:id/actions/force-cancel': accepted(),
  'GET /admin/workspaces/:id': ok(single(ADMIN_WORKSPACE)),
  'DELETE /admin/workspaces/:id': noContent,
  'DELETE /admin/users/:id': noContent,
};
