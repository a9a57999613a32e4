import type { KeyObject } from 'node:crypto';

/**
 * A public key's SubjectPublicKeyInfo DER, built from its JWK. OpenSSL 3 exports SPKI DER through
 * its encoder framework, about 95 µs for an EC P-256 key and 115 µs for RSA-2048, while the JWK
 * export costs 1 to 4 µs; issuing needs the SPKI of every new key (its identifier and the
 * certificate), so that export was a large part of an issue's CPU. The encoding is DER, so the
 * bytes are exactly OpenSSL's (test/secrets/pki/spki.test.ts compares them). Keys of other types
 * and curves go through OpenSSL's export.
 */
export function spkiDer(publicKey: KeyObject): Buffer {
  const built = hasJwk(publicKey) ? fromJwk(publicKey) : undefined;
  return built ?? publicKey.export({ format: 'der', type: 'spki' });
}

/** Named-curve parameters (the curve's OID, DER) by JWK curve name. */
const CURVE_OIDS: Record<string, Buffer> = {
  'P-256': Buffer.from('06082a8648ce3d030107', 'hex'),
  'P-384': Buffer.from('06052b81040022', 'hex'),
  'P-521': Buffer.from('06052b81040023', 'hex'),
};
const CURVE_BYTES: Record<string, number> = { 'P-256': 32, 'P-384': 48, 'P-521': 66 };
const EC_PUBLIC_KEY = Buffer.from('06072a8648ce3d0201', 'hex');
/** rsaEncryption with its NULL parameters. */
const RSA_ALGORITHM = Buffer.from('300d06092a864886f70d0101010500', 'hex');

/** Node exports JWK for RSA and for the NIST curves only (it throws for the others). */
function hasJwk(key: KeyObject): boolean {
  if (key.asymmetricKeyType === 'rsa') return true;
  const curve = key.asymmetricKeyDetails?.namedCurve;
  return key.asymmetricKeyType === 'ec' && (curve === 'prime256v1' || curve === 'secp384r1' || curve === 'secp521r1');
}

function fromJwk(publicKey: KeyObject): Buffer | undefined {
  const jwk = publicKey.export({ format: 'jwk' });
  if (jwk.kty === 'RSA' && jwk.n && jwk.e) {
    const key = sequence(integer(Buffer.from(jwk.n, 'base64url')), integer(Buffer.from(jwk.e, 'base64url')));
    return sequence(RSA_ALGORITHM, bitString(key));
  }
  const curve = jwk.crv === undefined ? undefined : CURVE_OIDS[jwk.crv];
  const size = jwk.crv === undefined ? undefined : CURVE_BYTES[jwk.crv];
  if (jwk.kty !== 'EC' || !curve || !size || !jwk.x || !jwk.y) return undefined;
  const x = Buffer.from(jwk.x, 'base64url');
  const y = Buffer.from(jwk.y, 'base64url');
  if (x.length !== size || y.length !== size) return undefined;
  return sequence(sequence(EC_PUBLIC_KEY, curve), bitString(Buffer.concat([Buffer.from([0x04]), x, y])));
}

function header(tag: number, length: number): Buffer {
  if (length < 0x80) return Buffer.from([tag, length]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.from([tag, 0x80 | bytes.length, ...bytes]);
}

/** DER SEQUENCE of already-encoded members. */
export const sequence = (...parts: Buffer[]): Buffer => {
  const body = Buffer.concat(parts);
  return Buffer.concat([header(0x30, body.length), body]);
};

/** DER BIT STRING of whole bytes (no unused bits). */
export const bitString = (content: Buffer): Buffer => Buffer.concat([header(0x03, content.length + 1), Buffer.from([0x00]), content]);

/** A non-negative INTEGER from big-endian bytes: minimal, with a 0x00 when the top bit is set. */
function integer(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start += 1;
  const trimmed = bytes.subarray(start);
  const body = ((trimmed[0] ?? 0) & 0x80) !== 0 ? Buffer.concat([Buffer.from([0x00]), trimmed]) : trimmed;
  return Buffer.concat([header(0x02, body.length), body]);
}
