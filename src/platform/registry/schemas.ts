/** Response schemas of this domain's resources (see ../jsonapi/responses.ts). */
import { Type } from '@fastify/type-provider-typebox';
import { A, created, listed, noContent, ok, paged, resourceSchema, type ResponseTable, single } from '../jsonapi/responses.js';

/** The `registry-modules` resource. */
export const REGISTRY_MODULE = resourceSchema(
  'registry-modules',
  {
    name: A.string(),
    namespace: A.string(),
    provider: A.string(),
    'registry-name': A.string(),
    status: A.string(),
    'version-statuses': Type.Array(Type.Object({})),
    'no-code': A.boolean(),
    'publishing-mechanism': A.nullable(A.string()),
    'vcs-repo': A.nullable(A.object()),
    permissions: A.flags(),
    'created-at': A.time(),
    'updated-at': A.time(),
  },
  { relationships: ['no-code-modules', 'organization'] },
);

/** The `registry-module-versions` resource. */
export const REGISTRY_MODULE_VERSION = resourceSchema(
  'registry-module-versions',
  {
    version: A.string(),
    status: A.string(),
    source: A.string(),
    'created-at': A.time(),
    'updated-at': A.time(),
  },
  { relationships: ['registry-module'] },
);

/** The `no-code-modules` resource. */
export const NO_CODE_MODULE = resourceSchema(
  'no-code-modules',
  {
    enabled: A.boolean(),
    'version-pin': A.string(),
  },
  { relationships: ['organization', 'registry-module', 'variable-options'] },
);

/** The `registry-module-variables` resource. */
export const REGISTRY_MODULE_VARIABLE = resourceSchema(
  'registry-module-variables',
  {
    name: A.string(),
    type: A.string(),
    description: A.nullable(A.string()),
    required: A.boolean(),
    sensitive: A.boolean(),
    options: A.strings(),
    'has-global': A.boolean(),
  },
  { links: 'never' },
);

/** What each of this domain's routes answers, keyed as registered under /api/v2. */
export const REGISTRY_RESPONSES: ResponseTable = {
  'POST /organizations/:org/no-code-modules': created(single(NO_CODE_MODULE)),
  'GET /no-code-modules/:id': ok(single(NO_CODE_MODULE)),
  'PATCH /no-code-modules/:id': ok(single(NO_CODE_MODULE)),
  'DELETE /no-code-modules/:id': noContent,
  'GET /no-code-modules/:id/versions/:version/module-variables': ok(listed(REGISTRY_MODULE_VARIABLE)),
  'GET /organizations/:org/registry-modules': ok(paged(REGISTRY_MODULE)),
  'POST /organizations/:org/registry-modules': created(single(REGISTRY_MODULE)),
  'POST /organizations/:org/registry-modules/vcs': created(single(REGISTRY_MODULE)),
  'POST /registry-modules': created(single(REGISTRY_MODULE)),
  'GET /organizations/:org/registry-modules/:registry/:namespace/:name/:provider': ok(single(REGISTRY_MODULE)),
  'PATCH /organizations/:org/registry-modules/:registry/:namespace/:name/:provider': ok(single(REGISTRY_MODULE)),
  'GET /organizations/:org/registry-modules/:registry/:namespace/:name/:provider/version': ok(single(REGISTRY_MODULE_VERSION)),
  'GET /registry-modules/:id': ok(single(REGISTRY_MODULE)),
  'GET /registry-modules/show/:org/:name/:provider': ok(single(REGISTRY_MODULE)),
  'POST /organizations/:org/registry-modules/:registry/:namespace/:name/:provider/versions': created(single(REGISTRY_MODULE_VERSION)),
  'POST /registry-modules/:org/:name/:provider/versions': created(single(REGISTRY_MODULE_VERSION)),
  'DELETE /organizations/:org/registry-modules/:registry/:namespace/:name': noContent,
  'DELETE /organizations/:org/registry-modules/:registry/:namespace/:name/:provider': noContent,
  'DELETE /organizations/:org/registry-modules/:registry/:namespace/:name/:provider/:version': noContent,
  'POST /registry-modules/actions/delete/:org/:name': noContent,
  'POST /registry-modules/actions/delete/:org/:name/:provider': noContent,
  'POST /registry-modules/actions/delete/:org/:name/:provider/:version': noContent,
};
