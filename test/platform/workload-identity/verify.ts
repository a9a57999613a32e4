import { createPublicKey, verify } from 'node:crypto';

interface Jwk {
  kid: string;
  kty: string;
  n: string;
  e: string;
}

export interface Decoded {
  header: { typ: string; alg: string; kid: string };
  claims: Record<string, unknown>;
}

/** The header and claims of a compact JWS, unverified. */
export function decode(token: string): Decoded {
  const [header, claims] = token.split('.');
  const json = (part: string | undefined) => JSON.parse(Buffer.from(part ?? '', 'base64url').toString('utf8'));
  return { header: json(header), claims: json(claims) };
}

/**
 * Verifies `token` as an OIDC verifier does, independently of the server's code: fetch the
 * discovery document from `issuer`, then its `jwks_uri`, pick the key whose `kid` the header
 * names, check the RS256 signature with node:crypto and that `iss` is the issuer byte for byte.
 * Returns the claims, or throws saying what failed.
 */
export async function verifyAgainstIssuer(token: string, issuer: string): Promise<Record<string, unknown>> {
  const discovery = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as { issuer: string; jwks_uri: string };
  if (discovery.issuer !== issuer) throw new Error(`issuer did not match: ${discovery.issuer}`);
  const { keys } = (await (await fetch(discovery.jwks_uri)).json()) as { keys: Jwk[] };
  const { header, claims } = decode(token);
  if (header.alg !== 'RS256') throw new Error(`unexpected alg ${header.alg}`);
  const jwk = keys.find((key) => key.kid === header.kid);
  if (!jwk) throw new Error('no key with the token kid');
  const [head, body, signature] = token.split('.');
  const publicKey = createPublicKey({ key: { kty: jwk.kty, n: jwk.n, e: jwk.e }, format: 'jwk' });
  if (!verify('sha256', Buffer.from(`${head}.${body}`), publicKey, Buffer.from(signature ?? '', 'base64url')))
    throw new Error('signature does not verify');
  if (claims.iss !== issuer) throw new Error(`iss ${String(claims.iss)} is not the issuer`);
  return claims;
}
