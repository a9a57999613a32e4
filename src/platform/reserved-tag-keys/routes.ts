import type { PlatformApp, PlatformContext } from '../context.js';
import { Attributes, readResource } from '../jsonapi/body.js';
import { listDocument, sendDocument, sendNoContent, singleDocument } from '../jsonapi/documents.js';
import { readPage } from '../jsonapi/pagination.js';
import type { ResourceObject } from '../jsonapi/types.js';
import { Attr, listQuery, params, resourceBody } from '../jsonapi/schemas.js';
import type { ReservedTagKeyRow } from './repo.js';

const BODY = resourceBody(['reserved-tag-keys'], { attributes: { key: Attr.string(), 'disable-overrides': Attr.boolean() } });

/** The real service spells this resource's timestamps with underscores (`created_at`); go-tfe reads them so. */
function reservedTagKeyResource(row: ReservedTagKeyRow): ResourceObject {
  return {
    id: row.id,
    type: 'reserved-tag-keys',
    attributes: {
      key: row.key,
      'disable-overrides': row.disableOverrides,
      created_at: row.createdAt.toISOString(),
      updated_at: row.updatedAt.toISOString(),
    },
    links: { self: `/api/v2/reserved-tag-keys/${row.id}` },
  };
}

const readInput = (body: unknown) => {
  const attributes = new Attributes(readResource(body, ['reserved-tag-keys']).attributes);
  const disableOverrides = attributes.boolean('disable-overrides');
  return { key: attributes.string('key'), ...(disableOverrides !== undefined ? { disableOverrides } : {}) };
};

export async function reservedTagKeyRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const service = context.services.reservedTagKeys;

  app.get(
    '/organizations/:org/reserved-tag-keys',
    { schema: { params: params('org'), querystring: listQuery() } },
    async (request, reply) => {
      const page = readPage(request.query);
      const { rows, total } = service.list(request.principal, request.params.org, page.offset, page.size);
      return sendDocument(reply, 200, listDocument(request, { items: rows.map(reservedTagKeyResource), total, page }));
    },
  );

  app.post('/organizations/:org/reserved-tag-keys', { schema: { params: params('org'), body: BODY } }, async (request, reply) => {
    const row = service.create(request.principal, request.params.org, readInput(request.body));
    return sendDocument(reply, 201, singleDocument(reservedTagKeyResource(row)));
  });

  app.patch('/reserved-tag-keys/:id', { schema: { params: params('id'), body: BODY } }, async (request, reply) => {
    const row = service.update(request.principal, request.params.id, readInput(request.body));
    return sendDocument(reply, 200, singleDocument(reservedTagKeyResource(row)));
  });

  app.delete('/reserved-tag-keys/:id', { schema: { params: params('id') } }, async (request, reply) => {
    service.destroy(request.principal, request.params.id);
    return sendNoContent(reply);
  });
}
