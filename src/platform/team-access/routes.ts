import type { FastifyInstance } from 'fastify';
import { badRequest, unprocessable } from '../../core/errors.js';
import { ACCESS_LEVELS, type AccessLevel } from '../auth/workspace-permissions.js';
import type { PlatformContext } from '../context.js';
import { Attributes, readResource, relationshipId } from '../jsonapi/body.js';
import { listDocument, sendDocument, sendNoContent, singleDocument } from '../jsonapi/documents.js';
import { readPage } from '../jsonapi/pagination.js';
import { teamWorkspaceResource } from './resource.js';
import { TeamAccessService } from './service.js';

type ById = { Params: { id: string } };

function readAccess(attributes: Attributes, required: boolean): AccessLevel {
  const access = attributes.string('access', { required });
  if (!ACCESS_LEVELS.includes(access as AccessLevel)) {
    throw unprocessable(`access must be one of ${ACCESS_LEVELS.join(', ')}`, '/data/attributes/access');
  }
  return access as AccessLevel;
}

export async function teamAccessRoutes(app: FastifyInstance, context: PlatformContext): Promise<void> {
  const service = new TeamAccessService(context.store.db, context.clock, context.config.dialect);

  app.get('/team-workspaces', async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const workspaceId = query['filter[workspace][id]'];
    if (typeof workspaceId !== 'string' || workspaceId === '') {
      throw badRequest('filter[workspace][id] is required', { title: 'bad request', parameter: 'filter[workspace][id]' });
    }
    const page = readPage(query);
    const { rows, total } = service.list(request.principal, workspaceId, page.offset, page.size);
    return sendDocument(reply, 200, listDocument(request, { items: rows.map(teamWorkspaceResource), total, page }));
  });

  app.post('/team-workspaces', async (request, reply) => {
    const input = readResource(request.body, ['team-workspaces']);
    const workspaceId = relationshipId(input.relationships, 'workspace', 'workspaces');
    if (!workspaceId) throw unprocessable('relationships.workspace is required', '/data/relationships/workspace');
    const located = service.administrable(request.principal, workspaceId);
    const teamId = relationshipId(input.relationships, 'team', 'teams');
    if (!teamId) throw unprocessable('relationships.team is required', '/data/relationships/team');
    const row = service.create(located, teamId, readAccess(new Attributes(input.attributes), true));
    return sendDocument(reply, 201, singleDocument(teamWorkspaceResource(row)));
  });

  app.get<ById>('/team-workspaces/:id', async (request, reply) => {
    const { grant } = service.visible(request.principal, request.params.id);
    return sendDocument(reply, 200, singleDocument(teamWorkspaceResource(grant)));
  });

  app.patch<ById>('/team-workspaces/:id', async (request, reply) => {
    const { located } = service.visible(request.principal, request.params.id);
    service.administrable(request.principal, located.workspace.id);
    const access = readAccess(new Attributes(readResource(request.body, ['team-workspaces']).attributes), true);
    return sendDocument(reply, 200, singleDocument(teamWorkspaceResource(service.update(request.principal, request.params.id, access))));
  });

  app.delete<ById>('/team-workspaces/:id', async (request, reply) => {
    service.destroy(request.principal, request.params.id);
    return sendNoContent(reply);
  });
}
