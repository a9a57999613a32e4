import { unprocessable } from '../../core/errors.js';
import type { RunTaskStage } from '../../store/tables.js';
import type { PlatformApp, PlatformContext } from '../context.js';
import { Attributes, readResource, relationshipId } from '../jsonapi/body.js';
import { listDocument, sendDocument, sendNoContent, singleDocument } from '../jsonapi/documents.js';
import { readPage } from '../jsonapi/pagination.js';
import { Attr, listQuery, params, resourceBody } from '../jsonapi/schemas.js';
import { enforcementLevel, stageList, STAGES } from '../run-tasks/input.js';
import { workspaceTaskResource } from '../run-tasks/resource.js';
import { listWorkspaceTasks } from './repo.js';
import { type WorkspaceTaskInput } from './service.js';

type ByWorkspace = { Params: { workspaceId: string } };
type ByTask = { Params: { workspaceId: string; id: string } };
const POINTER = '/data/attributes';
const WORKSPACE_TASK_BODY = resourceBody(['workspace-tasks'], {
  attributes: { 'enforcement-level': Attr.string('advisory or mandatory'), stage: Attr.string(), stages: Attr.strings() },
  relationships: ['task'],
});
const byWorkspace = params('workspaceId');
const byTask = params('workspaceId', 'id');

function readInput(body: unknown, creating: boolean): WorkspaceTaskInput {
  const resource = readResource(body, ['workspace-tasks']);
  const attributes = new Attributes(resource.attributes);
  const input: WorkspaceTaskInput = {};
  if (creating) {
    const taskId = relationshipId(resource.relationships, 'task', 'tasks');
    if (!taskId) throw unprocessable('relationships.task is required', '/data/relationships/task');
    input.taskId = taskId;
    attributes.string('enforcement-level', { required: true });
  }
  const level = enforcementLevel(attributes, 'enforcement-level', `${POINTER}/enforcement-level`);
  if (level !== undefined) input.enforcementLevel = level;
  const stage = attributes.string('stage') ?? undefined;
  if (stage !== undefined && !STAGES.includes(stage as RunTaskStage))
    throw unprocessable(`stage must be one of ${STAGES.join(', ')}`, `${POINTER}/stage`);
  if (stage !== undefined) input.stage = stage as RunTaskStage;
  const stages = stageList(attributes, `${POINTER}/stages`);
  if (stages !== undefined) input.stages = stages;
  const enabled = attributes.boolean('enabled', { acceptStrings: true });
  if (enabled !== undefined) input.enabled = enabled;
  return input;
}

export async function workspaceTaskRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const { db } = context.store;
  const service = context.services.workspaceTasks;

  app.get('/workspaces/:workspaceId/tasks', { schema: { params: byWorkspace, querystring: listQuery() } }, async (request, reply) => {
    const page = readPage(request.query);
    const located = service.workspace(request.principal, request.params.workspaceId, false);
    const { rows, total } = listWorkspaceTasks(db, located.workspace.id, page.offset, page.size);
    return sendDocument(reply, 200, listDocument(request, { items: rows.map(workspaceTaskResource), total, page }));
  });

  // The spec answers 204; real clients decode the attachment from the body, so it is returned (201).
  app.post<ByWorkspace>(
    '/workspaces/:workspaceId/tasks',
    { schema: { params: byWorkspace, body: WORKSPACE_TASK_BODY } },
    async (request, reply) => {
      const located = service.workspace(request.principal, request.params.workspaceId, true);
      const row = service.attach(located, readInput(request.body, true));
      return sendDocument(reply, 201, singleDocument(workspaceTaskResource(row)));
    },
  );

  app.get<ByTask>('/workspaces/:workspaceId/tasks/:id', { schema: { params: byTask } }, async (request, reply) => {
    const located = service.workspace(request.principal, request.params.workspaceId, false);
    return sendDocument(reply, 200, singleDocument(workspaceTaskResource(service.find(located, request.params.id))));
  });

  app.patch<ByTask>(
    '/workspaces/:workspaceId/tasks/:id',
    { schema: { params: byTask, body: WORKSPACE_TASK_BODY } },
    async (request, reply) => {
      const located = service.workspace(request.principal, request.params.workspaceId, true);
      service.find(located, request.params.id);
      const row = service.update(located, request.params.id, readInput(request.body, false));
      return sendDocument(reply, 200, singleDocument(workspaceTaskResource(row)));
    },
  );

  app.delete<ByTask>('/workspaces/:workspaceId/tasks/:id', { schema: { params: byTask } }, async (request, reply) => {
    const located = service.workspace(request.principal, request.params.workspaceId, true);
    service.detach(located, request.params.id);
    return sendNoContent(reply);
  });
}
