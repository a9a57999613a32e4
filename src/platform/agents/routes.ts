import { Type } from '@fastify/type-provider-typebox';
import { badRequest } from '../../core/errors.js';
import type { PlatformApp, PlatformContext } from '../context.js';
import { Attributes, readResource } from '../jsonapi/body.js';
import { listDocument, sendDocument, singleDocument } from '../jsonapi/documents.js';
import { readPage } from '../jsonapi/pagination.js';
import { Attr, listQuery, params, resourceBody } from '../jsonapi/schemas.js';
import { agentResource, agentTokenResource } from './resource.js';

// go-tfe's AgentTokenCreateOptions is typed `agent-tokens`; the resource answered is `authentication-tokens`.
const TOKEN_BODY = resourceBody(['agent-tokens', 'authentication-tokens'], { attributes: { description: Attr.string() } });
const AGENTS_QUERY = Type.Object({
  ...listQuery().properties,
  'filter[last-ping-since]': Type.Optional(Type.String({ description: 'ISO 8601 time' })),
  sort: Type.Optional(Type.String()),
});

/** Agent tokens of a pool and the agents registered with them (`/api/v2`). */
export async function agentRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const service = context.services.agents;

  app.post('/agent-pools/:id/authentication-tokens', { schema: { params: params('id'), body: TOKEN_BODY } }, async (request, reply) => {
    const attributes = new Attributes(readResource(request.body, ['agent-tokens', 'authentication-tokens']).attributes);
    const { row, secret } = service.createToken(request.principal, request.params.id, attributes.string('description'));
    return sendDocument(reply, 201, singleDocument(agentTokenResource(row, secret)));
  });

  app.get(
    '/agent-pools/:id/authentication-tokens',
    { schema: { params: params('id'), querystring: listQuery() } },
    async (request, reply) => {
      const page = readPage(request.query);
      const { rows, total } = service.listTokens(request.principal, request.params.id, page.offset, page.size);
      return sendDocument(reply, 200, listDocument(request, { items: rows.map((row) => agentTokenResource(row)), total, page }));
    },
  );

  app.get('/agent-pools/:id/agents', { schema: { params: params('id'), querystring: AGENTS_QUERY } }, async (request, reply) => {
    const page = readPage(request.query);
    const sinceText = request.query['filter[last-ping-since]'];
    const since = sinceText ? new Date(sinceText) : undefined;
    if (since && Number.isNaN(since.getTime())) {
      throw badRequest('filter[last-ping-since] must be an ISO 8601 time', { title: 'bad request', parameter: 'filter[last-ping-since]' });
    }
    const { rows, total } = service.listAgents(request.principal, request.params.id, since, page.offset, page.size);
    return sendDocument(reply, 200, listDocument(request, { items: rows.map(agentResource), total, page }));
  });

  app.get('/agents/:id', { schema: { params: params('id') } }, async (request, reply) => {
    return sendDocument(reply, 200, singleDocument(agentResource(service.getAgent(request.principal, request.params.id))));
  });
}
