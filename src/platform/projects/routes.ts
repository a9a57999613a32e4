import type { PlatformApp, PlatformContext } from '../context.js';
import { Attributes, readResource } from '../jsonapi/body.js';
import { listDocument, sendDocument, sendNoContent, singleDocument } from '../jsonapi/documents.js';
import { readPage } from '../jsonapi/pagination.js';
import { queryList } from '../jsonapi/query.js';
import { Attr, listQuery, params, resourceBody } from '../jsonapi/schemas.js';
import { projectResource } from './resource.js';
import { type ProjectInput } from './service.js';
import { readTagBindings } from '../tag-bindings/rules.js';

const PROJECT_BODY = resourceBody(['projects'], {
  attributes: { name: Attr.string('3 to 40 letters, numbers, spaces, - or _'), description: Attr.string() },
  relationships: ['tag-bindings'],
});

function readProjectInput(body: unknown): ProjectInput {
  const resource = readResource(body, ['projects']);
  const attributes = new Attributes(resource.attributes);
  const name = attributes.string('name') ?? undefined;
  const description = attributes.string('description', { nullable: true });
  const bindings = resource.relationships['tag-bindings'];
  return {
    ...(name !== undefined ? { name } : {}),
    ...(description !== undefined ? { description } : {}),
    ...(bindings !== undefined && bindings !== null
      ? { tagBindings: readTagBindings(bindings, '/data/relationships/tag-bindings/data') }
      : {}),
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
      const items = rows.map((row) => projectResource(row, organization.name, grants));
      return sendDocument(reply, 200, listDocument(request, { items, total, page }));
    },
  );

  app.post('/organizations/:org/projects', { schema: { params: params('org'), body: PROJECT_BODY } }, async (request, reply) => {
    const { project, organization, grants } = service.create(request.principal, request.params.org, readProjectInput(request.body));
    return sendDocument(reply, 201, singleDocument(projectResource(project, organization.name, grants)));
  });

  app.get('/projects/:id', { schema: { params: params('id') } }, async (request, reply) => {
    const { project, organization, grants } = service.locate(request.principal, request.params.id);
    return sendDocument(reply, 200, singleDocument(projectResource(project, organization.name, grants)));
  });

  app.patch('/projects/:id', { schema: { params: params('id'), body: PROJECT_BODY } }, async (request, reply) => {
    const located = service.locate(request.principal, request.params.id);
    const { project, organization, grants } = service.update(located, readProjectInput(request.body));
    return sendDocument(reply, 200, singleDocument(projectResource(project, organization.name, grants)));
  });

  app.delete('/projects/:id', { schema: { params: params('id') } }, async (request, reply) => {
    service.destroy(service.locate(request.principal, request.params.id));
    return sendNoContent(reply);
  });
}
