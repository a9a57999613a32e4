import type { PlatformApp, PlatformContext } from '../context.js';
import { Attributes, readResource } from '../jsonapi/body.js';
import { listDocument, sendDocument, sendNoContent, singleDocument } from '../jsonapi/documents.js';
import { paginate, readPage } from '../jsonapi/pagination.js';
import { listQuery, params, resourceBody } from '../jsonapi/schemas.js';
import type { ToolVersionRow } from './repo.js';
import { toolVersionResource } from './resource.js';

/** Body types: the resource type, its spec spelling, and the empty type real clients send. */
const TYPES = ['terraform-versions', 'tool-versions'];
const BODY = resourceBody(TYPES, { allowEmptyType: true });

const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

/** `/api/v2/admin/terraform-versions` (self-hosted edition; site administrators only). */
export async function toolVersionRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const service = context.services.toolVersions;
  app.addHook('preValidation', async (request) => service.requireAdmin(request.principal));
  const render = (rows: readonly ToolVersionRow[]) => {
    const usage = service.usage(rows);
    return rows.map((row) => toolVersionResource(row, usage.get(row.version) ?? 0));
  };
  const one = (row: ToolVersionRow) => singleDocument(render([row])[0]!);

  const query = listQuery({ filters: ['filter[version]', 'search[version]'] });
  app.get('/admin/terraform-versions', { schema: { querystring: query } }, async (request, reply) => {
    const raw: Record<string, unknown> = request.query;
    const all = service.list({ version: text(raw['filter[version]']), search: text(raw['search[version]']) });
    const { items, total, page } = paginate(all, readPage(raw));
    return sendDocument(reply, 200, listDocument(request, { items: render(items), total, page }));
  });

  app.post('/admin/terraform-versions', { schema: { body: BODY } }, async (request, reply) => {
    const input = readResource(request.body, TYPES, { allowEmptyType: true });
    return sendDocument(reply, 201, one(service.create(new Attributes(input.attributes))));
  });

  app.get('/admin/terraform-versions/:id', { schema: { params: params('id') } }, async (request, reply) => {
    return sendDocument(reply, 200, one(service.show(request.params.id)));
  });

  app.patch('/admin/terraform-versions/:id', { schema: { params: params('id'), body: BODY } }, async (request, reply) => {
    const input = readResource(request.body, TYPES, { allowEmptyType: true });
    return sendDocument(reply, 200, one(service.update(request.params.id, new Attributes(input.attributes))));
  });

  app.delete('/admin/terraform-versions/:id', { schema: { params: params('id') } }, async (request, reply) => {
    service.destroy(request.params.id);
    return sendNoContent(reply);
  });
}
