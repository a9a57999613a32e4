import { isoTimestamp } from '../../core/clock.js';
import type { PlatformApp, PlatformContext } from '../context.js';
import { Attributes, readResource } from '../jsonapi/body.js';
import { listDocument, sendDocument, sendNoContent, singleDocument } from '../jsonapi/documents.js';
import { paginate, readPage } from '../jsonapi/pagination.js';
import { listQuery, params, resourceBody } from '../jsonapi/schemas.js';
import type { ResourceObject } from '../jsonapi/types.js';
import type { PolicyToolVersionRow, PolicyToolVersionService } from './policy-tools.js';

const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

/** An `opa-versions` or `sentinel-versions` resource, with how many policy sets pin it. */
function policyToolVersionResource(row: PolicyToolVersionRow, type: string, usage: number): ResourceObject {
  return {
    id: row.id,
    type,
    attributes: {
      version: row.version,
      url: row.url,
      sha: row.sha,
      official: row.official,
      enabled: row.enabled,
      beta: row.beta,
      deprecated: row.deprecated,
      'deprecated-reason': row.deprecatedReason,
      usage,
      'created-at': isoTimestamp(row.createdAt),
      archs: row.archs,
    },
    links: { self: `/api/v2/admin/${type}/${row.id}` },
  };
}

/** `/api/v2/admin/opa-versions` and `/admin/sentinel-versions` (self-hosted edition; site administrators only). */
export async function policyToolVersionRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  app.addHook('preValidation', async (request) => context.services.toolVersions.requireAdmin(request.principal));
  const services: PolicyToolVersionService[] = [context.services.opaVersions, context.services.sentinelVersions];
  for (const service of services) {
    const type = `${service.tool}-versions`;
    const types = [type];
    const body = resourceBody(types, { allowEmptyType: true });
    const one = (row: PolicyToolVersionRow) => singleDocument(policyToolVersionResource(row, type, service.usage(row.version)));
    const path = `/admin/${type}`;

    app.get(path, { schema: { querystring: listQuery({ filters: ['filter[version]', 'search[version]'] }) } }, async (request, reply) => {
      const raw: Record<string, unknown> = request.query;
      const all = service.list({ version: text(raw['filter[version]']), search: text(raw['search[version]']) });
      const { items, total, page } = paginate(all, readPage(raw));
      const rendered = items.map((row) => policyToolVersionResource(row, type, service.usage(row.version)));
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
