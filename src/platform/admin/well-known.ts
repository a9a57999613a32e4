import type { FastifyInstance } from 'fastify';
import type { Runtime } from '../../runtime.js';
import { requestUrl } from '../jsonapi/documents.js';
import { jwksDocument, signingKeysOf } from './signing-keys.js';

/**
 * `/.well-known/jwks` and `/.well-known/openid-configuration`: the public half of the signing keys
 * for dynamic provider credentials, where a cloud's identity federation looks for them. Both
 * editions publish them; neither needs a token.
 */
export async function signingKeyDiscoveryRoutes(app: FastifyInstance, runtime: Runtime): Promise<void> {
  const keys = signingKeysOf(runtime);

  app.get('/.well-known/jwks', async (_request, reply) =>
    reply.header('cache-control', 'no-store').send(jwksDocument(await keys.published())),
  );

  app.get('/.well-known/openid-configuration', async (request, reply) => {
    const issuer = requestUrl(request).origin;
    return reply.header('cache-control', 'no-store').send({
      issuer,
      jwks_uri: `${issuer}/.well-known/jwks`,
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      scopes_supported: ['openid'],
      claims_supported: ['sub', 'aud', 'exp', 'iat', 'iss', 'jti', 'nbf'],
    });
  });
}
