import { Type } from '@fastify/type-provider-typebox';
import type { PlatformApp, PlatformContext } from '../context.js';
import { Attributes, readResource, relationshipIds } from '../jsonapi/body.js';
import { listDocument, sendDocument, sendNoContent, singleDocument } from '../jsonapi/documents.js';
import { paginate, readPage } from '../jsonapi/pagination.js';
import { listQuery, params, resourceBody } from '../jsonapi/schemas.js';
import { readVariableInput } from '../variables/routes.js';
import type { VariableSetRow } from './precedence.js';
import { setVariableResource } from './resource.js';
import type { VariableSetInput } from './service.js';

const TYPES = ['varsets'];
const BODY = resourceBody(TYPES, { allowEmptyType: true, relationships: ['workspaces', 'projects', 'vars'] });
const RELATIONSHIP_BODY = Type.Object({ data: Type.Array(Type.Object({ type: Type.String(), id: Type.String() })) });
const VAR_BODY = resourceBody(['vars'], { allowEmptyType: true });
const bySetAndVar = Type.Object({ id: Type.String(), var: Type.String() });

function readSet(body: unknown): { input: VariableSetInput; members: { workspaces?: string[]; projects?: string[] } } {
  const resource = readResource(body, TYPES, { allowEmptyType: true });
  const attributes = new Attributes(resource.attributes);
  const input: VariableSetInput = {
    name: attributes.string('name') ?? undefined,
    description: attributes.string('description', { nullable: true }),
    global: attributes.boolean('global'),
    priority: attributes.boolean('priority'),
  };
  const relationships = resource.relationships ?? {};
  const workspaces = relationshipIds(relationships, 'workspaces', 'workspaces');
  const projects = relationshipIds(relationships, 'projects', 'projects');
  return { input, members: { ...(workspaces ? { workspaces } : {}), ...(projects ? { projects } : {}) } };
}

/** Variable sets: `/organizations/:org/varsets`, `/varsets/:id` and their relationships, `/workspaces/:id/varsets`. */
export async function variableSetRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const service = context.services.variableSets;
  const views = context.services.variableSetViews;
  const render = (sets: readonly VariableSetRow[]) => views.render(sets);
  const one = (set: VariableSetRow) => singleDocument(render([set])[0]!);

  app.get(
    '/organizations/:org/varsets',
    { schema: { params: params('org'), querystring: listQuery({ filters: ['q'] }) } },
    async (request, reply) => {
      const raw: Record<string, unknown> = request.query;
      const organization = service.organization(request.principal, request.params.org);
      const q = typeof raw['q'] === 'string' && raw['q'] !== '' ? raw['q'] : undefined;
      const { items, total, page } = paginate(service.list(organization, q), readPage(raw));
      return sendDocument(reply, 200, listDocument(request, { items: render(items), total, page }));
    },
  );

  app.post('/organizations/:org/varsets', { schema: { params: params('org'), body: BODY } }, async (request, reply) => {
    const { input, members } = readSet(request.body);
    return sendDocument(reply, 201, one(service.create(request.principal, request.params.org, input, members).set));
  });

  app.get('/varsets/:id', { schema: { params: params('id') } }, async (request, reply) => {
    return sendDocument(reply, 200, one(service.visible(request.principal, request.params.id).set));
  });

  app.patch('/varsets/:id', { schema: { params: params('id'), body: BODY } }, async (request, reply) => {
    const { input, members } = readSet(request.body);
    return sendDocument(reply, 200, one(service.update(request.principal, request.params.id, input, members).set));
  });

  app.delete('/varsets/:id', { schema: { params: params('id') } }, async (request, reply) => {
    service.destroy(request.principal, request.params.id);
    return sendNoContent(reply);
  });

  for (const kind of ['workspaces', 'projects'] as const) {
    for (const [method, remove] of [
      ['POST', false],
      ['DELETE', true],
    ] as const) {
      app.route({
        method,
        url: `/varsets/:id/relationships/${kind}`,
        schema: { params: params('id'), body: RELATIONSHIP_BODY },
        handler: async (request, reply) => {
          const ids = relationshipIds({ [kind]: request.body }, kind, kind) ?? [];
          service.relate(request.principal, request.params.id, kind, ids, remove);
          return sendNoContent(reply);
        },
      });
    }
  }

  app.get('/varsets/:id/relationships/vars', { schema: { params: params('id'), querystring: listQuery() } }, async (request, reply) => {
    const { set } = service.visible(request.principal, request.params.id);
    const variables = views.variables(set.id);
    const { items, total, page } = paginate(variables, readPage(request.query));
    return sendDocument(reply, 200, listDocument(request, { items: items.map(setVariableResource), total, page }));
  });

  app.post('/varsets/:id/relationships/vars', { schema: { params: params('id'), body: VAR_BODY } }, async (request, reply) => {
    const variable = service.createVariable(request.principal, request.params.id, readVariableInput(request.body));
    return sendDocument(reply, 201, singleDocument(setVariableResource(variable)));
  });

  app.get('/varsets/:id/relationships/vars/:var', { schema: { params: bySetAndVar } }, async (request, reply) => {
    return sendDocument(
      reply,
      200,
      singleDocument(setVariableResource(service.variable(request.principal, request.params.id, request.params.var))),
    );
  });

  app.patch('/varsets/:id/relationships/vars/:var', { schema: { params: bySetAndVar, body: VAR_BODY } }, async (request, reply) => {
    const variable = service.updateVariable(request.principal, request.params.id, request.params.var, readVariableInput(request.body));
    return sendDocument(reply, 200, singleDocument(setVariableResource(variable)));
  });

  app.delete('/varsets/:id/relationships/vars/:var', { schema: { params: bySetAndVar } }, async (request, reply) => {
    service.destroyVariable(request.principal, request.params.id, request.params.var);
    return sendNoContent(reply);
  });

  app.get('/workspaces/:id/varsets', { schema: { params: params('id'), querystring: listQuery() } }, async (request, reply) => {
    const { items, total, page } = paginate(service.forWorkspace(request.principal, request.params.id), readPage(request.query));
    return sendDocument(reply, 200, listDocument(request, { items: render(items), total, page }));
  });
}
