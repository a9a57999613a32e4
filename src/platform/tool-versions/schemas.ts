/** Response schemas of this domain's resources (see ../jsonapi/responses.ts). */
import { Type } from '@fastify/type-provider-typebox';
import { A, created, noContent, ok, paged, resourceSchema, type ResponseTable, single } from '../jsonapi/responses.js';

/** The `terraform-versions` resource. */
export const TERRAFORM_VERSION = resourceSchema('terraform-versions', {
  version: A.string(),
  url: A.string(),
  sha: A.string(),
  official: A.boolean(),
  enabled: A.boolean(),
  beta: A.boolean(),
  deprecated: A.boolean(),
  'deprecated-reason': A.nullable(A.string()),
  usage: A.integer(),
  'created-at': A.time(),
  archs: Type.Array(Type.Object({})),
});

/** The `opa-versions` resource. */
export const OPA_VERSION = resourceSchema('opa-versions', {
  version: A.string(),
  url: A.string(),
  sha: A.string(),
  official: A.boolean(),
  enabled: A.boolean(),
  beta: A.boolean(),
  deprecated: A.boolean(),
  'deprecated-reason': A.nullable(A.string()),
  usage: A.integer(),
  'created-at': A.time(),
  archs: Type.Array(Type.Object({})),
});

/** The `sentinel-versions` resource. */
export const SENTINEL_VERSION = resourceSchema('sentinel-versions', {
  version: A.string(),
  url: A.string(),
  sha: A.string(),
  official: A.boolean(),
  enabled: A.boolean(),
  beta: A.boolean(),
  deprecated: A.boolean(),
  'deprecated-reason': A.nullable(A.string()),
  usage: A.integer(),
  'created-at': A.time(),
  archs: Type.Array(Type.Object({})),
});

/** What each of this domain's routes answers, keyed as registered under /api/v2. */
export const TOOL_VERSIONS_RESPONSES: ResponseTable = {
  'GET /admin/terraform-versions': ok(paged(TERRAFORM_VERSION)),
  'POST /admin/terraform-versions': created(single(TERRAFORM_VERSION)),
  'GET /admin/terraform-versions/:id': ok(single(TERRAFORM_VERSION)),
  'PATCH /admin/terraform-versions/:id': ok(single(TERRAFORM_VERSION)),
  'DELETE /admin/terraform-versions/:id': noContent,
  'GET /admin/opa-versions': ok(paged(OPA_VERSION)),
  'POST /admin/opa-versions': created(single(OPA_VERSION)),
  'GET /admin/opa-versions/:id': ok(single(OPA_VERSION)),
  'PATCH /admin/opa-versions/:id': ok(single(OPA_VERSION)),
  'DELETE /admin/opa-versions/:id': noContent,
  'GET /admin/sentinel-versions': ok(paged(SENTINEL_VERSION)),
  'POST /admin/sentinel-versions': created(single(SENTINEL_VERSION)),
  'GET /admin/sentinel-versions/:id': ok(single(SENTINEL_VERSION)),
  'PATCH /admin/sentinel-versions/:id': ok(single(SENTINEL_VERSION)),
  'DELETE /admin/sentinel-versions/:id': noContent,
};
