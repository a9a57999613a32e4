import { createHash } from 'node:crypto';
import type { ResourceObject } from '../jsonapi/types.js';
import type { OAuthTokenRow } from './repo.js';
import { SERVICE_PROVIDERS, type LoadedClient } from './service.js';

/** A stable UUID-shaped name for a connection's OAuth callback, derived from its id. */
function callbackName(id: string): string {
  const hex = createHash('sha256').update(`oauth-callback:${id}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * A connection on the wire. `secret`, `private-key` and `oauth-token-string` are write-only: never
 * stored, never returned. `origin` is `scheme://host` of the request, for `callback-url`.
 */
export function clientResource({ client, tokens, projectIds, organization }: LoadedClient, origin: string): ResourceObject {
  const callback = callbackName(client.id);
  const organizationPath = `/api/v2/organizations/${encodeURIComponent(organization.name)}`;
  return {
    id: client.id,
    type: 'oauth-clients',
    attributes: {
      'created-at': client.createdAt.toISOString(),
      'callback-url': `${origin}/auth/${callback}/callback`,
      'connect-path': `/auth/${callback}?organization_id=${encodeURIComponent(organization.id)}`,
      'service-provider': client.serviceProvider,
      'service-provider-display-name': SERVICE_PROVIDERS[client.serviceProvider] ?? client.serviceProvider,
      name: client.name,
      'http-url': client.httpUrl,
      'api-url': client.apiUrl,
      key: client.key,
      'rsa-public-key': client.rsaPublicKey,
      'organization-scoped': client.organizationScoped,
    },
    relationships: {
      organization: { data: { id: organization.name, type: 'organizations' }, links: { related: organizationPath } },
      projects: { data: projectIds.map((id) => ({ id, type: 'projects' })) },
      'oauth-tokens': { data: tokens.map((token) => ({ id: token.id, type: 'oauth-tokens' })) },
      'agent-pool': client.agentPoolId
        ? { data: { id: client.agentPoolId, type: 'agent-pools' }, links: { related: `/api/v2/agent-pools/${client.agentPoolId}` } }
        : { data: null },
    },
  };
}

/** The token string itself is accepted on create and never returned; nor is an SSH key. */
export function tokenResource(token: OAuthTokenRow): ResourceObject {
  return {
    id: token.id,
    type: 'oauth-tokens',
    // No `uid`: go-tfe's list test compares tokens with the ids the connection's create answer names.
    attributes: { 'has-ssh-key': token.hasSshKey, 'service-provider-user': null, 'created-at': token.createdAt.toISOString() },
    relationships: { 'oauth-client': { data: { id: token.oauthClientId, type: 'oauth-clients' } } },
  };
}
