import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { PlatformContext } from '../context.js';
import { readIdentifierList, readResource } from '../jsonapi/body.js';
import { listDocument, sendDocument, sendNoContent } from '../jsonapi/documents.js';
import { Included } from '../jsonapi/include.js';
import { readPage } from '../jsonapi/pagination.js';
import { tagReferences } from '../tags/service.js';
import { renderOptions, workspaceDocument, workspaceInclude } from './documents.js';
import { readWorkspaceSettings } from './input.js';
import { readWorkspaceFilter, readWorkspaceSort } from './list-query.js';
import { WorkspaceService, type Located } from './service.js';
import { includeForWorkspaces, renderWorkspaces } from './view.js';

type ById = { Params: { id: string } };
type ByName = { Params: { org: string; name: string } };

/** Workspace create, list, show, update and delete, by id and by organization and name alike. */
export async function workspaceRoutes(app: FastifyInstance, context: PlatformContext): Promise<void> {
  const { db } = context.store;
  const service = new WorkspaceService(db, context.clock, context.config.dialect);
  const byId = (request: FastifyRequest<ById>) => service.locate(request.principal, request.params.id);
  const byName = (request: FastifyRequest<ByName>) => service.locateByName(request.principal, request.params.org, request.params.name);

  app.post<{ Params: { org: string } }>('/organizations/:org/workspaces', async (request, reply) => {
    const include = workspaceInclude(request);
    service.creatable(request.principal, request.params.org);
    const input = readResource(request.body, ['workspaces']);
    const tagsRelationship = input.relationships['tags'];
    const tags = tagsRelationship === undefined ? [] : tagReferences(readIdentifierList(tagsRelationship, 'tags'), '/data/relationships/tags/data');
    const located = service.create(request.principal, request.params.org, readWorkspaceSettings(input.attributes), tags);
    return sendDocument(reply, 201, workspaceDocument(context, request, located, include));
  });

  app.get<{ Params: { org: string } }>('/organizations/:org/workspaces', async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const include = workspaceInclude(request);
    const page = readPage(query);
    const { organization, scope, rows, total } = service.list(request.principal, request.params.org, readWorkspaceFilter(query), readWorkspaceSort(query), page);
    const items = renderWorkspaces(db, scope, organization, rows, renderOptions(context, request));
    const included = new Included();
    includeForWorkspaces(db, context.clock, request.principal, organization, rows, include, included);
    return sendDocument(reply, 200, listDocument(request, { items, total, page }, { included }));
  });

  const show = async (request: FastifyRequest, located: Located) => workspaceDocument(context, request, service.require(located), workspaceInclude(request));
  app.get<ById>('/workspaces/:id', async (request, reply) => sendDocument(reply, 200, await show(request, byId(request))));
  app.get<ByName>('/organizations/:org/workspaces/:name', async (request, reply) => sendDocument(reply, 200, await show(request, byName(request))));

  const update = (request: FastifyRequest, located: Located) => {
    const include = workspaceInclude(request);
    service.require(located, 'can-update');
    const input = readResource(request.body, ['workspaces']);
    return workspaceDocument(context, request, service.update(located, readWorkspaceSettings(input.attributes)), include);
  };
  app.patch<ById>('/workspaces/:id', async (request, reply) => sendDocument(reply, 200, update(request, byId(request))));
  app.patch<ByName>('/organizations/:org/workspaces/:name', async (request, reply) => sendDocument(reply, 200, update(request, byName(request))));

  app.delete<ById>('/workspaces/:id', async (request, reply) => {
    service.destroy(byId(request));
    return sendNoContent(reply);
  });
  app.delete<ByName>('/organizations/:org/workspaces/:name', async (request, reply) => {
    service.destroy(byName(request));
    return sendNoContent(reply);
  });
}
