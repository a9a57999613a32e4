import type { PlatformApp, PlatformContext } from '../context.js';
import { Attributes, readResource } from '../jsonapi/body.js';
import { listDocument, sendDocument, sendNoContent, singleDocument } from '../jsonapi/documents.js';
import { readPage } from '../jsonapi/pagination.js';
import { queryList } from '../jsonapi/query.js';
import { Attr, listQuery, params, resourceBody } from '../jsonapi/schemas.js';
import { projectResource } from './resource.js';
import type { Principal } from '../auth/principal.js';
import type { LocatedProject, ProjectInput } from './service.js';

const PROJECT_BODY = resourceBody(['projects'], {
  attributes: {
    name: Attr.string('3 to 40 letters, numbers, spaces, - or _'),
    description: Attr.string(),
    'auto-destroy-activity-duration': Attr.string('up to 4 digits and d or h, such as "14d" or "2h"; null turns it off'),
  },
});

function readProjectInput(body: unknown): ProjectInput {
  const attributes = new Attributes(readResource(body, ['projects']).attributes);
  const name = attributes.string('name') ?? undefined;
  const description = attributes.string('description', { nullable: true });
  const duration = attributes.string('auto-destroy-activity-duration', { nullable: true });
  return {
    ...(name !== undefined ? { name } : {}),
    ...(description !== undefined ? { description } : {}),
    ...(duration !== undefined ? { autoDestroyActivityDuration: duration } : {}),
  };
}

/** Projects: create, list (`q`, `filter[names]`), show, update and delete. */
export async function projectRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const service = context.services.projects;

  app.get(
    '/organizations/:org/projects',
    { schema: { params: params('org'), querystring: listQuery({ filters: ['q', 'filter[names]'] }) } },
    async (request, reply) => {
      const page = readPage(request.query);
      const q = queryList(request.query, 'q').join(',');
      const names = queryList(request.query, 'filter[names]');
      const { organization, grants, rows, total } = service.list(
        request.principal,
        request.params.org,
        { ...(q ? { q } : {}), names },
        page.offset,
        page.size,
      );
      const details = service.details(request.principal, organization, rows);
      const items = rows.map((row) => projectResource(row, organization.name, grants, details.get(row.id)));
      return sendDocument(reply, 200, listDocument(request, { items, total, page }));
    },
  );

  const one = (principal: Principal, { project, organization, grants }: LocatedProject) =>
    singleDocument(
      projectResource(project, organization.name, grants, service.details(principal, organization, [project]).get(project.id)),
    );

  app.post('/organizations/:org/projects', { schema: { params: params('org'), body: PROJECT_BODY } }, async (request, reply) => {
    const created = service.create(request.principal, request.params.org, readProjectInput(request.body));
    return sendDocument(reply, 201, one(request.principal, created));
  });

  app.get('/projects/:id', { schema: { params: params('id') } }, async (request, reply) => {
    return sendDocument(reply, 200, one(request.principal, service.locate(request.principal, request.params.id)));
  });

  app.patch('/projects/:id', { schema: { params: params('id'), body: PROJECT_BODY } }, async (request, reply) => {
    const located = service.locate(request.principal, request.params.id);
    return sendDocument(reply, 200, one(request.principal, service.update(located, readProjectInput(request.body))));
  });

  app.delete('/projects/:id', { schema: { params: params('id') } }, async (request, reply) => {
    service.destroy(service.locate(request.principal, request.params.id));
    return sendNoContent(reply);
  });
}
