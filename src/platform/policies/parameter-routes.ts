import type { PlatformApp, PlatformContext } from '../context.js';
import { Attributes, readResource } from '../jsonapi/body.js';
import { listDocument, sendDocument, sendNoContent, singleDocument } from '../jsonapi/documents.js';
import { readPage } from '../jsonapi/pagination.js';
import type { ResourceObject } from '../jsonapi/types.js';
import { Attr, listQuery, params, resourceBody } from '../jsonapi/schemas.js';
import type { ParameterInput, ParameterRow } from './parameters.js';

const TYPES = ['vars'];
const BODY = resourceBody(TYPES, {
  attributes: {
    key: Attr.string(),
    value: Attr.string('write-only once sensitive'),
    category: Attr.string('policy-set'),
    sensitive: Attr.boolean('cannot be unset once true'),
  },
});

/** The `vars` resource of a policy set parameter; a sensitive value is never rendered. */
export function parameterResource(row: ParameterRow): ResourceObject {
  return {
    id: row.id,
    type: 'vars',
    attributes: { key: row.key, value: row.sensitive ? null : row.value, category: 'policy-set', sensitive: row.sensitive },
    relationships: {
      configurable: { data: { id: row.policySetId, type: 'policy-sets' }, links: { related: `/api/v2/policy-sets/${row.policySetId}` } },
    },
    links: { self: `/api/v2/policy-sets/${row.policySetId}/parameters/${row.id}` },
  };
}

function readInput(body: unknown): ParameterInput {
  const attributes = new Attributes(readResource(body, TYPES).attributes);
  const input: ParameterInput = {};
  const key = attributes.string('key');
  if (typeof key === 'string') input.key = key;
  const value = attributes.string('value');
  if (typeof value === 'string') input.value = value;
  const category = attributes.string('category');
  if (typeof category === 'string') input.category = category;
  const sensitive = attributes.boolean('sensitive');
  if (sensitive !== undefined) input.sensitive = sensitive;
  return input;
}

export async function policySetParameterRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const service = context.services.policySetParameters;

  app.get('/policy-sets/:id/parameters', { schema: { params: params('id'), querystring: listQuery() } }, async (request, reply) => {
    const page = readPage(request.query);
    const { rows, total } = service.list(request.principal, request.params.id, page.offset, page.size);
    return sendDocument(reply, 200, listDocument(request, { items: rows.map(parameterResource), total, page }));
  });

  app.post('/policy-sets/:id/parameters', { schema: { params: params('id'), body: BODY } }, async (request, reply) => {
    const row = service.create(request.principal, request.params.id, readInput(request.body));
    return sendDocument(reply, 201, singleDocument(parameterResource(row)));
  });

  app.get('/policy-sets/:id/parameters/:param', { schema: { params: params('id', 'param') } }, async (request, reply) => {
    const row = service.find(request.principal, request.params.id, request.params.param);
    return sendDocument(reply, 200, singleDocument(parameterResource(row)));
  });

  app.patch('/policy-sets/:id/parameters/:param', { schema: { params: params('id', 'param'), body: BODY } }, async (request, reply) => {
    const row = service.update(request.principal, request.params.id, request.params.param, readInput(request.body));
    return sendDocument(reply, 200, singleDocument(parameterResource(row)));
  });

  app.delete('/policy-sets/:id/parameters/:param', { schema: { params: params('id', 'param') } }, async (request, reply) => {
    service.destroy(request.principal, request.params.id, request.params.param);
    return sendNoContent(reply);
  });
}
