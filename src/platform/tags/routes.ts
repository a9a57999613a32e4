import type { FastifyRequest } from 'fastify';
import { unprocessable } from '../../core/errors.js';
import type { PlatformApp, PlatformContext } from '../context.js';
import { readIdentifierList } from '../jsonapi/body.js';
import { Permissions } from '../auth/permissions.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import { findOrganizationById } from '../organizations/repo.js';
import { listDocument, sendDocument, sendNoContent } from '../jsonapi/documents.js';
import { readPage } from '../jsonapi/pagination.js';
import { identifierListBody, listQuery, params } from '../jsonapi/schemas.js';
import { findTag, listOrganizationTags, listWorkspaceTags } from './repo.js';
import { tagResource } from './resource.js';
import { tagReferences } from './service.js';

type ById = { Params: { id: string } };
type Query = Record<string, unknown>;

function textParameter(query: Query, name: string): string | undefined {
  const value = query[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Workspace tags (`/workspaces/:id/relationships/tags`) and the organization's tag list. */
export async function tagRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const { db } = context.store;
  const workspaces = context.services.workspaces;
  const tags = context.services.tags;

  const TAGS_BODY = identifierListBody('tags');
  const organizationTagsQuery = listQuery({ filters: ['q', 'filter[exclude][taggable][id]'] });
  app.get('/organizations/:org/tags', { schema: { params: params('org'), querystring: organizationTagsQuery } }, async (request, reply) => {
    const query: Query = request.query;
    const page = readPage(query);
    const { organization } = workspaces.organization(request.principal, request.params.org);
    const filter = { query: textParameter(query, 'q'), excludeTaggableId: textParameter(query, 'filter[exclude][taggable][id]') };
    const { rows, total } = listOrganizationTags(db, organization.id, filter, page.offset, page.size);
    return sendDocument(reply, 200, listDocument(request, { items: rows.map((row) => tagResource(row, organization.name)), total, page }));
  });

  // The real client filters this list with `name`, a parameter the spec does not list.
  app.get(
    '/workspaces/:id/relationships/tags',
    { schema: { params: params('id'), querystring: listQuery({ filters: ['name'] }) } },
    async (request, reply) => {
      const query: Query = request.query;
      const page = readPage(query);
      const { workspace, organization } = workspaces.require(workspaces.locate(request.principal, request.params.id));
      const { rows, total } = listWorkspaceTags(db, workspace.id, textParameter(query, 'name'), page.offset, page.size);
      return sendDocument(
        reply,
        200,
        listDocument(request, { items: rows.map((row) => tagResource(row, organization.name)), total, page }),
      );
    },
  );

  const change = (request: FastifyRequest<ById>, action: 'add' | 'remove') => {
    const { workspace, organization } = workspaces.require(workspaces.locate(request.principal, request.params.id), 'can-manage-tags');
    const references = tagReferences(readIdentifierList(request.body, 'tags'));
    db.transaction((tx) => tags[action](tx, organization.id, workspace.id, references));
  };

  app.post<ById>('/workspaces/:id/relationships/tags', { schema: { params: params('id'), body: TAGS_BODY } }, async (request, reply) => {
    change(request, 'add');
    return sendNoContent(reply);
  });

  app.delete<ById>('/workspaces/:id/relationships/tags', { schema: { params: params('id'), body: TAGS_BODY } }, async (request, reply) => {
    change(request, 'remove');
    return sendNoContent(reply);
  });

  // Bulk delete of the organization's tags (the Go client's OrganizationTags.Delete).
  app.delete('/organizations/:org/tags', { schema: { params: params('org'), body: TAGS_BODY } }, async (request, reply) => {
    const { organization } = workspaces.organization(request.principal, request.params.org);
    new Permissions(db).require(request.principal, organization, 'manage-workspaces');
    const entries = readIdentifierList(request.body, 'tags');
    db.transaction((tx) => tags.deleteTags(tx, organization.id, entries));
    return sendNoContent(reply);
  });

  // One tag onto several workspaces (OrganizationTags.AddWorkspaces); each needs tag management.
  app.post<ById>(
    '/tags/:id/relationships/workspaces',
    { schema: { params: params('id'), body: identifierListBody('workspaces') } },
    async (request, reply) => {
      const tag = findTag(db, request.params.id);
      const organization = tag && findOrganizationById(db, tag.organizationId);
      if (!tag || !organization) throw NOT_FOUND;
      workspaces.organization(request.principal, organization.name);
      const workspaceIds = readIdentifierList(request.body, 'workspaces').map((entry, index) => {
        const located = entry.id === undefined ? undefined : workspaces.locate(request.principal, entry.id);
        if (!located || located.organization.id !== organization.id)
          throw unprocessable("each entry needs the id of a workspace of the tag's organization", `/data/${index}/id`);
        return workspaces.require(located, 'can-manage-tags').workspace.id;
      });
      db.transaction((tx) => tags.addToWorkspaces(tx, tag, workspaceIds));
      return sendNoContent(reply);
    },
  );
}
