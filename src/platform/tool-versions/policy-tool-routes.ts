import type { PlatformApp, PlatformContext } from '../context.js';
import { Attributes, readResource } from '../jsonapi/body.js';
import { listDocument, sendDocument, sendNoContent, singleDocument } from '../jsonapi/documents.js';
import { paginate, readPage } from '../jsonapi/pagination.js';
import { listQuery, params, resourceBody } from '../jsonapi/schemas.js';
import type { PolicyToolVersionRow, PolicyToolVersionService } from './policy-tools.js';
import { toolVersionResource } from './resource.js';

const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

/** `/api/v2/admin/opa-versions` and `/admin/sentinel-versions` (self-hosted edition; site administrators only). */
export async function policyToolVersionRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  app.addHook('preValidation', async (request) => context.services.toolVersions.requireAdmin(request.principal));
  const services: PolicyToolVersionService[] = [context.services.opaVersions, context.services.sentinelVersions];
  for (const service of services) {
    const type = `${service.tool}-versions` as const;
    const types = [type];
    const body = resourceBody(types, { allowEmptyType: true });
    const one = (row: PolicyToolVersionRow) => singleDocument(toolVersionResource(row, service.usage(row.version), type));
    const path = `/admin/${type}`;

    app.get(path, { schema: { querystring: listQuery({ filters: ['filter[version]', 'search[version]'] }) } }, async (request, reply) => {
      const raw: Record<string, unknown> = request.query;
      const all = service.list({ version: text(raw['filter[version]']), search: text(raw['search[version]']) });
      const { items, total, page } = paginate(all, readPage(raw));
      const rendered = items.map((row) => toolVersionResource(row, service.usage(row.version), type));
      return sendDocument(reply, 200, listDocument(request, { items: rendered, total, page }));
    });

    app.post(path, { schema: { body } }, async (request, reply) => {
      const input = readResource(request.body, types, { allowEmptyType: true });
      return sendDocument(reply, 201, one(service.create(new Attributes(input.attributes))));
    });

    app.get(`${path}/:id`, { schema: { params: params('id') } }, async (request, reply) => {
      return sendDocument(reply, 200, one(service.show(request.params.id)));
    });

    app.patch(`${path}/:id`, { schema: { params: params('id'), body } }, async (request, reply) => {
      const input = readResource(request.body, types, { allowEmptyType: true });
      return sendDocument(reply, 200, one(service.update(request.params.id, new Attributes(input.attributes))));
    });

    app.delete(`${path}/:id`, { schema: { params: params('id') } }, async (request, reply) => {
      service.destroy(request.params.id);
      return sendNoContent(reply);
    });
  }
}
