import { createPrivateKey, generateKeyPairSync, sign, type JsonWebKey, type KeyObject } from 'node:crypto';
import { uuid } from '../../../core/ids.js';

/** The signing algorithms a named key may use, in the order the discovery document lists them. */
export const OIDC_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const;
export type OidcAlgorithm = (typeof OIDC_ALGORITHMS)[number];

export const isOidcAlgorithm = (value: string): value is OidcAlgorithm => (OIDC_ALGORITHMS as readonly string[]).includes(value);

/** One public key of a named key's ring; `expireAt` (epoch ms) is set once a rotation retires it. */
export interface RingKey {
  kid: string;
  jwk: JsonWebKey;
  expireAt: number | null;
}

/** A named key as stored. The private half is sealed with the server key and never leaves this module in clear. */
export interface NamedKeyRecord {
  name: string;
  algorithm: OidcAlgorithm;
  /** Seconds. */
  rotationPeriod: number;
  /** Seconds a retired public key stays published. */
  verificationTtl: number;
  allowedClientIds: string[];
  signingKid: string;
  signingKeySealed: string;
  ring: RingKey[];
  /** Epoch ms of the next automatic rotation. */
  nextRotation: number;
}

/** Sealing and opening of private key material (the store's `SecretsAtRest`). */
export interface KeySealer {
  seal(secret: string): string;
  open(sealed: string): string | null;
}

const CURVES: Record<string, string> = { ES256: 'prime256v1', ES384: 'secp384r1', ES512: 'secp521r1' };
const DIGESTS: Record<string, string> = { '256': 'sha256', '384': 'sha384', '512': 'sha512' };

function generatePair(algorithm: OidcAlgorithm): { privateKey: KeyObject; publicKey: KeyObject } {
  if (algorithm.startsWith('RS')) return generateKeyPairSync('rsa', { modulusLength: 2048 });
  if (algorithm === 'EdDSA') return generateKeyPairSync('ed25519');
  return generateKeyPairSync('ec', { namedCurve: CURVES[algorithm] as string });
}

/** A fresh key pair: its public JWK (with `kid`, `alg`, `use`) and its sealed private half. */
export function newSigningKey(algorithm: OidcAlgorithm, sealer: KeySealer): { ring: RingKey; sealed: string } {
  const { privateKey, publicKey } = generatePair(algorithm);
  const kid = uuid();
  const jwk: JsonWebKey = { use: 'sig', kid, alg: algorithm, ...publicKey.export({ format: 'jwk' }) };
  const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  return { ring: { kid, jwk, expireAt: null }, sealed: sealer.seal(pem) };
}

/** Retires the current signing key (published for `verificationTtl` more seconds) and starts a new one. */
export function rotateKey(key: NamedKeyRecord, sealer: KeySealer, nowMs: number, verificationTtl = key.verificationTtl): NamedKeyRecord {
  const fresh = newSigningKey(key.algorithm, sealer);
  const ring = key.ring.map((entry) => (entry.kid === key.signingKid ? { ...entry, expireAt: nowMs + verificationTtl * 1000 } : entry));
  return {
    ...key,
    signingKid: fresh.ring.kid,
    signingKeySealed: fresh.sealed,
    ring: [...ring, fresh.ring],
    nextRotation: nowMs + key.rotationPeriod * 1000,
  };
}

/** The ring without keys whose verification time has passed. */
export const unexpired = (key: NamedKeyRecord, nowMs: number): RingKey[] =>
  key.ring.filter((entry) => entry.expireAt === null || entry.expireAt > nowMs);

/** A compact JWS of `claims` signed with the key's current signing key. */
export function signClaims(key: NamedKeyRecord, claims: Record<string, unknown>, sealer: KeySealer): string {
  const pem = sealer.open(key.signingKeySealed);
  if (pem === null) throw new Error(`the signing key of OIDC key ${JSON.stringify(key.name)} cannot be opened`);
  const privateKey = createPrivateKey(pem);
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${part({ alg: key.algorithm, kid: key.signingKid })}.${part(claims)}`;
  const signature =
    key.algorithm === 'EdDSA'
      ? sign(null, Buffer.from(input), privateKey)
      : sign(DIGESTS[key.algorithm.slice(2)], Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' });
  return `${input}.${signature.toString('base64url')}`;
}
