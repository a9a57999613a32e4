import type { FastifyRequest } from 'fastify';
import { unprocessable } from '../../core/errors.js';
import type { PlatformApp, PlatformContext } from '../context.js';
import { configurationVersionResource } from '../configuration-versions/resource.js';
import { Attributes, readResource, relationshipId } from '../jsonapi/body.js';
import { listDocument, requestUrl, sendDocument, singleDocument } from '../jsonapi/documents.js';
import { Included, readInclude } from '../jsonapi/include.js';
import { readPage } from '../jsonapi/pagination.js';
import { queryList } from '../jsonapi/query.js';
import { Type } from '@fastify/type-provider-typebox';
import { Attr, listQuery, params, resourceBody, showQuery } from '../jsonapi/schemas.js';
import type { ResourceObject } from '../jsonapi/types.js';
import { userResource } from '../users/resource.js';
import { organizationServiceAccount } from '../users/service.js';
import type { Located } from '../workspaces/service.js';
import { renderOptions } from '../workspaces/documents.js';
import type { RunRow } from './repo.js';
import { phaseResource, runResource } from './resource.js';
import type { CreateRun, RunListQuery } from './service.js';

const CREATE_BODY = resourceBody(['runs'], {
  attributes: {
    'is-destroy': Attr.boolean(),
    refresh: Attr.boolean(),
    'refresh-only': Attr.boolean(),
    'plan-only': Attr.boolean(),
    'auto-apply': Attr.boolean('defaults to the workspace setting'),
    'allow-empty-apply': Attr.boolean(),
    'save-plan': Attr.boolean(),
    message: Attr.string(),
    'terraform-version': Attr.string('plan-only runs only'),
  },
  relationships: ['workspace', 'configuration-version'],
});
/** Run actions take plain JSON, `{"comment": "…"}` (go-tfe's options are not JSON:API documents), or nothing. */
const ACTION_BODY = Type.Union([Type.Object({ comment: Type.Optional(Type.Union([Type.String(), Type.Null()])) }), Type.Null()], {
  optionalBody: true,
});

/** What `include` may name on a run (the CLI asks for `task_stages`, `workspace`, `plan`). */
export const RUN_INCLUDES = [
  'plan',
  'apply',
  'created_by',
  'cost_estimate',
  'configuration_version',
  'configuration_version.ingress_attributes',
  'workspace',
  'task_stages',
] as const;
const LIST_FILTERS = [
  'filter[status]',
  'filter[operation]',
  'filter[source]',
  'filter[workspace_names]',
  'search[user]',
  'search[commit]',
  'search[basic]',
] as const;

type ById = { Params: { id: string } };

const QUEUED = ['plan_queued', 'apply_queued'];
const RUNNING = ['planning', 'applying'];

function readCreate(body: unknown): { workspaceId: string; input: CreateRun } {
  const resource = readResource(body, ['runs']);
  const attributes = new Attributes(resource.attributes);
  const workspaceId = relationshipId(resource.relationships, 'workspace', 'workspaces');
  if (!workspaceId) throw unprocessable('relationships.workspace is required', '/data/relationships/workspace');
  const cvId = relationshipId(resource.relationships, 'configuration-version', 'configuration-versions');
  const variables = resource.attributes['variables'];
  if (variables !== undefined && variables !== null) {
    const isPair = (item: unknown) =>
      typeof item === 'object' &&
      item !== null &&
      typeof (item as Record<string, unknown>)['key'] === 'string' &&
      typeof (item as Record<string, unknown>)['value'] === 'string';
    const valid = Array.isArray(variables) && variables.every(isPair);
    if (!valid) throw unprocessable('variables must be a list of {key, value} strings', '/data/attributes/variables');
  }
  const input: CreateRun = {
    ...(cvId ? { configurationVersionId: cvId } : {}),
    isDestroy: attributes.boolean('is-destroy'),
    refresh: attributes.boolean('refresh'),
    refreshOnly: attributes.boolean('refresh-only'),
    planOnly: attributes.boolean('plan-only'),
    autoApply: attributes.boolean('auto-apply'),
    allowEmptyApply: attributes.boolean('allow-empty-apply'),
    savePlan: attributes.boolean('save-plan'),
    message: attributes.string('message') ?? undefined,
    targetAddrs: attributes.stringArray('target-addrs'),
    replaceAddrs: attributes.stringArray('replace-addrs'),
    variables: (variables as { key: string; value: string }[] | undefined | null)?.map(({ key, value }) => ({ key, value })),
    terraformVersion: attributes.string('tool-version') ?? undefined,
  };
  const defined: CreateRun = Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
  return { workspaceId, input: defined };
}

