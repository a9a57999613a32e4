/** Response schemas of this domain's resources (see ../jsonapi/responses.ts). */
import { BACKING_DATA_ACTIONS } from '../backing-data.js';
import { A, accepted, bytes, created, NoBody, ok, paged, resourceSchema, type ResponseTable, single } from '../jsonapi/responses.js';

/** The `configuration-versions` resource. */
export const CONFIGURATION_VERSION = resourceSchema(
  'configuration-versions',
  {
    'auto-queue-runs': A.boolean(),
    error: A.nullable(A.string()),
    'error-message': A.nullable(A.string()),
    source: A.string(),
    speculative: A.boolean(),
    provisional: A.boolean(),
    status: A.string(),
    'status-timestamps': A.object(),
    'changed-files': A.strings(),
    'upload-url': A.nullable(A.string()),
  },
  { relationships: ['ingress-attributes'] },
);

/** What each of this domain's routes answers, keyed as registered under /api/v2. */
export const CONFIGURATION_VERSIONS_RESPONSES: ResponseTable = {
  'POST /workspaces/:id/configuration-versions': created(single(CONFIGURATION_VERSION)),
  'GET /workspaces/:id/configuration-versions': ok(paged(CONFIGURATION_VERSION)),
  'GET /configuration-versions/:id': ok(single(CONFIGURATION_VERSION)),
  'POST /configuration-versions/:id/actions/archive': accepted(),
  'GET /configuration-versions/:id/download': ok(bytes('application/x-gzip', 'the configuration archive (tar.gz)')),
  // The backing-data actions (self-hosted): 200 with no body, as the real service documents.
  ...Object.fromEntries(BACKING_DATA_ACTIONS.map((action) => [`POST /configuration-versions/:id/actions/${action}`, ok(NoBody)])),
};
