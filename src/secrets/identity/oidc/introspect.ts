import { MalformedJwsError, keyFromJwk, parseCompactJws, verifyJws } from '../../auth/jwt/jws.js';
import type { IdentityStore } from '../identity-store.js';
import type { OidcProvider } from './provider.js';

/** The claim checks' leeway of the real service's JOSE library (one minute). */
const LEEWAY_SECONDS = 60;
const CLAIMS_PREFIX = 'error validating claims: go-jose/go-jose/jwt: validation failed, ';

/**
 * The introspection answer: `{active: true}`, or `{active: false, error}` with the reason: a token
 * that does not parse, a signature no published key verifies, a wrong issuer or audience, an
 * expired token, an entity that is gone or disabled.
 */
export function introspect(
  oidc: OidcProvider,
  identity: IdentityStore,
  token: string,
  clientId: string,
  origin: string | undefined,
): { active: boolean; error?: string } {
  const inactive = (error: string) => ({ active: false, error });
  let jws;
  try {
    jws = parseCompactJws(token);
  } catch (error) {
    if (error instanceof MalformedJwsError) return inactive(`error parsing token: ${error.message}`);
    throw error;
  }
  const verified = oidc.publishedKeys().some((jwk) => {
    try {
      return verifyJws(jws, keyFromJwk(jwk));
    } catch {
      return false;
    }
  });
  if (!verified) return inactive('unable to validate the token signature');
  let claims: Record<string, unknown>;
  try {
    claims = JSON.parse(jws.payload.toString('utf8')) as Record<string, unknown>;
  } catch {
    return inactive('unable to validate the token signature');
  }
  const now = Math.floor(oidc.clock.nowMs() / 1000);
  if (claims['iss'] !== oidc.issuer(origin)) return inactive(`${CLAIMS_PREFIX}invalid issuer claim (iss)`);
  const audiences = Array.isArray(claims['aud']) ? claims['aud'] : [claims['aud']];
  if (clientId !== '' && !audiences.includes(clientId)) return inactive(`${CLAIMS_PREFIX}invalid audience claim (aud)`);
  if (typeof claims['exp'] === 'number' && now > claims['exp'] + LEEWAY_SECONDS) return inactive(`${CLAIMS_PREFIX}token is expired (exp)`);
  if (typeof claims['iat'] === 'number' && now < claims['iat'] - LEEWAY_SECONDS) {
    return inactive(`${CLAIMS_PREFIX}token issued in the future (iat)`);
  }
  const entity = typeof claims['sub'] === 'string' ? identity.state().entity(claims['sub']) : undefined;
  if (!entity) return inactive('entity was not found');
  if (entity.disabled) return inactive('entity is disabled');
  return { active: true };
}
