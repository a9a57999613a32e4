import type { ResourceObject } from '../jsonapi/types.js';
import type { OAuthClientRow, OAuthTokenRow } from './repo.js';

export function clientResource(client: OAuthClientRow, tokens: OAuthTokenRow[], organizationName: string): ResourceObject {
  return {
    id: client.id,
    type: 'oauth-clients',
    attributes: {
      name: client.name,
      'service-provider': client.serviceProvider,
      'http-url': client.httpUrl,
      'api-url': client.apiUrl,
      'created-at': client.createdAt.toISOString(),
    },
    relationships: {
      organization: { data: { id: organizationName, type: 'organizations' } },
      'oauth-tokens': { data: tokens.map((token) => ({ id: token.id, type: 'oauth-tokens' })) },
    },
  };
}

/** The token string itself is accepted on create and never returned. */
export function tokenResource(token: OAuthTokenRow): ResourceObject {
  return {
    id: token.id,
    type: 'oauth-tokens',
    attributes: { 'has-ssh-key': false, 'created-at': token.createdAt.toISOString() },
    relationships: { 'oauth-client': { data: { id: token.oauthClientId, type: 'oauth-clients' } } },
  };
}
