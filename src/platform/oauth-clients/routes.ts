import { unprocessable } from '../../core/errors.js';
import type { PlatformApp, PlatformContext } from '../context.js';
import { Attributes, readIdentifierList, readResource, relationshipId, relationshipIds, type ResourceInput } from '../jsonapi/body.js';
import { listDocument, requestOrigin, sendDocument, sendNoContent, singleDocument } from '../jsonapi/documents.js';
import { Included, readInclude } from '../jsonapi/include.js';
import { paginate, readPage } from '../jsonapi/pagination.js';
import { Attr, identifierListBody, listQuery, params, resourceBody, showQuery } from '../jsonapi/schemas.js';
import { clientResource, tokenResource } from './resource.js';
import type { LoadedClient } from './service.js';

const byOrganization = params('org');
const byId = params('id');
/** `projects` is accepted and named in the relationship; its resources are not included (see the README). */
const INCLUDES = ['oauth_tokens', 'projects'];
const WRITABLE = {
  name: Attr.string(),
  key: Attr.string('the OAuth consumer or application key'),
  secret: Attr.string('write-only; for Bitbucket Server and Data Center the private key of the application link'),
  'rsa-public-key': Attr.string('Bitbucket Server and Data Center: the public key of the application link, with secret'),
  'oauth-token-string': Attr.string('accepted and never stored: git locations here need no token'),
  'organization-scoped': Attr.boolean('available to every project (default true), or only to the attached ones'),
};
const CLIENT_BODY = resourceBody(['oauth-clients'], {
  attributes: {
    'service-provider': Attr.string('github, gitlab_hosted, bitbucket_data_center, ado_server, … (any git host is read the same way)'),
    'http-url': Attr.string('where repositories are cloned from'),
    'api-url': Attr.string('defaults to http-url'),
    'private-key': Attr.string('ado_server only; accepted and never stored'),
    ...WRITABLE,
  },
  relationships: ['projects', 'agent-pool'],
});
const TOKEN_BODY = resourceBody(['oauth-tokens'], {
  attributes: { 'ssh-key': Attr.string('a private SSH key (PEM or OpenSSH); write-only, shown as has-ssh-key') },
});
const UPDATE_BODY = resourceBody(['oauth-clients'], { attributes: WRITABLE, relationships: ['projects', 'agent-pool'] });

const missingId = (index: number): never => {
  throw unprocessable('each project needs an id', `/data/${index}/id`);
};

/** The attributes and relationships a create and an update share. */
function readShared(input: ResourceInput) {
  const attributes = new Attributes(input.attributes);
  // The token string and the private key are accepted (clients send them) but never stored.
  attributes.string('oauth-token-string');
  attributes.string('private-key');
  const projectIds = input.relationships['projects'] === null ? [] : relationshipIds(input.relationships, 'projects', 'projects');
  return {
    attributes,
    shared: {
      key: attributes.string('key', { nullable: true }),
      secret: attributes.string('secret', { nullable: true }),
      rsaPublicKey: attributes.string('rsa-public-key', { nullable: true }),
      organizationScoped: attributes.boolean('organization-scoped'),
      projectIds,
      agentPoolId: relationshipId(input.relationships, 'agent-pool', 'agent-pools'),
    },
  };
}

