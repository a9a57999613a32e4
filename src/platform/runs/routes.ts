import type { FastifyRequest } from 'fastify';
import { unprocessable } from '../../core/errors.js';
import type { PlatformApp, PlatformContext } from '../context.js';
import { Attributes, readResource, relationshipId, runVariables } from '../jsonapi/body.js';
import { listDocument, requestUrl, sendDocument, singleDocument } from '../jsonapi/documents.js';
import { readPage } from '../jsonapi/pagination.js';
import { queryList } from '../jsonapi/query.js';
import { Type } from '@fastify/type-provider-typebox';
import { Attr, listQuery, params, resourceBody, showQuery } from '../jsonapi/schemas.js';
import type { ResourceObject } from '../jsonapi/types.js';
import type { Located } from '../workspaces/service.js';
import { renderOptions } from '../workspaces/documents.js';
import type { RunRow } from './repo.js';
import { phaseResource } from './resource.js';
import { RUN_INCLUDES } from './view.js';
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
    'policy-paths': Attr.strings('relative directories of the configuration holding policies (recorded and shown)'),
  },
  relationships: ['workspace', 'configuration-version'],
});
/** Run actions take plain JSON, `{"comment": "…"}` (go-tfe's options are not JSON:API documents), or nothing. */
const ACTION_BODY = Type.Union([Type.Object({ comment: Type.Optional(Type.Union([Type.String(), Type.Null()])) }), Type.Null()], {
  optionalBody: true,
});

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
  const variables = runVariables(resource.attributes);
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
    policyPaths: readPolicyPaths(attributes.stringArray('policy-paths')),
    variables,
    terraformVersion: attributes.string('tool-version') ?? undefined,
  };
  const defined: CreateRun = Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
  return { workspaceId, input: defined };
}

/** `policy-paths`: relative directories inside the configuration (no absolute path, no `..`, at most 100). */
function readPolicyPaths(paths: string[] | undefined): string[] | undefined {
  if (paths === undefined) return undefined;
  const pointer = '/data/attributes/policy-paths';
  if (paths.length > 100) throw unprocessable('policy-paths may name at most 100 paths', pointer);
  for (const path of paths) {
    if (path.trim() === '') throw unprocessable('policy-paths must not contain an empty path', pointer);
    if (path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(path))
      throw unprocessable(`policy-paths must be relative paths: ${JSON.stringify(path)} is absolute`, pointer);
    if (path.split(/[\\/]/).includes('..'))
      throw unprocessable(`policy-paths must stay inside the configuration: ${JSON.stringify(path)} contains ..`, pointer);
  }
  return paths;
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

  const views = context.services.runViews;
  const one = (request: FastifyRequest, run: RunRow, located: Located, wanted: ReadonlySet<string>) => {
    const { items, included } = views.render(request.principal, located, [run], renderOptions(context, request), wanted);
    return singleDocument(items[0] as ResourceObject, included);
  };

  app.post('/runs', { schema: { body: CREATE_BODY } }, async (request, reply) => {
    const wanted = views.read(request.query);
    const { workspaceId, input } = readCreate(request.body);
    const located = service.workspaces.locate(request.principal, workspaceId);
    const run = service.create(located, request.principal, input, undefined, requestUrl(request).origin);
    return sendDocument(reply, 201, one(request, run, located, wanted));
  });

  app.get<ById>('/runs/:id', { schema: { params: params('id'), querystring: showQuery(RUN_INCLUDES) } }, async (request, reply) => {
    const wanted = views.read(request.query);
    const { run, located } = service.locate(request.principal, request.params.id);
    return sendDocument(reply, 200, one(request, run, located, wanted));
  });

  const listSchema = listQuery({ includes: RUN_INCLUDES, filters: LIST_FILTERS });
  app.get<ById>('/workspaces/:id/runs', { schema: { params: params('id'), querystring: listSchema } }, async (request, reply) => {
    const wanted = views.read(request.query);
    const located = service.workspaces.locate(request.principal, request.params.id);
    const page = readPage(request.query as Record<string, unknown>);
    const { rows, total } = service.list(located, listQueryOf(request.query as Record<string, unknown>), page.offset, page.size);
    const { items, included } = views.render(request.principal, located, rows, renderOptions(context, request), wanted);
    return sendDocument(reply, 200, listDocument(request, { items, total, page }, { included }));
  });

  app.get<{ Params: { org: string } }>(
    '/organizations/:org/runs',
    { schema: { params: params('org'), querystring: listSchema } },
    async (request, reply) => {
      const wanted = views.read(request.query);
      const page = readPage(request.query as Record<string, unknown>);
      const { rows, total, organization, scope } = service.listForOrganization(
        request.principal,
        request.params.org,
        listQueryOf(request.query as Record<string, unknown>),
        page.offset,
        page.size,
      );
      const options = renderOptions(context, request);
      const { items, included } = views.renderForOrganization(request.principal, organization, scope, rows, options, wanted);
      return sendDocument(reply, 200, listDocument(request, { items, total, page }, { included }));
    },
  );

  // The organization's run queue and capacity, which the CLI reads while its run waits.
  app.get<{ Params: { org: string } }>(
    '/organizations/:org/runs/queue',
    { schema: { params: params('org'), querystring: listQuery() } },
    async (request, reply) => {
      const page = readPage(request.query as Record<string, unknown>);
      const { rows, total, organization, scope } = service.listForOrganization(
        request.principal,
        request.params.org,
        { statuses: QUEUED },
        page.offset,
        page.size,
      );
      const options = renderOptions(context, request);
      const rendered = views.renderForOrganization(request.principal, organization, scope, rows, options, new Set()).items;
      const items = rendered.map((item, index) => ({
        ...item,
        attributes: { ...item.attributes, 'position-in-queue': page.offset + index + 1 },
      }));
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
