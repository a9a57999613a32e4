import type { FastifyRequest } from 'fastify';
import type { CallerScope } from '../auth/workspace-permissions.js';
import type { PlatformApp, PlatformContext } from '../context.js';
import { readIdentifierList, readResource, relationshipId } from '../jsonapi/body.js';
import { listDocument, requestOrigin, sendDocument, sendNoContent, sendSerializedDocument } from '../jsonapi/documents.js';
import { readPage } from '../jsonapi/pagination.js';
import { listQuery, params, showQuery } from '../jsonapi/schemas.js';
import { tagReferences } from '../tags/service.js';
import { readTagBindings } from '../tag-bindings/rules.js';
import { renderOptions, workspaceDocument, workspaceInclude } from './documents.js';
import { readWorkspaceSettings, WORKSPACE_BODY } from './input.js';
import { keptListText } from './list-text-cache.js';
import { readWorkspaceFilter, readWorkspaceSort } from './list-query.js';
import { type Located } from './service.js';
import { WORKSPACE_INCLUDES } from './view.js';

type ById = { Params: { id: string } };

/** The `tag-bindings` relationship of a create or update body, if it was given. */
const bindingsRelationship = (relationships: Record<string, unknown>) =>
  relationships['tag-bindings'] === undefined || relationships['tag-bindings'] === null
    ? undefined
    : readTagBindings(relationships['tag-bindings'], '/data/relationships/tag-bindings/data');
type ByName = { Params: { org: string; name: string } };

/** Workspace create, list, show, update and delete, by id and by organization and name alike. */
export async function workspaceRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const service = context.services.workspaces;
  const byId = (request: FastifyRequest<ById>) => service.locate(request.principal, request.params.id);
  const byName = (request: FastifyRequest<ByName>) => service.locateByName(request.principal, request.params.org, request.params.name);

  const show = { params: params('id'), querystring: showQuery(WORKSPACE_INCLUDES) };
  const showByName = { params: params('org', 'name'), querystring: showQuery(WORKSPACE_INCLUDES) };

  app.post(
    '/organizations/:org/workspaces',
    { schema: { params: params('org'), querystring: showQuery(WORKSPACE_INCLUDES), body: WORKSPACE_BODY } },
    async (request, reply) => {
      const include = workspaceInclude(context, request);
      service.creatable(request.principal, request.params.org, namedProject(request.body));
      const input = readResource(request.body, ['workspaces']);
      const tagsRelationship = input.relationships['tags'];
      const tags =
        tagsRelationship === undefined ? [] : tagReferences(readIdentifierList(tagsRelationship, 'tags'), '/data/relationships/tags/data');
      const project = relationshipId(input.relationships, 'project', 'projects');
      const settings = readWorkspaceSettings(input.attributes, context.config.edition);
      const bindings = bindingsRelationship(input.relationships) ?? [];
      const located = service.create(request.principal, request.params.org, settings, tags, project, bindings);
      return sendDocument(reply, 201, workspaceDocument(context, request, located, include));
    },
  );

  const filters = ['search[name]', 'search[wildcard-name]', 'search[tags]', 'search[exclude-tags]', 'filter[project][id]', 'sort'] as const;
  const listSchema = listQuery({ includes: WORKSPACE_INCLUDES, filters });
  app.get('/organizations/:org/workspaces', { schema: { params: params('org'), querystring: listSchema } }, async (request, reply) => {
    const query = request.query;
    const include = workspaceInclude(context, request);
    const page = readPage(query);
    const { organization, scope, rows, total } = service.list(
      request.principal,
      request.params.org,
      readWorkspaceFilter(query),
      readWorkspaceSort(query),
      page,
    );
    const serialize = () => {
      const views = context.services.workspaceViews;
      const items = views.render(scope, organization, rows, renderOptions(context, request));
      const included = views.include(include, { principal: request.principal, organization, rows, origin: requestOrigin(request) });
      return JSON.stringify(listDocument(request, { items, total, page }, { included }));
    };
    // Included resources come from many more tables than the kept text watches: those pages are made each time.
    const text =
      include.size === 0 ? keptListText(context.store.db, listTextKey(context, request, organization.id, scope), serialize) : serialize();
    return sendSerializedDocument(reply, 200, text);
  });

  const render = async (request: FastifyRequest, located: Located) =>
    workspaceDocument(context, request, service.require(located), workspaceInclude(context, request), { levelCurrent: true });
  app.get<ById>('/workspaces/:id', { schema: show }, async (request, reply) =>
    sendDocument(reply, 200, await render(request, byId(request))),
  );
  app.get<ByName>('/organizations/:org/workspaces/:name', { schema: showByName }, async (request, reply) =>
    sendDocument(reply, 200, await render(request, byName(request))),
  );

  const update = (request: FastifyRequest, located: Located) => {
    const include = workspaceInclude(context, request);
    service.require(located, 'can-update');
    const input = readResource(request.body, ['workspaces']);
    const project = relationshipId(input.relationships, 'project', 'projects');
    const settings = readWorkspaceSettings(input.attributes, context.config.edition);
    const bindings = bindingsRelationship(input.relationships);
    return workspaceDocument(context, request, service.update(located, settings, project, bindings), include);
  };
  app.patch<ById>('/workspaces/:id', { schema: { ...show, body: WORKSPACE_BODY } }, async (request, reply) =>
    sendDocument(reply, 200, update(request, byId(request))),
  );
  app.patch<ByName>('/organizations/:org/workspaces/:name', { schema: { ...showByName, body: WORKSPACE_BODY } }, async (request, reply) =>
    sendDocument(reply, 200, update(request, byName(request))),
  );

  app.delete<ById>('/workspaces/:id', { schema: { params: params('id') } }, async (request, reply) => {
    service.destroy(byId(request));
    return sendNoContent(reply);
  });
  app.delete<ByName>('/organizations/:org/workspaces/:name', { schema: { params: params('org', 'name') } }, async (request, reply) => {
    service.destroy(byName(request));
    return sendNoContent(reply);
  });
}

/**
 * What decides a list document besides the tables it is read from: the organization, the caller's
 * standing there (the rows they may read and the permission flags each shows), the request's URL
 * (filters, sort, page and the pagination links) and origin, and the wire dialect and edition.
 */
function listTextKey(context: PlatformContext, request: FastifyRequest, organizationId: string, scope: CallerScope): string {
  return JSON.stringify([
    organizationId,
    scope.organizationLevel,
    scope.teamIds,
    [...scope.grants].sort(),
    request.protocol,
    request.host,
    request.url,
    context.config.dialect,
    context.config.edition,
  ]);
}

/** The project id a create body names, looked up without validating (the permission check runs before the body's). */
function namedProject(body: unknown): string | undefined {
  const data = (body as { data?: { relationships?: { project?: { data?: { id?: unknown } } } } } | undefined)?.data;
  const id = data?.relationships?.project?.data?.id;
  return typeof id === 'string' ? id : undefined;
}
