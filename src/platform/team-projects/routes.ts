import { badRequest, unprocessable } from '../../core/errors.js';
import type { PlatformApp, PlatformContext } from '../context.js';
import { Attributes, readResource, relationshipId } from '../jsonapi/body.js';
import { listDocument, sendDocument, sendNoContent, singleDocument } from '../jsonapi/documents.js';
import { readPage } from '../jsonapi/pagination.js';
import { queryList } from '../jsonapi/query.js';
import { Attr, listQuery, params, resourceBody } from '../jsonapi/schemas.js';
import type { TeamProjectAccess } from './repo.js';
import { teamProjectResource } from './resource.js';
import { TEAM_PROJECT_ACCESS } from './service.js';

type ById = { Params: { id: string } };

const BODY = resourceBody(['team-projects'], {
  attributes: {
    access: Attr.string(TEAM_PROJECT_ACCESS.join(', ')),
    'project-access': Attr.object('custom only: settings (read, update, delete), teams (none, read, manage), variable-sets'),
    'workspace-access': Attr.object(
      'custom only: runs, sentinel-mocks, state-versions, variables, create, locking, move, delete, run-tasks, policy-overrides',
    ),
  },
  relationships: ['team', 'project'],
});

function readAccess(body: unknown, required: boolean): { access: TeamProjectAccess | undefined; attributes: Attributes } {
  const attributes = new Attributes(readResource(body, ['team-projects']).attributes);
  const access = attributes.string('access', { required }) ?? undefined;
  if (access !== undefined && !TEAM_PROJECT_ACCESS.includes(access as TeamProjectAccess)) {
    throw unprocessable(`access must be one of ${TEAM_PROJECT_ACCESS.join(', ')}`, '/data/attributes/access');
  }
  return { access: access as TeamProjectAccess | undefined, attributes };
}

/** `/team-projects`: which teams reach a project's workspaces, and at which level. */
export async function teamProjectRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const service = context.services.teamProjects;

  app.get('/team-projects', { schema: { querystring: listQuery({ filters: ['filter[project][id]'] }) } }, async (request, reply) => {
    const [projectId] = queryList(request.query, 'filter[project][id]');
    if (!projectId) throw badRequest('filter[project][id] is required', { title: 'bad request', parameter: 'filter[project][id]' });
    const page = readPage(request.query);
    const { rows, total } = service.list(request.principal, projectId, page.offset, page.size);
    return sendDocument(reply, 200, listDocument(request, { items: rows.map(teamProjectResource), total, page }));
  });

  app.post('/team-projects', { schema: { body: BODY } }, async (request, reply) => {
    const { access, attributes } = readAccess(request.body, true);
    const { relationships } = readResource(request.body, ['team-projects']);
    const projectId = relationshipId(relationships, 'project', 'projects');
    if (!projectId) throw unprocessable('relationships.project is required', '/data/relationships/project');
    const teamId = relationshipId(relationships, 'team', 'teams');
    if (!teamId) throw unprocessable('relationships.team is required', '/data/relationships/team');
    return sendDocument(
      reply,
      201,
      singleDocument(teamProjectResource(service.create(request.principal, projectId, teamId, access as TeamProjectAccess, attributes))),
    );
  });

  app.get<ById>('/team-projects/:id', { schema: { params: params('id') } }, async (request, reply) =>
    sendDocument(reply, 200, singleDocument(teamProjectResource(service.visible(request.principal, request.params.id).grant))),
  );

  app.patch<ById>('/team-projects/:id', { schema: { params: params('id'), body: BODY } }, async (request, reply) => {
    const { access, attributes } = readAccess(request.body, false);
    const updated = service.update(request.principal, request.params.id, access, attributes);
    return sendDocument(reply, 200, singleDocument(teamProjectResource(updated)));
  });

  app.delete<ById>('/team-projects/:id', { schema: { params: params('id') } }, async (request, reply) => {
    service.destroy(request.principal, request.params.id);
    return sendNoContent(reply);
  });
}
