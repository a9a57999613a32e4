/** Response schemas of this domain's resources (see ../jsonapi/responses.ts). */
import { A, created, crud, noContent, ok, paged, resourceSchema, type ResponseTable, single } from '../jsonapi/responses.js';

/** The `registry-providers` resource. */
export const REGISTRY_PROVIDER = resourceSchema(
  'registry-providers',
  {
    name: A.string(),
    namespace: A.string(),
    'registry-name': A.string(),
    permissions: A.flags(),
    'created-at': A.time(),
    'updated-at': A.time(),
  },
  { relationships: ['organization', 'registry-provider-versions'] },
);

/** The `registry-provider-versions` resource. */
export const REGISTRY_PROVIDER_VERSION = resourceSchema(
  'registry-provider-versions',
  {
    version: A.string(),
    'key-id': A.string(),
    protocols: A.strings(),
    'shasums-uploaded': A.boolean(),
    'shasums-sig-uploaded': A.boolean(),
    permissions: A.flags(),
    'created-at': A.time(),
    'updated-at': A.time(),
  },
  { relationships: ['platforms', 'registry-provider'] },
);

/** The `registry-provider-platforms` resource. */
export const REGISTRY_PROVIDER_PLATFORM = resourceSchema(
  'registry-provider-platforms',
  {
    os: A.string(),
    arch: A.string(),
    filename: A.string(),
    shasum: A.string(),
    'provider-binary-uploaded': A.boolean(),
    permissions: A.flags(),
  },
  { relationships: ['registry-provider-version'] },
);

/** What each of this domain's routes answers, keyed as registered under /api/v2. */
export const REGISTRY_PROVIDERS_RESPONSES: ResponseTable = {
  ...crud('/organizations/:org/registry-providers', '/organizations/:org/registry-providers/:registry/:namespace/:name', REGISTRY_PROVIDER),
  'GET /registry-providers/:id': ok(single(REGISTRY_PROVIDER)),
  'GET /organizations/:org/registry-providers/:registry/:namespace/:name/versions': ok(paged(REGISTRY_PROVIDER_VERSION)),
  'POST /organizations/:org/registry-providers/:registry/:namespace/:name/versions': created(single(REGISTRY_PROVIDER_VERSION)),
  'GET /organizations/:org/registry-providers/:registry/:namespace/:name/versions/:version': ok(single(REGISTRY_PROVIDER_VERSION)),
  'DELETE /organizations/:org/registry-providers/:registry/:namespace/:name/versions/:version': noContent,
  'GET /organizations/:org/registry-providers/:registry/:namespace/:name/versions/:version/platforms': ok(
    paged(REGISTRY_PROVIDER_PLATFORM),
  ),
  'POST /organizations/:org/registry-providers/:registry/:namespace/:name/versions/:version/platforms': created(
    single(REGISTRY_PROVIDER_PLATFORM),
  ),
  'GET /organizations/:org/registry-providers/:registry/:namespace/:name/versions/:version/platforms/:os/:arch': ok(
    single(REGISTRY_PROVIDER_PLATFORM),
  ),
  'DELETE /organizations/:org/registry-providers/:registry/:namespace/:name/versions/:version/platforms/:os/:arch': noContent,
};
