import type { FastifyInstance } from 'fastify';
import { Attributes, readResource } from '../jsonapi/body.js';
import { listDocument, sendDocument, sendNoContent, singleDocument } from '../jsonapi/documents.js';
import { readPage } from '../jsonapi/pagination.js';
import { Permissions } from '../auth/permissions.js';
import type { PlatformContext } from '../context.js';
import { entitlementSetResource, organizationResource } from './resource.js';
import { ORGANIZATION_DEFAULTS, OrganizationService } from './service.js';

/** Organization attributes a PATCH may change besides name and email. */
const UPDATABLE = Object.keys(ORGANIZATION_DEFAULTS);

export async function organizationRoutes(app: FastifyInstance, context: PlatformContext): Promise<void> {
  const { db } = context.store;
  const service = new OrganizationService(db, context.clock);
  const render = (principal: Parameters<Permissions['organization']>[0], organization: Parameters<typeof organizationResource>[0]) =>
    organizationResource(organization, new Permissions(db).organization(principal, organization));

  app.get('/organizations', async (request, reply) => {
    const page = readPage(request.query as Record<string, unknown>);
    const { rows, total } = service.list(request.principal, page.offset, page.size);
    const items = rows.map((row) => render(request.principal, row));
    return sendDocument(reply, 200, listDocument(request, { items, total, page }));
  });

  app.post('/organizations', async (request, reply) => {
    const input = readResource(request.body, ['organizations']);
    const attributes = new Attributes(input.attributes);
    const organization = service.createAs(request.principal, {
      name: attributes.string('name', { required: true }) as string,
      email: attributes.string('email', { required: true }) as string,
      attributes: pick(input.attributes, UPDATABLE),
    });
    return sendDocument(reply, 201, singleDocument(render(request.principal, organization)));
  });

  app.get<{ Params: { name: string } }>('/organizations/:name', async (request, reply) => {
    const organization = service.visible(request.principal, request.params.name);
    return sendDocument(reply, 200, singleDocument(render(request.principal, organization)));
  });

  app.patch<{ Params: { name: string } }>('/organizations/:name', async (request, reply) => {
    const input = readResource(request.body, ['organizations']);
    const attributes = new Attributes(input.attributes);
    const name = attributes.string('name');
    const email = attributes.string('email');
    const organization = service.update(request.principal, request.params.name, {
      ...(name ? { name } : {}),
      ...(email ? { email } : {}),
      attributes: pick(input.attributes, UPDATABLE),
    });
    return sendDocument(reply, 200, singleDocument(render(request.principal, organization)));
  });

  app.delete<{ Params: { name: string } }>('/organizations/:name', async (request, reply) => {
    service.destroy(request.principal, request.params.name);
    return sendNoContent(reply);
  });

  app.get<{ Params: { name: string } }>('/organizations/:name/entitlement-set', async (request, reply) => {
    const organization = service.visible(request.principal, request.params.name);
    return sendDocument(reply, 200, singleDocument(entitlementSetResource(organization)));
  });
}

function pick(record: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([key, value]) => keys.includes(key) && value !== undefined));
}
