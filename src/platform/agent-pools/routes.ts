import type { FastifyInstance } from 'fastify';
import type { PlatformContext } from '../context.js';
import { Attributes, readResource } from '../jsonapi/body.js';
import { listDocument, sendDocument, sendNoContent, singleDocument } from '../jsonapi/documents.js';
import { readPage } from '../jsonapi/pagination.js';
import { workspaceIdsByPool } from './repo.js';
import { agentPoolResource } from './resource.js';
import { AgentPoolService } from './service.js';

const NAME_RULE = { pattern: /^[A-Za-z0-9 _.-]+$/, patternText: 'may contain letters, numbers, spaces, ".", "-" and "_"', maxLength: 90 };

export async function agentPoolRoutes(app: FastifyInstance, context: PlatformContext): Promise<void> {
  const { db } = context.store;
  const service = new AgentPoolService(db, context.clock);
  const render = (pool: Parameters<typeof agentPoolResource>[0], organizationName: string) =>
    agentPoolResource(pool, organizationName, workspaceIdsByPool(db, [pool.id]).get(pool.id) ?? []);

  app.get<{ Params: { org: string } }>('/organizations/:org/agent-pools', async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const page = readPage(query);
    const q = typeof query['q'] === 'string' && query['q'] !== '' ? query['q'] : undefined;
    const { organization, rows, total } = service.list(request.principal, request.params.org, q, page.offset, page.size);
    const used = workspaceIdsByPool(db, rows.map((row) => row.id));
    const items = rows.map((row) => agentPoolResource(row, organization.name, used.get(row.id) ?? []));
    return sendDocument(reply, 200, listDocument(request, { items, total, page }));
  });

  app.post<{ Params: { org: string } }>('/organizations/:org/agent-pools', async (request, reply) => {
    const attributes = new Attributes(readResource(request.body, ['agent-pools']).attributes);
    const name = attributes.string('name', { required: true, ...NAME_RULE }) as string;
    const organizationScoped = attributes.boolean('organization-scoped');
    const { pool, organization } = service.create(request.principal, request.params.org, { name, organizationScoped });
    return sendDocument(reply, 201, singleDocument(render(pool, organization.name)));
  });

  app.get<{ Params: { id: string } }>('/agent-pools/:id', async (request, reply) => {
    const { pool, organization } = service.visible(request.principal, request.params.id);
    return sendDocument(reply, 200, singleDocument(render(pool, organization.name)));
  });

  app.patch<{ Params: { id: string } }>('/agent-pools/:id', async (request, reply) => {
    const attributes = new Attributes(readResource(request.body, ['agent-pools']).attributes);
    const name = attributes.string('name', NAME_RULE) ?? undefined;
    const organizationScoped = attributes.boolean('organization-scoped');
    const { pool, organization } = service.update(request.principal, request.params.id, {
      ...(name !== undefined ? { name } : {}),
      ...(organizationScoped !== undefined ? { organizationScoped } : {}),
    });
    return sendDocument(reply, 200, singleDocument(render(pool, organization.name)));
  });

  app.delete<{ Params: { id: string } }>('/agent-pools/:id', async (request, reply) => {
    service.destroy(request.principal, request.params.id);
    return sendNoContent(reply);
  });
}
