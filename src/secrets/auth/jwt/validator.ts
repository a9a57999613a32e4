import type { KeySet } from './key-sets.js';

/**
 * The real method's token validator: the signature first (so every later check reads verified
 * claims), then the algorithm, issuer, subject and audience, then the times on the server's
 * clock. Error texts are the validator's; the login prefixes them with `error validating token: `.
 */

export interface Expected {
  issuer: string;
  subject: string;
  audiences: readonly string[];
  algorithms: readonly string[];
  /** Seconds; 0 means the default, a negative value none (see `leeway`). */
  notBeforeLeeway: number;
  expirationLeeway: number;
  clockSkewLeeway: number;
  nowMs: number;
}

export class ValidationError extends Error {}

/** 150 s fill in a missing `exp` or `nbf`; 60 s of clock skew apply to the present times. */
const DEFAULT_LEEWAY_SECONDS = 150;
const DEFAULT_CLOCK_SKEW_SECONDS = 60;

const leeway = (seconds: number, fallback: number) => (seconds < 0 ? 0 : seconds === 0 ? fallback : seconds);

const GO_TYPE = (value: unknown) =>
  Array.isArray(value) ? 'array' : value === true || value === false ? 'bool' : typeof value === 'object' ? 'object' : typeof value;

function stringClaim(claims: Record<string, unknown>, name: string): string {
  const value = claims[name];
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string')
    throw new ValidationError(`json: cannot unmarshal ${GO_TYPE(value)} into Go struct field Claims.${name} of type string`);
  return value;
}

function audienceClaim(claims: Record<string, unknown>): string[] {
  const value = claims['aud'];
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value;
  throw new ValidationError('go-jose/go-jose/jwt: expected string or array value to unmarshal to Audience');
}

/** Seconds since the epoch; 0 when absent, as the real validator treats a missing time. */
function dateClaim(claims: Record<string, unknown>, name: string): number {
  const value = claims[name];
  if (value === undefined || value === null) return 0;
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw new ValidationError('go-jose/go-jose/jwt: expected number value to unmarshal NumericDate');
  return Math.trunc(value);
}

export async function validateToken(keySet: KeySet, token: string, expected: Expected): Promise<Record<string, unknown>> {
  let claims: Record<string, unknown>;
  try {
    claims = await keySet.verifySignature(token);
  } catch (error) {
    throw new ValidationError(`error verifying token signature: ${(error as Error).message}`);
  }
  const alg = (JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString('utf8')) as { alg?: unknown }).alg;
  if (!expected.algorithms.includes(String(alg))) {
    throw new ValidationError('invalid algorithm (alg) header parameter: token signed with unexpected algorithm');
  }
  const issuer = stringClaim(claims, 'iss');
  const subject = stringClaim(claims, 'sub');
  stringClaim(claims, 'jti');
  const audience = audienceClaim(claims);
  const issuedAt = dateClaim(claims, 'iat');
  let expiry = dateClaim(claims, 'exp');
  let notBefore = dateClaim(claims, 'nbf');
  if (expected.issuer !== '' && expected.issuer !== issuer) throw new ValidationError('invalid issuer (iss) claim');
  if (expected.subject !== '' && expected.subject !== subject) throw new ValidationError('invalid subject (sub) claim');
  if (expected.audiences.length > 0 && !expected.audiences.some((want) => audience.includes(want))) {
    throw new ValidationError('invalid audience (aud) claim: audience claim does not match any expected audience');
  }
  if (issuedAt === 0 && expiry === 0 && notBefore === 0) {
    throw new ValidationError('no issued at (iat), not before (nbf), or expiration time (exp) claims in token');
  }
  // The leeways for a missing `exp` or `nbf` only make one up; present times use the clock skew.
  if (expiry === 0) expiry = Math.max(issuedAt, notBefore) + leeway(expected.expirationLeeway, DEFAULT_LEEWAY_SECONDS);
  if (notBefore === 0) notBefore = issuedAt !== 0 ? issuedAt : expiry - leeway(expected.notBeforeLeeway, DEFAULT_LEEWAY_SECONDS);
  const skewMs = leeway(expected.clockSkewLeeway, DEFAULT_CLOCK_SKEW_SECONDS) * 1000;
  const now = expected.nowMs;
  if (now + skewMs < notBefore * 1000) throw new ValidationError('invalid not before (nbf) claim: token not yet valid');
  if (now - skewMs > expiry * 1000) throw new ValidationError('invalid expiration time (exp) claim: token is expired');
  if (issuedAt !== 0 && now + skewMs < issuedAt * 1000)
    throw new ValidationError('invalid issued at (iat) claim: token issued in the future');
  return claims;
}
