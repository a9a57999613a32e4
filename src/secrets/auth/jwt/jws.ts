import { constants, createPublicKey, verify, type KeyObject } from 'node:crypto';

/** The signing algorithms the real method knows (its validator's list); anything else is refused. */
export const SUPPORTED_ALGS = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512', 'EdDSA'] as const;
export type Alg = (typeof SUPPORTED_ALGS)[number];

export const isSupportedAlg = (alg: unknown): alg is Alg => typeof alg === 'string' && (SUPPORTED_ALGS as readonly string[]).includes(alg);

/** A compact JWS taken apart; the signature is checked by `verifyJws`, never here. */
export interface ParsedJws {
  header: Record<string, unknown>;
  alg: string;
  kid: string;
  signingInput: Buffer;
  signature: Buffer;
  payload: Buffer;
}

/** Malformed input, with the wording of the real method's JOSE library. */
export class MalformedJwsError extends Error {}

const B64URL = /^[A-Za-z0-9_-]*={0,2}$/;

function decodePart(part: string, what: string): Buffer {
  if (!B64URL.test(part)) throw new MalformedJwsError(`illegal base64 data in ${what}`);
  return Buffer.from(part, 'base64url');
}

export function parseCompactJws(token: string): ParsedJws {
  const parts = token.split('.');
  if (parts.length !== 3) throw new MalformedJwsError('go-jose/go-jose: compact JWS format must have three parts');
  const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
  let header: unknown;
  try {
    header = JSON.parse(decodePart(headerPart, 'protected header').toString('utf8'));
  } catch (error) {
    throw new MalformedJwsError(error instanceof MalformedJwsError ? error.message : 'invalid character in protected header');
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header)) {
    throw new MalformedJwsError('json: cannot unmarshal protected header into a JSON object');
  }
  const record = header as Record<string, unknown>;
  const alg = typeof record['alg'] === 'string' ? record['alg'] : '';
  if (!isSupportedAlg(alg)) {
    const expected = SUPPORTED_ALGS.map((known) => JSON.stringify(known)).join(' ');
    throw new MalformedJwsError(`go-jose/go-jose: unexpected signature algorithm ${JSON.stringify(alg)}; expected [${expected}]`);
  }
  return {
    header: record,
    alg,
    kid: typeof record['kid'] === 'string' ? record['kid'] : '',
    signingInput: Buffer.from(`${headerPart}.${payloadPart}`, 'ascii'),
    payload: decodePart(payloadPart, 'payload'),
    signature: decodePart(signaturePart, 'signature'),
  };
}

const DIGEST: Record<string, string> = { '256': 'sha256', '384': 'sha384', '512': 'sha512' };
const CURVE: Record<string, string> = { ES256: 'prime256v1', ES384: 'secp384r1', ES512: 'secp521r1' };

/** Whether `key` signed `jws`; a key of the wrong type for the algorithm never matches. */
export function verifyJws(jws: ParsedJws, key: KeyObject): boolean {
  const family = jws.alg.slice(0, 2);
  const digest = DIGEST[jws.alg.slice(2)];
  try {
    switch (family) {
      case 'RS':
        return key.asymmetricKeyType === 'rsa' && verify(digest, jws.signingInput, key, jws.signature);
      case 'PS':
        return (
          (key.asymmetricKeyType === 'rsa' || key.asymmetricKeyType === 'rsa-pss') &&
          verify(
            digest,
            jws.signingInput,
            { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST },
            jws.signature,
          )
        );
      case 'ES':
        return (
          key.asymmetricKeyType === 'ec' &&
          key.asymmetricKeyDetails?.namedCurve === CURVE[jws.alg] &&
          verify(digest, jws.signingInput, { key, dsaEncoding: 'ieee-p1363' }, jws.signature)
        );
      case 'Ed':
        return (
          (key.asymmetricKeyType === 'ed25519' || key.asymmetricKeyType === 'ed448') && verify(null, jws.signingInput, key, jws.signature)
        );
      default:
        return false;
    }
  } catch {
    // A signature of the wrong length for the key, for instance: not this key's.
    return false;
  }
}

/** A JSON Web Key (public) as a node key; throws on anything node cannot read. */
export function keyFromJwk(jwk: Record<string, unknown>): KeyObject {
  return createPublicKey({ key: jwk as import('node:crypto').JsonWebKey, format: 'jwk' });
}
