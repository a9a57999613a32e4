import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { PlatformContext } from '../context.js';
import { Attributes, readResource } from '../jsonapi/body.js';
import { sendDocument, singleDocument } from '../jsonapi/documents.js';
import { clientResource, tokenResource } from './resource.js';
import { OAuthClientService } from './service.js';

const OrgParams = Type.Object({ org: Type.String({ minLength: 1 }) });
const IdParams = Type.Object({ id: Type.String({ minLength: 1 }) });

/** The endpoints real clients use to create and read VCS connections (`oauth-clients`, `oauth-tokens`). */
export async function oauthClientRoutes(app: FastifyInstance, context: PlatformContext): Promise<void> {
  const service = new OAuthClientService(context.store.db, context.clock);

  app.post<{ Params: Static<typeof OrgParams> }>(
    '/organizations/:org/oauth-clients',
    { schema: { params: OrgParams } },
    async (request, reply) => {
      const attributes = new Attributes(readResource(request.body, ['oauth-clients']).attributes);
      const httpUrl = attributes.string('http-url', { required: true }) as string;
      // The token string is accepted (clients send it) but git locations here need none; never stored.
      attributes.string('oauth-token-string');
      const { client, tokens, organization } = service.create(request.principal, request.params.org, {
        serviceProvider: attributes.string('service-provider', { required: true }) as string,
        name: attributes.string('name', { nullable: true }) ?? null,
        httpUrl,
        apiUrl: attributes.string('api-url') ?? httpUrl,
      });
      return sendDocument(reply, 201, singleDocument(clientResource(client, tokens, organization.name)));
    },
  );

  app.get<{ Params: Static<typeof OrgParams> }>(
    '/organizations/:org/oauth-clients',
    { schema: { params: OrgParams } },
    async (request, reply) => {
      const { organization, clients } = service.list(request.principal, request.params.org);
      const data = clients.map(({ client, tokens }) => clientResource(client, tokens, organization.name));
      return sendDocument(reply, 200, { data });
    },
  );

  app.get<{ Params: Static<typeof IdParams> }>('/oauth-clients/:id', { schema: { params: IdParams } }, async (request, reply) => {
    const { client, tokens, organization } = service.client(request.principal, request.params.id);
    return sendDocument(reply, 200, singleDocument(clientResource(client, tokens, organization.name)));
  });

  app.get<{ Params: Static<typeof IdParams> }>('/oauth-tokens/:id', { schema: { params: IdParams } }, async (request, reply) => {
    return sendDocument(reply, 200, singleDocument(tokenResource(service.token(request.principal, request.params.id).token)));
  });
}
