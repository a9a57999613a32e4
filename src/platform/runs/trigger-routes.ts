import { isoTimestamp } from '../../core/clock.js';
import { badRequest, unprocessable } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { PlatformApp, PlatformContext } from '../context.js';
import { readResource, relationshipId } from '../jsonapi/body.js';
import { listDocument, sendDocument, sendNoContent, singleDocument } from '../jsonapi/documents.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import { paginate, readPage } from '../jsonapi/pagination.js';
import { queryList } from '../jsonapi/query.js';
import { listQuery, params, resourceBody } from '../jsonapi/schemas.js';
import type { ResourceObject } from '../jsonapi/types.js';
import * as workspacesRepo from '../workspaces/repo.js';
import * as repo from './repo.js';

const CREATE_BODY = resourceBody(['run-triggers'], { relationships: ['sourceable'] });

type ById = { Params: { id: string } };

function triggerResource(trigger: repo.RunTriggerRow, names: { workspace: string; source: string }): ResourceObject {
  return {
    id: trigger.id,
    type: 'run-triggers',
    attributes: { 'created-at': isoTimestamp(trigger.createdAt), 'sourceable-name': names.source, 'workspace-name': names.workspace },
    relationships: {
      workspace: { data: { id: trigger.workspaceId, type: 'workspaces' } },
      sourceable: { data: { id: trigger.sourceWorkspaceId, type: 'workspaces' } },
      sourceable_choice: { data: { id: trigger.sourceWorkspaceId, type: 'workspaces' } },
    },
    links: { self: `/api/v2/run-triggers/${trigger.id}` },
  };
}

/**
 * Run triggers: a workspace names source workspaces; each apply that finishes in a source queues
 * a run in the workspace (see `RunService.triggered`). Managing them needs admin on the workspace.
 */
export async function runTriggerRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const { workspaces } = context.services;
  const { db } = context.store;
  const names = (trigger: repo.RunTriggerRow) => ({
    workspace: workspacesRepo.findWorkspace(db, trigger.workspaceId)?.name ?? '',
    source: workspacesRepo.findWorkspace(db, trigger.sourceWorkspaceId)?.name ?? '',
  });

  app.post<ById>('/workspaces/:id/run-triggers', { schema: { params: params('id'), body: CREATE_BODY } }, async (request, reply) => {
    const located = workspaces.locate(request.principal, request.params.id);
    workspaces.require(located, 'can-update');
    const sourceId = relationshipId(readResource(request.body, ['run-triggers']).relationships, 'sourceable', 'workspaces');
    const pointer = '/data/relationships/sourceable';
    if (!sourceId) throw unprocessable('relationships.sourceable is required', pointer);
    const source = workspacesRepo.findWorkspace(db, sourceId);
    if (!source || source.organizationId !== located.workspace.organizationId)
      throw unprocessable('sourceable workspace not found', pointer);
    if (source.id === located.workspace.id) throw unprocessable('a workspace cannot trigger itself', pointer);
    if (repo.triggersOf(db, 'inbound', located.workspace.id).some((trigger) => trigger.sourceWorkspaceId === source.id)) {
      throw unprocessable('sourceable has already been taken', pointer);
    }
    const trigger = { id: newId('rt'), workspaceId: located.workspace.id, sourceWorkspaceId: source.id, createdAt: context.clock.now() };
    repo.insertTrigger(db, trigger);
    return sendDocument(reply, 201, singleDocument(triggerResource(trigger, names(trigger))));
  });

  const listSchema = listQuery({ filters: ['filter[run-trigger][type]'] });
  app.get<ById>('/workspaces/:id/run-triggers', { schema: { params: params('id'), querystring: listSchema } }, async (request, reply) => {
    const located = workspaces.locate(request.principal, request.params.id);
    workspaces.require(located, 'can-read-settings');
    const [side] = queryList(request.query as Record<string, unknown>, 'filter[run-trigger][type]');
    if (side !== 'inbound' && side !== 'outbound') {
      throw badRequest('filter[run-trigger][type] must be inbound or outbound', {
        title: 'bad request',
        parameter: 'filter[run-trigger][type]',
      });
    }
    const page = readPage(request.query as Record<string, unknown>);
    const { items, total } = paginate(repo.triggersOf(db, side, located.workspace.id), page);
    return sendDocument(
      reply,
      200,
      listDocument(request, { items: items.map((trigger) => triggerResource(trigger, names(trigger))), total, page }),
    );
  });

  const find = (principal: Parameters<typeof workspaces.locate>[0], id: string, manage: boolean) => {
    const trigger = repo.findTrigger(db, id);
    if (!trigger) throw NOT_FOUND;
    const located = workspaces.locate(principal, trigger.workspaceId);
    workspaces.require(located, manage ? 'can-update' : 'can-read-settings');
    return trigger;
  };
  app.get<ById>('/run-triggers/:id', { schema: { params: params('id') } }, async (request, reply) => {
    const trigger = find(request.principal, request.params.id, false);
    return sendDocument(reply, 200, singleDocument(triggerResource(trigger, names(trigger))));
  });
  app.delete<ById>('/run-triggers/:id', { schema: { params: params('id') } }, async (request, reply) => {
    repo.deleteTrigger(db, find(request.principal, request.params.id, true).id);
    return sendNoContent(reply);
  });
}
