/** Response schemas of this domain's resources (see ../jsonapi/responses.ts). */
import { Type } from '@fastify/type-provider-typebox';
import { A, crud, resourceSchema, type ResponseTable } from '../jsonapi/responses.js';

/** The attributes every tool version carries, whatever the tool. */
const toolVersion = (type: string) =>
  resourceSchema(type, {
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

/** The `terraform-versions` resource. */
export const TERRAFORM_VERSION = toolVersion('terraform-versions');

/** The `opa-versions` resource. */
export const OPA_VERSION = toolVersion('opa-versions');

/** The `sentinel-versions` resource. */
export const SENTINEL_VERSION = toolVersion('sentinel-versions');

/** What each of this domain's routes answers, keyed as registered under /api/v2. */
export const TOOL_VERSIONS_RESPONSES: ResponseTable = {
  ...crud('/admin/terraform-versions', '/admin/terraform-versions/:id', TERRAFORM_VERSION),
  ...crud('/admin/opa-versions', '/admin/opa-versions/:id', OPA_VERSION),
  ...crud('/admin/sentinel-versions', '/admin/sentinel-versions/:id', SENTINEL_VERSION),
};
