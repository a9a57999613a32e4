import type { FastifyRequest } from 'fastify';
import type { OrganizationRow } from '../auth/principal.js';
import { WorkspacePermissions } from '../auth/workspace-permissions.js';
import type { PlatformApp, PlatformContext } from '../context.js';
import { wireBehaviours } from '../dialect-behaviours.js';
import { readResource } from '../jsonapi/body.js';
import { listDocument, sendDocument, sendNoContent, singleDocument } from '../jsonapi/documents.js';
import { IncludeRegistry } from '../jsonapi/include.js';
import { readPage } from '../jsonapi/pagination.js';
import { listQuery, params, showQuery } from '../jsonapi/schemas.js';
import type { ResourceObject } from '../jsonapi/types.js';
import { renderOptions } from '../workspaces/documents.js';
import { findWorkspaces } from '../workspaces/repo.js';
import { readRunTaskInput, RUN_TASK_BODY } from './input.js';
import { attachmentsOfTasks, listRunTasks, type RunTaskRow, type WorkspaceTaskRow } from './repo.js';
import { runTaskResource, workspaceTaskResource } from './resource.js';
import { globalRunTasksEntitled } from './service.js';

interface IncludeSource {
  context: PlatformContext;
  request: FastifyRequest;
  organization: OrganizationRow;
  attachments: WorkspaceTaskRow[];
}

/** What a run task can include, declared once. */
const RUN_TASK_INCLUDES = new IncludeRegistry<IncludeSource>({
  workspace_tasks: ({ attachments }) => attachments.map(workspaceTaskResource),
  // The attachments come along, as the real service includes them on the way to their workspaces.
  'workspace_tasks.workspace': ({ context, request, organization, attachments }) => {
    const { db } = context.store;
    const permissions = new WorkspacePermissions(db);
    const scope = permissions.scope(request.principal, organization.id);
    const ids = [...new Set(attachments.map((row) => row.workspaceId))];
    const levels = permissions.levels(scope, ids);
    // Only workspaces the caller may read; Manage Run Tasks alone does not show workspace settings.
    const readable = findWorkspaces(db, ids).filter((workspace) => levels.get(workspace.id));
    return [
      ...attachments.map(workspaceTaskResource),
      ...context.services.workspaceViews.render(scope, organization, readable, renderOptions(context, request)),
    ];
  },
});
const INCLUDES = RUN_TASK_INCLUDES.names;

export async function runTaskRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const { db } = context.store;
  const service = context.services.runTasks;
  const behaviours = wireBehaviours(context.config.dialect);

  /** Tasks of one organization with their attachments and whatever `include` asked for. */
  const render = (request: FastifyRequest, organization: OrganizationRow, tasks: RunTaskRow[], include: Set<string>) => {
    const attachments = attachmentsOfTasks(
      db,
      tasks.map((task) => task.id),
    );
    const globalEntitled = globalRunTasksEntitled(organization);
    const data = tasks.map((task) =>
      runTaskResource(
        { task, organizationName: organization.name, attachments: attachments.get(task.id) ?? [], globalEntitled },
        behaviours,
      ),
    );
    const included = RUN_TASK_INCLUDES.collect(include, { context, request, organization, attachments: [...attachments.values()].flat() });
    return { data, included };
  };
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
      const { rows, total } = listRunTasks(db, organization.id, page.offset, page.size);
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
