/** Response schemas of this domain's resources (see ../jsonapi/responses.ts). */
import { Type } from '@fastify/type-provider-typebox';
import { A, accepted, created, ok, paged, resourceSchema, type ResponseTable, single } from '../jsonapi/responses.js';

/** The `queries` resource: a query run. */
export const QUERY_RUN = resourceSchema(
  'queries',
  {
    actions: A.flags(),
    permissions: A.flags(),
    'canceled-at': A.nullable(A.time()),
    'created-at': A.time(),
    'updated-at': A.time(),
    'force-cancel-available-at': A.nullable(A.time()),
    'generate-config-out': A.boolean(),
    'log-read-url': A.string(),
    'policy-paths': A.strings(),
    'resources-discovered': A.nullable(A.integer()),
    source: A.string(),
    status: A.oneOf('pending', 'queued', 'running', 'finished', 'canceled', 'errored'),
    'status-timestamps': A.object(),
    'terraform-version': A.string(),
    variables: Type.Array(Type.Object({ key: Type.String(), value: Type.String() })),
  },
  { relationships: ['workspace', 'configuration-version', 'created-by', 'canceled-by', 'no-code-query'] },
);

/** What each of this domain's routes answers, keyed as registered under /api/v2. */
export const QUERIES_RESPONSES: ResponseTable = {
  'POST /queries': created(single(QUERY_RUN)),
  'GET /queries/:id': ok(single(QUERY_RUN)),
  'GET /workspaces/:id/queries': ok(paged(QUERY_RUN)),
  'POST /queries/:id/actions/cancel': accepted(),
};
