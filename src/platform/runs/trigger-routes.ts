import { isoTimestamp } from '../../core/clock.js';
import { badRequest } from '../../core/errors.js';
import type { PlatformApp, PlatformContext } from '../context.js';
import { readResource, relationshipId } from '../jsonapi/body.js';
import { listDocument, sendDocument, sendNoContent, singleDocument } from '../jsonapi/documents.js';
import { paginate, readPage } from '../jsonapi/pagination.js';
import { queryList } from '../jsonapi/query.js';
import { listQuery, params, resourceBody } from '../jsonapi/schemas.js';
import type { ResourceObject } from '../jsonapi/types.js';
import type { RunTriggerRow } from './repo.js';
import type { NamedTrigger } from './triggers.js';

const CREATE_BODY = resourceBody(['run-triggers'], { relationships: ['sourceable'] });

type ById = { Params: { id: string } };

function triggerResource(trigger: RunTriggerRow, names: { workspace: string; source: string }): ResourceObject {
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

/** Run triggers of a workspace (the rules live in `RunTriggerService`). */
export async function runTriggerRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const { workspaces, runTriggers } = context.services;
  const render = ({ trigger, names }: NamedTrigger) => triggerResource(trigger, names);

  app.post<ById>('/workspaces/:id/run-triggers', { schema: { params: params('id'), body: CREATE_BODY } }, async (request, reply) => {
    const located = workspaces.locate(request.principal, request.params.id);
    const created = runTriggers.create(located, () =>
      relationshipId(readResource(request.body, ['run-triggers']).relationships, 'sourceable', 'workspaces'),
    );
    return sendDocument(reply, 201, singleDocument(render(created)));
  });

  const listSchema = listQuery({ filters: ['filter[run-trigger][type]'] });
  app.get<ById>('/workspaces/:id/run-triggers', { schema: { params: params('id'), querystring: listSchema } }, async (request, reply) => {
    const located = workspaces.locate(request.principal, request.params.id);
    const rows = runTriggers.list(located, () => {
      const [side] = queryList(request.query as Record<string, unknown>, 'filter[run-trigger][type]');
      if (side === 'inbound' || side === 'outbound') return side;
      throw badRequest('filter[run-trigger][type] must be inbound or outbound', {
        title: 'bad request',
        parameter: 'filter[run-trigger][type]',
      });
    });
    const page = readPage(request.query as Record<string, unknown>);
    const { items, total } = paginate(rows, page);
    return sendDocument(
      reply,
      200,
      listDocument(request, { items: items.map((trigger) => render(runTriggers.named(trigger))), total, page }),
    );
  });

  app.get<ById>('/run-triggers/:id', { schema: { params: params('id') } }, async (request, reply) => {
    return sendDocument(reply, 200, singleDocument(render(runTriggers.find(request.principal, request.params.id))));
  });
  app.delete<ById>('/run-triggers/:id', { schema: { params: params('id') } }, async (request, reply) => {
    runTriggers.delete(request.principal, request.params.id);
    return sendNoContent(reply);
  });
}
