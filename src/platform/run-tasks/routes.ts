import type { FastifyRequest } from 'fastify';
import type { OrganizationRow } from '../auth/principal.js';
import type { PlatformApp, PlatformContext } from '../context.js';
import { readResource } from '../jsonapi/body.js';
import { listDocument, sendDocument, sendNoContent, singleDocument } from '../jsonapi/documents.js';
import { readPage } from '../jsonapi/pagination.js';
import { listQuery, params, showQuery } from '../jsonapi/schemas.js';
import type { ResourceObject } from '../jsonapi/types.js';
import { readRunTaskInput, RUN_TASK_BODY } from './input.js';
import { type RunTaskRow } from './repo.js';
import { renderRunTasks, RUN_TASK_INCLUDES } from './view.js';

const INCLUDES = RUN_TASK_INCLUDES.names;

export async function runTaskRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const service = context.services.runTasks;

  const render = (request: FastifyRequest, organization: OrganizationRow, tasks: RunTaskRow[], include: Set<string>) =>
    renderRunTasks(context, request, organization, tasks, include);
  const include = (request: { query: Record<string, unknown> }) => RUN_TASK_INCLUDES.read(request.query);
  const show = { params: params('id'), querystring: showQuery(INCLUDES) };

  app.post('/organizations/:org/tasks', { schema: { params: params('org'), body: RUN_TASK_BODY } }, async (request, reply) => {
    const organization = service.organization(request.principal, request.params.org, 'create-run-tasks');
    const body = readResource(request.body, ['tasks']);
    const task = service.create(organization, readRunTaskInput(body.attributes, body.relationships, true));
    const { data } = render(request, organization, [task], new Set());
    return sendDocument(reply, 201, singleDocument(data[0] as ResourceObject));
  });

  app.get(
    '/organizations/:org/tasks',
    { schema: { params: params('org'), querystring: listQuery({ includes: INCLUDES }) } },
    async (request, reply) => {
      const query = request.query;
      const wanted = include(request);
      const page = readPage(query);
      const organization = service.organization(request.principal, request.params.org);
      const { rows, total } = service.list(organization, page);
      const { data, included } = render(request, organization, rows, wanted);
      return sendDocument(reply, 200, listDocument(request, { items: data, total, page }, { included }));
    },
  );

  app.get('/tasks/:id', { schema: show }, async (request, reply) => {
    const wanted = include(request);
    const { task, organization } = service.visible(request.principal, request.params.id);
    const { data, included } = render(request, organization, [task], wanted);
    return sendDocument(reply, 200, singleDocument(data[0] as ResourceObject, included));
  });

  app.patch('/tasks/:id', { schema: { ...show, body: RUN_TASK_BODY } }, async (request, reply) => {
    service.visible(request.principal, request.params.id);
    const body = readResource(request.body, ['tasks']);
    const { task, organization } = service.update(
      request.principal,
      request.params.id,
      readRunTaskInput(body.attributes, body.relationships, false),
    );
    const { data } = render(request, organization, [task], new Set());
    return sendDocument(reply, 200, singleDocument(data[0] as ResourceObject));
  });

  app.delete('/tasks/:id', { schema: { params: params('id') } }, async (request, reply) => {
    service.destroy(request.principal, request.params.id);
    return sendNoContent(reply);
  });
}
