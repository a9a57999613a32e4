import type { PlatformApp, PlatformContext } from '../context.js';
import { Attributes, readResource } from '../jsonapi/body.js';
import { sendDocument, singleDocument } from '../jsonapi/documents.js';
import { Attr, params, resourceBody } from '../jsonapi/schemas.js';
import { clientResource, tokenResource } from './resource.js';

const byOrganization = params('org');
const byId = params('id');
const CLIENT_BODY = resourceBody(['oauth-clients'], {
  attributes: {
    'service-provider': Attr.string('github, gitlab_hosted, bitbucket_server, … (any git host is read the same way)'),
    name: Attr.string(),
    'http-url': Attr.string('where repositories are cloned from'),
    'api-url': Attr.string('defaults to http-url'),
    'oauth-token-string': Attr.string('accepted and never stored: git locations here need no token'),
  },
});

/** The endpoints real clients use to create and read VCS connections (`oauth-clients`, `oauth-tokens`). */
export async function oauthClientRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const service = context.services.oauthClients;

  app.post('/organizations/:org/oauth-clients', { schema: { params: byOrganization, body: CLIENT_BODY } }, async (request, reply) => {
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
  });

  app.get('/organizations/:org/oauth-clients', { schema: { params: byOrganization } }, async (request, reply) => {
    const { organization, clients } = service.list(request.principal, request.params.org);
    const data = clients.map(({ client, tokens }) => clientResource(client, tokens, organization.name));
    return sendDocument(reply, 200, { data });
  });

  app.get('/oauth-clients/:id', { schema: { params: byId } }, async (request, reply) => {
    const { client, tokens, organization } = service.client(request.principal, request.params.id);
    return sendDocument(reply, 200, singleDocument(clientResource(client, tokens, organization.name)));
  });

  app.get('/oauth-tokens/:id', { schema: { params: byId } }, async (request, reply) => {
    return sendDocument(reply, 200, singleDocument(tokenResource(service.token(request.principal, request.params.id).token)));
  });
}
