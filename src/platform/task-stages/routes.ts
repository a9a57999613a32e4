import { answerTriggeredDelivery } from '../run-tasks/delivery.js';
import type { PlatformApp, PlatformContext } from '../context.js';
import { Attributes, readResource } from '../jsonapi/body.js';
import { listDocument, sendDocument, singleDocument } from '../jsonapi/documents.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import { paginate, readPage } from '../jsonapi/pagination.js';
import { Type } from '@sinclair/typebox';
import { Attr, listQuery, params, resourceBody, showQuery } from '../jsonapi/schemas.js';
import type { ResourceObject } from '../jsonapi/types.js';
import { taskResultResource } from './service.js';
import { renderTaskStages, TASK_STAGE_INCLUDES } from './view.js';

const STAGE_INCLUDES = TASK_STAGE_INCLUDES.names;
const CALLBACK_BODY = resourceBody(['task-results'], {
  attributes: { status: Attr.string('passed, failed or running'), message: Attr.string(), url: Attr.string() },
});

/** The override takes plain JSON, `{"comment": "…"}` (go-tfe's TaskStageOverrideOptions), or nothing. */
const OVERRIDE_BODY = Type.Union(
  [
    Type.Object({ comment: Type.Optional(Type.Union([Type.String(), Type.Null()], { errorMessage: 'comment must be a string' })) }),
    Type.Null(),
  ],
  { optionalBody: true },
);

type ById = { Params: { id: string } };

/** `/runs/:id/task-stages`, `/task-stages/:id`, `/task-results/:id` and the task service's callback. */
export async function taskStageRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const service = context.services.taskStages;
  const runs = context.services.runs;
  const canOverride = (principal: Parameters<typeof runs.locate>[0], organizationId: string) =>
    context.services.policyChecks.canOverrideFor(principal, organizationId);

  app.get<ById>(
    '/runs/:id/task-stages',
    { schema: { params: params('id'), querystring: listQuery({ includes: STAGE_INCLUDES }) } },
    async (request, reply) => {
      const { run, located } = runs.locate(request.principal, request.params.id);
      const wanted = TASK_STAGE_INCLUDES.read(request.query as Record<string, unknown>);
      const page = readPage(request.query as Record<string, unknown>);
      const ids = paginate(service.stageIdsOf([run.id]).get(run.id) ?? [], page);
      const { items, included } = renderTaskStages(service, ids.items, wanted, canOverride(request.principal, located.organization.id));
      return sendDocument(reply, 200, listDocument(request, { items, total: ids.total, page }, { included }));
    },
  );

  app.get<ById>(
    '/task-stages/:id',
    { schema: { params: params('id'), querystring: showQuery(STAGE_INCLUDES) } },
    async (request, reply) => {
      const stage = service.findStage(request.params.id);
      if (!stage) throw NOT_FOUND;
      const { located } = runs.locate(request.principal, stage.runId);
      const wanted = TASK_STAGE_INCLUDES.read(request.query as Record<string, unknown>);
      const { items, included } = renderTaskStages(service, [stage.id], wanted, canOverride(request.principal, located.organization.id));
      return sendDocument(reply, 200, singleDocument(items[0] as ResourceObject, included));
    },
  );

  // Manage Policy Overrides lets a stage held by failed mandatory policies go on; without it the
  // stage is hidden (404), as a policy check's override is.
  app.post<ById>('/task-stages/:id/actions/override', { schema: { params: params('id'), body: OVERRIDE_BODY } }, async (request, reply) => {
    const stage = service.findStage(request.params.id);
    if (!stage) throw NOT_FOUND;
    const { located } = runs.locate(request.principal, stage.runId);
    if (!canOverride(request.principal, located.organization.id)) throw NOT_FOUND;
    const comment = (request.body as { comment?: string | null } | null)?.comment ?? null;
    service.runner.override(stage.id);
    if (comment) context.services.runActivity.recordOverrideComment(request.principal, stage.runId, comment);
    return sendDocument(reply, 200, singleDocument(service.render([stage.id], true)[0]!));
  });

  app.get<ById>('/task-results/:id', { schema: { params: params('id') } }, async (request, reply) => {
    const result = service.findResult(request.params.id);
    const stage = result && service.findStage(result.taskStageId);
    if (!result || !stage) throw NOT_FOUND;
    runs.locate(request.principal, stage.runId);
    return sendDocument(reply, 200, singleDocument(taskResultResource(result, stage)));
  });

  // The task service answers with the access token of its payload, not an API token.
  app.patch<ById>(
    '/task-results/:id/callback',
    { config: { public: true }, schema: { params: params('id'), body: CALLBACK_BODY } },
    async (request, reply) => {
      const token = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1] ?? '';
      const attributes = new Attributes(readResource(request.body, ['task-results']).attributes);
      const status = attributes.string('status', { required: true }) as string;
      const message = attributes.string('message') ?? null;
      // A payload sent by the control plane's trigger has no run: its delivery takes the answer.
      if (answerTriggeredDelivery(context.store.db, context.clock, request.params.id, token, { status, message }))
        return reply.code(200).send();
      service.runner.callback(request.params.id, token, status, message, attributes.string('url') ?? null);
      return reply.code(200).send();
    },
  );
}
