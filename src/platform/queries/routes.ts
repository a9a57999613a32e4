import type { FastifyRequest } from 'fastify';
import { unprocessable } from '../../core/errors.js';
import type { PlatformApp, PlatformContext } from '../context.js';
import { configurationVersionResource } from '../configuration-versions/resource.js';
import { Attributes, readResource, relationshipId, runVariables } from '../jsonapi/body.js';
import { listDocument, requestUrl, sendDocument, singleDocument } from '../jsonapi/documents.js';
import { Included, readInclude } from '../jsonapi/include.js';
import { readPage } from '../jsonapi/pagination.js';
import { Attr, listQuery, params, resourceBody, showQuery } from '../jsonapi/schemas.js';
import type { ResourceObject } from '../jsonapi/types.js';
import { userResource } from '../users/resource.js';
import type { Located } from '../workspaces/service.js';
import type { QueryRunRow } from './repo.js';
import { queryRunResource } from './resource.js';
import { QUERY_SOURCES, type CreateQueryRun } from './service.js';

const CREATE_BODY = resourceBody(['queries'], {
  attributes: {
    source: Attr.string(`one of ${QUERY_SOURCES.join(', ')}`),
    'terraform-version': Attr.string(),
    'generate-config-out': Attr.boolean('defaults to true'),
  },
  relationships: ['workspace', 'configuration-version'],
});

/** The documented names (`created-by`), and the Go client's constants (`created_by`). */
const QUERY_INCLUDES = [
  'created-by',
  'created_by',
  'configuration-version',
  'configuration_version',
  'configuration_version.ingress_attributes',
] as const;

type ById = { Params: { id: string } };

function readCreate(body: unknown): { workspaceId: string; input: CreateQueryRun } {
  const resource = readResource(body, ['queries']);
  const attributes = new Attributes(resource.attributes);
  const workspaceId = relationshipId(resource.relationships, 'workspace', 'workspaces');
  if (!workspaceId) throw unprocessable('relationships.workspace is required', '/data/relationships/workspace');
  const source = attributes.string('source');
  if (!source || !(QUERY_SOURCES as readonly string[]).includes(source)) {
    throw unprocessable(`source must be one of ${QUERY_SOURCES.join(', ')}`, '/data/attributes/source');
  }
  const variables = runVariables(resource.attributes);
  const cvId = relationshipId(resource.relationships, 'configuration-version', 'configuration-versions');
  const generate = attributes.boolean('generate-config-out');
  const version = attributes.string('terraform-version');
  const input: CreateQueryRun = {
    source,
    ...(cvId ? { configurationVersionId: cvId } : {}),
    ...(version ? { terraformVersion: version } : {}),
    ...(generate !== undefined && generate !== null ? { generateConfigOut: generate } : {}),
    ...(variables ? { variables } : {}),
  };
  return { workspaceId, input };
}

/** Query runs: create, show, a workspace's list, cancel; the log through the run logs' signed link. */
export async function queryRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const service = context.services.queries;
  const { dialect } = context.config;

  const render = (request: FastifyRequest, rows: readonly QueryRunRow[], located: Located) => {
    const include = readInclude(request.query as Record<string, unknown>, QUERY_INCLUDES);
    const origin = requestUrl(request).origin;
    const included = new Included();
    const items = rows.map((query) => {
      if (include.has('created-by') || include.has('created_by')) {
        const user = service.creatorOf(query);
        if (user) included.add(userResource(user));
      }
      if (include.has('configuration-version') || include.has('configuration_version')) {
        const version = context.services.configurationVersions.find(query.configurationVersionId);
        if (version) included.add(configurationVersionResource(version, dialect));
      }
      return queryRunResource(query, located, service.isCancelable(query), origin + context.services.runLogs.path(query.id));
    });
    return { items, included };
  };

  app.post('/queries', { schema: { body: CREATE_BODY } }, async (request, reply) => {
    const { workspaceId, input } = readCreate(request.body);
    const located = service.workspaces.locate(request.principal, workspaceId);
    const query = service.create(located, request.principal, input);
    const { items, included } = render(request, [query], located);
    return sendDocument(reply, 201, singleDocument(items[0] as ResourceObject, included));
  });

  app.get<ById>('/queries/:id', { schema: { params: params('id'), querystring: showQuery(QUERY_INCLUDES) } }, async (request, reply) => {
    const { query, located } = service.locate(request.principal, request.params.id);
    const { items, included } = render(request, [query], located);
    return sendDocument(reply, 200, singleDocument(items[0] as ResourceObject, included));
  });

  app.get<ById>(
    '/workspaces/:id/queries',
    { schema: { params: params('id'), querystring: listQuery({ includes: QUERY_INCLUDES }) } },
    async (request, reply) => {
      const located = service.workspaces.locate(request.principal, request.params.id);
      const page = readPage(request.query as Record<string, unknown>);
      const { rows, total } = service.list(located, page.offset, page.size);
      const { items, included } = render(request, rows, located);
      return sendDocument(reply, 200, listDocument(request, { items, total, page }, { included }));
    },
  );

  app.post<ById>('/queries/:id/actions/cancel', { schema: { params: params('id') } }, async (request, reply) => {
    service.cancel(request.principal, request.params.id);
    return reply.code(202).send();
  });
}
