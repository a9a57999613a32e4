import type { FastifyInstance } from 'fastify';
import type { PlatformContext } from '../context.js';
import { jwksDocument } from './signing-keys.js';

/** The claims a workload identity token carries (workload-identity/claims.ts), as the hosted platform lists them. */
const CLAIMS_SUPPORTED = [
  'sub',
  'aud',
  'exp',
  'iat',
  'iss',
  'jti',
  'nbf',
  'ref',
  'terraform_run_phase',
  'terraform_workspace_id',
  'terraform_workspace_name',
  'terraform_organization_id',
  'terraform_organization_name',
  'terraform_project_id',
  'terraform_project_name',
  'terraform_run_id',
  'terraform_full_workspace',
];

/**
 * `/.well-known/jwks` and `/.well-known/openid-configuration`: the public half of the signing keys
 * for dynamic provider credentials, where a cloud's identity federation looks for them. Both
 * editions publish them; neither needs a token.
 */
export async function signingKeyDiscoveryRoutes(app: FastifyInstance, runtime: PlatformContext): Promise<void> {
  const keys = runtime.services.signingKeys;

  app.get('/.well-known/jwks', async (_request, reply) =>
    reply.header('cache-control', 'no-store').send(jwksDocument(await keys.published())),
  );

  // The issuer is one configured string, not the request's origin: verifiers compare it byte for
  // byte with the URL they were given and with each token's `iss`, and 127.0.0.1 is not localhost.
  app.get('/.well-known/openid-configuration', async (_request, reply) => {
    const issuer = runtime.publicUrl();
    return reply.header('cache-control', 'no-store').send({
      issuer,
      jwks_uri: `${issuer}/.well-known/jwks`,
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      scopes_supported: ['openid'],
      claims_supported: CLAIMS_SUPPORTED,
    });
  });
}