function comment(body: unknown): string | null {
  const value = (body as { comment?: unknown } | null)?.comment;
  return typeof value === 'string' && value !== '' ? value : null;
}

function listQueryOf(query: Record<string, unknown>): RunListQuery {
  const split = (name: string) =>
    queryList(query, name)
      .flatMap((value) => value.split(','))
      .filter((value) => value !== '');
  const statuses = split('filter[status]');
  const operations = split('filter[operation]');
  const sources = split('filter[source]');
  const workspaceNames = split('filter[workspace_names]');
  const search = [...queryList(query, 'search[commit]'), ...queryList(query, 'search[user]'), ...queryList(query, 'search[basic]')][0];
  return {
    ...(statuses.length ? { statuses } : {}),
    ...(operations.length ? { operations } : {}),
    ...(sources.length ? { sources } : {}),
    ...(workspaceNames.length ? { workspaceNames } : {}),
    ...(search ? { search } : {}),
  };
}

/** Runs: create, show, lists per workspace and organization, the actions; plans and applies (their logs via object routes). */
export async function runRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const service = context.services.runs;
  const { engine } = service;
  const { dialect } = context.config;

  const render = (request: FastifyRequest, runs: readonly RunRow[], located: Located): { items: ResourceObject[]; included: Included } => {
    const include = readInclude(request.query as Record<string, unknown>, RUN_INCLUDES);
    const origin = requestUrl(request).origin;
    const phases = service.phasesOf(runs.map((run) => run.id));
    const stages = context.services.taskStages.stageIdsOf(runs.map((run) => run.id));
    const included = new Included();
    const items = runs.map((run) => {
      const plan = phases.find((phase) => phase.runId === run.id && phase.kind === 'plan');
      const apply = phases.find((phase) => phase.runId === run.id && phase.kind === 'apply');
      if (include.has('plan') && plan) included.add(phaseResource(plan, origin + context.services.runLogs.path(plan.id)));
      if (include.has('apply') && apply) included.add(phaseResource(apply, origin + context.services.runLogs.path(apply.id)));
      if (include.has('task_stages')) included.add(...context.services.taskStages.render(stages.get(run.id) ?? []));
      if (include.has('configuration_version')) {
        const version = context.services.configurationVersions.find(run.configurationVersionId);
        if (version) included.add(configurationVersionResource(version, dialect));
      }
      if (include.has('created_by') && run.createdBy?.kind === 'user') {
        const user = service.creatorOf(run);
        if (user) included.add(userResource(user));
      } else if (include.has('created_by') && run.createdBy?.kind === 'organization') {
        included.add(userResource(organizationServiceAccount(located.organization)));
      }
      return runResource(run, {
        dialect,
        nowMs: context.clock.nowMs(),
        located,
        plan,
        apply,
        taskStageIds: stages.get(run.id) ?? [],
        commentIds: context.services.runActivity.commentIdsOf(run.id),
        positionInQueue: service.positionInQueue(run),
        canOverridePolicyCheck: context.services.policyChecks.canOverrideFor(request.principal, located.organization.id),
      });
    });
    if (include.has('workspace')) {
      const fresh = service.workspaces.reload(located);
      included.add(
        context.services.workspaceViews.render(fresh.scope, fresh.organization, [fresh.workspace], renderOptions(context, request))[0],
      );
    }
    return { items, included };
  };
  const one = (request: FastifyRequest, run: RunRow, located: Located) => {
    const { items, included } = render(request, [run], located);
    return singleDocument(items[0] as ResourceObject, included);
  };

  app.post('/runs', { schema: { body: CREATE_BODY } }, async (request, reply) => {
    const { workspaceId, input } = readCreate(request.body);
    const located = service.workspaces.locate(request.principal, workspaceId);
    const run = service.create(located, request.principal, input, undefined, requestUrl(request).origin);
    return sendDocument(reply, 201, one(request, run, located));
  });

  app.get<ById>('/runs/:id', { schema: { params: params('id'), querystring: showQuery(RUN_INCLUDES) } }, async (request, reply) => {
    const { run, located } = service.locate(request.principal, request.params.id);
    return sendDocument(reply, 200, one(request, run, located));
  });

  const listSchema = listQuery({ includes: RUN_INCLUDES, filters: LIST_FILTERS });
  app.get<ById>('/workspaces/:id/runs', { schema: { params: params('id'), querystring: listSchema } }, async (request, reply) => {
    const located = service.workspaces.locate(request.principal, request.params.id);
    const page = readPage(request.query as Record<string, unknown>);
    const { rows, total } = service.list(located, listQueryOf(request.query as Record<string, unknown>), page.offset, page.size);
    const { items, included } = render(request, rows, located);
    return sendDocument(reply, 200, listDocument(request, { items, total, page }, { included }));
  });

  app.get<{ Params: { org: string } }>(
    '/organizations/:org/runs',
    { schema: { params: params('org'), querystring: listSchema } },
    async (request, reply) => {
      const page = readPage(request.query as Record<string, unknown>);
      const { rows, total } = service.listForOrganization(
        request.principal,
        request.params.org,
        listQueryOf(request.query as Record<string, unknown>),
        page.offset,
        page.size,
      );
      const items = rows.flatMap((run) => {
        const located = service.workspaces.locate(request.principal, run.workspaceId);
        return render(request, [run], located).items;
      });
      return sendDocument(reply, 200, listDocument(request, { items, total, page }));
    },
  );

  // The organization's run queue and capacity, which the CLI reads while its run waits.
  app.get<{ Params: { org: string } }>(
    '/organizations/:org/runs/queue',
    { schema: { params: params('org'), querystring: listQuery() } },
    async (request, reply) => {
      const page = readPage(request.query as Record<string, unknown>);
      const { rows, total } = service.listForOrganization(
        request.principal,
        request.params.org,
        { statuses: QUEUED },
        page.offset,
        page.size,
      );
      const items = rows.map((run, index) => {
        const located = service.workspaces.locate(request.principal, run.workspaceId);
        const [item] = render(request, [run], located).items;
        return { ...item!, attributes: { ...item!.attributes, 'position-in-queue': page.offset + index + 1 } };
      });
      return sendDocument(reply, 200, listDocument(request, { items, total, page }));
    },
  );
  app.get<{ Params: { org: string } }>('/organizations/:org/capacity', { schema: { params: params('org') } }, async (request, reply) => {
    const queued = service.listForOrganization(request.principal, request.params.org, { statuses: QUEUED }, 0, 1).total;
    const running = service.listForOrganization(request.principal, request.params.org, { statuses: RUNNING }, 0, 1).total;
    const data = { id: request.params.org, type: 'organization-capacity', attributes: { pending: queued, running } };
    return sendDocument(reply, 200, { data });
  });

  const action = (name: string, act: (principal: FastifyRequest['principal'], id: string, comment: string | null) => void) =>
    app.post<ById>(`/runs/:id/actions/${name}`, { schema: { params: params('id'), body: ACTION_BODY } }, async (request, reply) => {
      act(request.principal, request.params.id, comment(request.body));
      return reply.code(202).send();
    });
  action('apply', (principal, id, text) => service.apply(principal, id, text));
  action('discard', (principal, id, text) => service.discard(principal, id, text));
  action('cancel', (principal, id, text) => service.cancel(principal, id, text));
  action('force-cancel', (principal, id, text) => service.forceCancel(principal, id, text));
  action('force-execute', (principal, id) => service.forceExecute(principal, id));

  // Plans and applies: the resources, the plan's JSON, and the logs' self-authorizing links.
  for (const [type, kind] of [
    ['plans', 'plan'],
    ['applies', 'apply'],
  ] as const) {
    app.get<ById>(`/${type}/:id`, { schema: { params: params('id') } }, async (request, reply) => {
      const phase = service.phase(request.principal, request.params.id, kind);
      return sendDocument(
        reply,
        200,
        singleDocument(phaseResource(phase, requestUrl(request).origin + context.services.runLogs.path(phase.id))),
      );
    });
    app.get<ById>(`/runs/:id/${kind}`, { schema: { params: params('id') } }, async (request, reply) => {
      const { run } = service.locate(request.principal, request.params.id);
      const phase = engine.phase(run.id, kind);
      return sendDocument(
        reply,
        200,
        singleDocument(phaseResource(phase, requestUrl(request).origin + context.services.runLogs.path(phase.id))),
      );
    });
  }
  for (const path of ['/plans/:id/json-output', '/plans/:id/json-output-redacted', '/runs/:id/plan/json-output']) {
    app.get<ById>(path, { config: { taskAccess: true }, schema: { params: params('id') } }, async (request, reply) => {
      const byRun = path.startsWith('/runs');
      const redacted = path.endsWith('-redacted');
      const json = request.taskRunId
        ? service.taskPlanJson(request.taskRunId, request.params.id, byRun, redacted)
        : service.planJson(request.principal, request.params.id, byRun, redacted);
      return reply.code(200).type('application/json').send(json);
    });
  }
}
