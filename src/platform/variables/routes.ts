import type { FastifyRequest } from 'fastify';
import { badRequest, unprocessable } from '../../core/errors.js';
import type { Principal } from '../auth/principal.js';
import type { PlatformApp, PlatformContext } from '../context.js';
import { Attributes, readResource, relationshipId } from '../jsonapi/body.js';
import { listDocument, sendDocument, sendNoContent, singleDocument } from '../jsonapi/documents.js';
import { readPage } from '../jsonapi/pagination.js';
import { queryList } from '../jsonapi/query.js';
import { Attr, listQuery, params, resourceBody } from '../jsonapi/schemas.js';
import type { Located } from '../workspaces/service.js';
import type { VariableCategory } from './repo.js';
import { variableResource } from './resource.js';
import { type VariableInput } from './service.js';

const VARIABLE_BODY = resourceBody(['vars'], {
  attributes: {
    key: Attr.string(),
    value: Attr.string('write-only once sensitive'),
    description: Attr.string(),
    category: Attr.string('terraform or env'),
    hcl: Attr.boolean('terraform variables only'),
    sensitive: Attr.boolean('cannot be unset once true'),
  },
  relationships: ['workspace', 'configurable'],
});
const CATEGORIES: readonly VariableCategory[] = ['terraform', 'env'];
const FILTERS = ['filter[organization][name]', 'filter[workspace][name]'] as const;

export function readVariableInput(body: unknown): VariableInput {
  const attributes = new Attributes(readResource(body, ['vars']).attributes);
  const category = attributes.string('category') ?? undefined;
  if (category !== undefined && !CATEGORIES.includes(category as VariableCategory)) {
    throw unprocessable('category must be "terraform" or "env"', '/data/attributes/category');
  }
  const input: VariableInput = {
    key: attributes.string('key') ?? undefined,
    value: attributes.string('value') ?? undefined,
    description: attributes.string('description', { nullable: true }),
    category: category as VariableCategory | undefined,
    hcl: attributes.boolean('hcl'),
    sensitive: attributes.boolean('sensitive'),
  };
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
}

type ByWorkspace = { Params: { id: string } };
type ByVariable = { Params: { id: string; var: string } };

/** Workspace variables under `/workspaces/:id/vars`, and the older `/vars` paths real clients still call. */
export async function variableRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const service = context.services.variables;
  const byId = (request: FastifyRequest<ByWorkspace>) => service.workspaces.locate(request.principal, request.params.id);

  const list = (request: FastifyRequest, located: Located) => {
    const page = readPage(request.query as Record<string, unknown>);
    const { rows, total } = service.list(located, page.offset, page.size);
    return listDocument(request, { items: rows.map(variableResource), total, page });
  };
  /** The workspace the legacy list and create name with `filter[organization][name]` and `filter[workspace][name]`. */
  const byFilter = (principal: Principal, filters: { organization?: string | undefined; workspace?: string | undefined }) => {
    if (!filters.organization) {
      throw badRequest('filter[organization][name] is required', { title: 'bad request', parameter: 'filter[organization][name]' });
    }
    if (!filters.workspace) {
      throw badRequest('filter[workspace][name] is required', { title: 'bad request', parameter: 'filter[workspace][name]' });
    }
    return service.workspaces.locateByName(principal, filters.organization, filters.workspace);
  };

  app.get<ByWorkspace>('/workspaces/:id/vars', { schema: { params: params('id'), querystring: listQuery() } }, async (request, reply) =>
    sendDocument(reply, 200, list(request, byId(request))),
  );
  app.post<ByWorkspace>('/workspaces/:id/vars', { schema: { params: params('id'), body: VARIABLE_BODY } }, async (request, reply) => {
    const located = byId(request);
    return sendDocument(reply, 201, singleDocument(variableResource(service.create(located, readVariableInput(request.body)))));
  });
  app.get<ByVariable>('/workspaces/:id/vars/:var', { schema: { params: params('id', 'var') } }, async (request, reply) =>
    sendDocument(reply, 200, singleDocument(variableResource(service.find(byId(request), request.params.var)))),
  );
  app.patch<ByVariable>(
    '/workspaces/:id/vars/:var',
    { schema: { params: params('id', 'var'), body: VARIABLE_BODY } },
    async (request, reply) => {
      const located = byId(request);
      return sendDocument(
        reply,
        200,
        singleDocument(variableResource(service.update(located, request.params.var, readVariableInput(request.body)))),
      );
    },
  );
  app.delete<ByVariable>('/workspaces/:id/vars/:var', { schema: { params: params('id', 'var') } }, async (request, reply) => {
    service.destroy(byId(request), request.params.var);
    return sendNoContent(reply);
  });

  app.get('/vars', { schema: { querystring: listQuery({ filters: FILTERS }) } }, async (request, reply) => {
    const [organization] = queryList(request.query, 'filter[organization][name]');
    const [workspace] = queryList(request.query, 'filter[workspace][name]');
    return sendDocument(reply, 200, list(request, byFilter(request.principal, { organization, workspace })));
  });
  // The older create names the workspace in a top-level `filter` member of the body, or by relationship.
  app.post('/vars', { schema: { body: VARIABLE_BODY } }, async (request, reply) => {
    const body = request.body as { filter?: { organization?: { name?: unknown }; workspace?: { name?: unknown } } };
    const input = readResource(request.body, ['vars']);
    const workspaceId =
      relationshipId(input.relationships, 'workspace', 'workspaces') ?? relationshipId(input.relationships, 'configurable', 'workspaces');
    const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
    const located = workspaceId
      ? service.workspaces.locate(request.principal, workspaceId)
      : byFilter(request.principal, { organization: text(body.filter?.organization?.name), workspace: text(body.filter?.workspace?.name) });
    return sendDocument(reply, 201, singleDocument(variableResource(service.create(located, readVariableInput(request.body)))));
  });
  app.patch('/vars/:id', { schema: { params: params('id'), body: VARIABLE_BODY } }, async (request, reply) => {
    const located = service.locateVariable(request.principal, request.params.id);
    return sendDocument(
      reply,
      200,
      singleDocument(variableResource(service.update(located, request.params.id, readVariableInput(request.body)))),
    );
  });
  app.delete('/vars/:id', { schema: { params: params('id') } }, async (request, reply) => {
    service.destroy(service.locateVariable(request.principal, request.params.id), request.params.id);
    return sendNoContent(reply);
  });
}
