import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { OrganizationRow } from '../auth/principal.js';
import { WorkspacePermissions } from '../auth/workspace-permissions.js';
import type { PlatformContext } from '../context.js';
import { wireBehaviours } from '../dialect-behaviours.js';
import { readResource } from '../jsonapi/body.js';
import { listDocument, sendDocument, sendNoContent, singleDocument } from '../jsonapi/documents.js';
import { Included, readInclude } from '../jsonapi/include.js';
import { readPage } from '../jsonapi/pagination.js';
import type { ResourceObject } from '../jsonapi/types.js';
import { renderOptions } from '../workspaces/documents.js';
import { findWorkspaces } from '../workspaces/repo.js';
import { renderWorkspaces } from '../workspaces/view.js';
import { readRunTaskInput } from './input.js';
import { attachmentsOfTasks, listRunTasks, type RunTaskRow } from './repo.js';
import { runTaskResource, workspaceTaskResource } from './resource.js';
import { globalRunTasksEntitled, RunTaskService } from './service.js';

type ById = { Params: { id: string } };
const INCLUDES = ['workspace_tasks', 'workspace_tasks.workspace'] as const;

export async function runTaskRoutes(app: FastifyInstance, context: PlatformContext): Promise<void> {
  const { db } = context.store;
  const service = new RunTaskService(db, context.clock, context.config.dialect);
  const behaviours = wireBehaviours(context.config.dialect);

  /** Tasks of one organization with their attachments and whatever `include` asked for. */
  const render = (request: FastifyRequest, organization: OrganizationRow, tasks: RunTaskRow[], include: Set<string>) => {
    const attachments = attachmentsOfTasks(db, tasks.map((task) => task.id));
    const globalEntitled = globalRunTasksEntitled(organization);
    const data = tasks.map((task) =>
      runTaskResource({ task, organizationName: organization.name, attachments: attachments.get(task.id) ?? [], globalEntitled }, behaviours),
    );
    const included = new Included();
    const rows = [...attachments.values()].flat();
    if (include.has('workspace_tasks') || include.has('workspace_tasks.workspace')) included.add(...rows.map(workspaceTaskResource));
    if (include.has('workspace_tasks.workspace')) {
      const permissions = new WorkspacePermissions(db);
      const scope = permissions.scope(request.principal, organization.id);
      const ids = [...new Set(rows.map((row) => row.workspaceId))];
      const levels = permissions.levels(scope, ids);
      // Only workspaces the caller may read; Manage Run Tasks alone does not show workspace settings.
      const readable = findWorkspaces(db, ids).filter((workspace) => levels.get(workspace.id));
      included.add(...renderWorkspaces(db, scope, organization, readable, renderOptions(context, request)));
    }
    return { data, included };
  };
  const include = (request: FastifyRequest) => readInclude(request.query as Record<string, unknown>, INCLUDES);

  app.post<{ Params: { org: string } }>('/organizations/:org/tasks', async (request, reply) => {
    const organization = service.organization(request.principal, request.params.org, 'create-run-tasks');
    const body = readResource(request.body, ['tasks']);
    const task = service.create(organization, readRunTaskInput(body.attributes, body.relationships, true));
    const { data } = render(request, organization, [task], new Set());
    return sendDocument(reply, 201, singleDocument(data[0] as ResourceObject));
  });

  app.get<{ Params: { org: string } }>('/organizations/:org/tasks', async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const wanted = include(request);
    const page = readPage(query);
    const organization = service.organization(request.principal, request.params.org);
    const { rows, total } = listRunTasks(db, organization.id, page.offset, page.size);
    const { data, included } = render(request, organization, rows, wanted);
    return sendDocument(reply, 200, listDocument(request, { items: data, total, page }, { included }));
  });

  app.get<ById>('/tasks/:id', async (request, reply) => {
    const wanted = include(request);
    const { task, organization } = service.visible(request.principal, request.params.id);
    const { data, included } = render(request, organization, [task], wanted);
    return sendDocument(reply, 200, singleDocument(data[0] as ResourceObject, included));
  });

  app.patch<ById>('/tasks/:id', async (request, reply) => {
    service.visible(request.principal, request.params.id);
    const body = readResource(request.body, ['tasks']);
    const { task, organization } = service.update(request.principal, request.params.id, readRunTaskInput(body.attributes, body.relationships, false));
    const { data } = render(request, organization, [task], new Set());
    return sendDocument(reply, 200, singleDocument(data[0] as ResourceObject));
  });

  app.delete<ById>('/tasks/:id', async (request, reply) => {
    service.destroy(request.principal, request.params.id);
    return sendNoContent(reply);
  });
}