/** The endpoints real clients use to manage VCS connections (`oauth-clients`, `oauth-tokens`). */
export async function oauthClientRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const service = context.services.oauthClients;
  const included = (wanted: ReadonlySet<string>, clients: readonly LoadedClient[]) => {
    const into = new Included();
    if (wanted.has('oauth_tokens')) for (const loaded of clients) into.add(...loaded.tokens.map(tokenResource));
    return into;
  };

  app.post('/organizations/:org/oauth-clients', { schema: { params: byOrganization, body: CLIENT_BODY } }, async (request, reply) => {
    const input = readResource(request.body, ['oauth-clients']);
    const { attributes, shared } = readShared(input);
    const httpUrl = attributes.string('http-url', { required: true }) as string;
    const loaded = service.create(request.principal, request.params.org, {
      serviceProvider: attributes.string('service-provider', { required: true }) as string,
      name: attributes.string('name', { nullable: true }) ?? null,
      httpUrl,
      apiUrl: attributes.string('api-url') || httpUrl,
      ...shared,
    });
    return sendDocument(reply, 201, singleDocument(clientResource(loaded, requestOrigin(request))));
  });

  app.get(
    '/organizations/:org/oauth-clients',
    { schema: { params: byOrganization, querystring: listQuery({ includes: INCLUDES }) } },
    async (request, reply) => {
      const wanted = readInclude(request.query, INCLUDES);
      const { clients } = service.list(request.principal, request.params.org);
      const origin = requestOrigin(request);
      // Without page parameters the real endpoint is not paginated: every connection, no pagination meta.
      const paged = request.query['page[number]'] !== undefined || request.query['page[size]'] !== undefined;
      if (!paged) {
        const extra = included(wanted, clients).toArray();
        return sendDocument(reply, 200, {
          data: clients.map((loaded) => clientResource(loaded, origin)),
          ...(extra ? { included: extra } : {}),
        });
      }
      const page = paginate(clients, readPage(request.query));
      const items = page.items.map((loaded) => clientResource(loaded, origin));
      return sendDocument(reply, 200, listDocument(request, { ...page, items }, { included: included(wanted, page.items) }));
    },
  );

  app.get('/oauth-clients/:id', { schema: { params: byId, querystring: showQuery(INCLUDES) } }, async (request, reply) => {
    const wanted = readInclude(request.query, INCLUDES);
    const loaded = service.client(request.principal, request.params.id);
    return sendDocument(reply, 200, singleDocument(clientResource(loaded, requestOrigin(request)), included(wanted, [loaded])));
  });

  app.patch('/oauth-clients/:id', { schema: { params: byId, body: UPDATE_BODY } }, async (request, reply) => {
    const input = readResource(request.body, ['oauth-clients']);
    const { attributes, shared } = readShared(input);
    const loaded = service.update(request.principal, request.params.id, {
      // A null name clears it (the UI then shows the provider's name); an absent one stays.
      ...(attributes.has('name') ? { name: attributes.string('name', { nullable: true }) ?? null } : {}),
      ...shared,
    });
    return sendDocument(reply, 200, singleDocument(clientResource(loaded, requestOrigin(request))));
  });

  app.delete('/oauth-clients/:id', { schema: { params: byId } }, async (request, reply) => {
    service.destroy(request.principal, request.params.id);
    return sendNoContent(reply);
  });

  const projectsPath = '/oauth-clients/:id/relationships/projects';
  const projectIds = (body: unknown) => readIdentifierList(body, 'projects').map((entry, index) => entry.id ?? missingId(index));
  app.post(projectsPath, { schema: { params: byId, body: identifierListBody('projects') } }, async (request, reply) => {
    service.addProjects(request.principal, request.params.id, projectIds(request.body));
    return sendNoContent(reply);
  });
  app.delete(projectsPath, { schema: { params: byId, body: identifierListBody('projects') } }, async (request, reply) => {
    service.removeProjects(request.principal, request.params.id, projectIds(request.body));
    return sendNoContent(reply);
  });

  app.get('/oauth-tokens/:id', { schema: { params: byId } }, async (request, reply) => {
    return sendDocument(reply, 200, singleDocument(tokenResource(service.token(request.principal, request.params.id).token)));
  });

  app.get('/organizations/:org/oauth-tokens', { schema: { params: byOrganization, querystring: listQuery() } }, async (request, reply) => {
    const tokens = service.organizationTokens(request.principal, request.params.org);
    if (request.query['page[number]'] === undefined && request.query['page[size]'] === undefined) {
      return sendDocument(reply, 200, { data: tokens.map(tokenResource) });
    }
    const page = paginate(tokens, readPage(request.query));
    return sendDocument(reply, 200, listDocument(request, { ...page, items: page.items.map(tokenResource) }));
  });

  // The body is a private key: the request journal keeps none of it.
  app.patch('/oauth-tokens/:id', { config: { secretBodies: true }, schema: { params: byId, body: TOKEN_BODY } }, async (request, reply) => {
    const attributes = new Attributes(readResource(request.body, ['oauth-tokens']).attributes);
    const token = service.updateToken(request.principal, request.params.id, attributes.string('ssh-key', { nullable: true }));
    return sendDocument(reply, 200, singleDocument(tokenResource(token)));
  });

  app.delete('/oauth-tokens/:id', { schema: { params: byId } }, async (request, reply) => {
    service.destroyToken(request.principal, request.params.id);
    return sendNoContent(reply);
  });
}
