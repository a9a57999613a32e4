import { badRequest, unprocessable } from '../../core/errors.js';
import { ACCESS_LEVELS } from '../auth/workspace-permissions.js';
import type { PlatformApp, PlatformContext } from '../context.js';
import { Attributes, readResource, relationshipId } from '../jsonapi/body.js';
import { listDocument, sendDocument, sendNoContent, singleDocument } from '../jsonapi/documents.js';
import { readPage } from '../jsonapi/pagination.js';
import { Attr, listQuery, params, resourceBody } from '../jsonapi/schemas.js';
import { teamWorkspaceResource } from './resource.js';
import { type GrantAccess } from './service.js';

type ById = { Params: { id: string } };

const TEAM_ACCESS_BODY = resourceBody(['team-workspaces'], {
  attributes: { access: Attr.string('read, plan, write, admin or custom') },
  relationships: ['team', 'workspace'],
});

const ACCESS_CHOICES = [...ACCESS_LEVELS, 'custom'] as const;

/** `access`: one of the fixed levels or `custom` (whose detailed permissions the body may set). */
function readAccess(attributes: Attributes, required: boolean): GrantAccess | undefined {
  const access = attributes.string('access', { required });
  if (access === undefined && !required) return undefined;
  if (!ACCESS_CHOICES.includes(access as GrantAccess)) {
    throw unprocessable(`access must be one of ${ACCESS_CHOICES.join(', ')}`, '/data/attributes/access');
  }
  return access as GrantAccess;
}

export async function teamAccessRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const service = context.services.teamAccess;

  app.get('/team-workspaces', { schema: { querystring: listQuery({ filters: ['filter[workspace][id]'] }) } }, async (request, reply) => {
    const query: Record<string, unknown> = request.query;
    const workspaceId = query['filter[workspace][id]'];
    if (typeof workspaceId !== 'string' || workspaceId === '') {
      throw badRequest('filter[workspace][id] is required', { title: 'bad request', parameter: 'filter[workspace][id]' });
    }
    const page = readPage(query);
    const { rows, total } = service.list(request.principal, workspaceId, page.offset, page.size);
    return sendDocument(reply, 200, listDocument(request, { items: rows.map(teamWorkspaceResource), total, page }));
  });

  app.post('/team-workspaces', { schema: { body: TEAM_ACCESS_BODY } }, async (request, reply) => {
    const input = readResource(request.body, ['team-workspaces']);
    const workspaceId = relationshipId(input.relationships, 'workspace', 'workspaces');
    if (!workspaceId) throw unprocessable('relationships.workspace is required', '/data/relationships/workspace');
    const located = service.administrable(request.principal, workspaceId);
    const teamId = relationshipId(input.relationships, 'team', 'teams');
    if (!teamId) throw unprocessable('relationships.team is required', '/data/relationships/team');
    const attributes = new Attributes(input.attributes);
    const row = service.create(located, teamId, readAccess(attributes, true) as GrantAccess, attributes);
    return sendDocument(reply, 201, singleDocument(teamWorkspaceResource(row)));
  });

  app.get<ById>('/team-workspaces/:id', { schema: { params: params('id') } }, async (request, reply) => {
    const { grant } = service.visible(request.principal, request.params.id);
    return sendDocument(reply, 200, singleDocument(teamWorkspaceResource(grant)));
  });

  app.patch<ById>('/team-workspaces/:id', { schema: { params: params('id'), body: TEAM_ACCESS_BODY } }, async (request, reply) => {
    const { located } = service.visible(request.principal, request.params.id);
    service.administrable(request.principal, located.workspace.id);
    const attributes = new Attributes(readResource(request.body, ['team-workspaces']).attributes);
    const updated = service.update(request.principal, request.params.id, readAccess(attributes, false), attributes);
    return sendDocument(reply, 200, singleDocument(teamWorkspaceResource(updated)));
  });

  app.delete<ById>('/team-workspaces/:id', { schema: { params: params('id') } }, async (request, reply) => {
    service.destroy(request.principal, request.params.id);
    return sendNoContent(reply);
  });
}
