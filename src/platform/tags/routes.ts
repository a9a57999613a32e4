import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { PlatformContext } from '../context.js';
import { readIdentifierList } from '../jsonapi/body.js';
import { listDocument, sendDocument, sendNoContent } from '../jsonapi/documents.js';
import { readPage } from '../jsonapi/pagination.js';
import { WorkspaceService } from '../workspaces/service.js';
import { listOrganizationTags, listWorkspaceTags } from './repo.js';
import { tagResource } from './resource.js';
import { tagReferences, TagService } from './service.js';

type ById = { Params: { id: string } };
type Query = Record<string, unknown>;

function textParameter(query: Query, name: string): string | undefined {
  const value = query[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Workspace tags (`/workspaces/:id/relationships/tags`) and the organization's tag list. */
export async function tagRoutes(app: FastifyInstance, context: PlatformContext): Promise<void> {
  const { db } = context.store;
  const workspaces = new WorkspaceService(db, context.clock, context.config.dialect);
  const tags = new TagService(context.clock);

  app.get<{ Params: { org: string } }>('/organizations/:org/tags', async (request, reply) => {
    const query = request.query as Query;
    const page = readPage(query);
    const { organization } = workspaces.organization(request.principal, request.params.org);
    const filter = { query: textParameter(query, 'q'), excludeTaggableId: textParameter(query, 'filter[exclude][taggable][id]') };
    const { rows, total } = listOrganizationTags(db, organization.id, filter, page.offset, page.size);
    return sendDocument(reply, 200, listDocument(request, { items: rows.map((row) => tagResource(row, organization.name)), total, page }));
  });

  // The real client filters this list with `name`, a parameter the spec does not list.
  app.get<ById>('/workspaces/:id/relationships/tags', async (request, reply) => {
    const query = request.query as Query;
    const page = readPage(query);
    const { workspace, organization } = workspaces.require(workspaces.locate(request.principal, request.params.id));
    const { rows, total } = listWorkspaceTags(db, workspace.id, textParameter(query, 'name'), page.offset, page.size);
    return sendDocument(reply, 200, listDocument(request, { items: rows.map((row) => tagResource(row, organization.name)), total, page }));
  });

  const change = (request: FastifyRequest<ById>, action: 'add' | 'remove') => {
    const { workspace, organization } = workspaces.require(workspaces.locate(request.principal, request.params.id), 'can-manage-tags');
    const references = tagReferences(readIdentifierList(request.body, 'tags'));
    db.transaction((tx) => tags[action](tx, organization.id, workspace.id, references));
  };

  app.post<ById>('/workspaces/:id/relationships/tags', async (request, reply) => {
    change(request, 'add');
    return sendNoContent(reply);
  });

  app.delete<ById>('/workspaces/:id/relationships/tags', async (request, reply) => {
    change(request, 'remove');
    return sendNoContent(reply);
  });
}
