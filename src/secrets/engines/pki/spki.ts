import type { JsonWebKey, KeyObject } from 'node:crypto';
import { AsnConvert } from '@peculiar/asn1-schema';
import * as asn from '@peculiar/asn1-x509';

/**
 * A public key's SubjectPublicKeyInfo, built from its JWK. OpenSSL 3 exports SPKI DER through its
 * encoder framework, about 95 µs for an EC P-256 key and 115 µs for RSA-2048, and parsing that DER
 * back costs another 35 µs, while the JWK export costs 1 to 4 µs; issuing needs the SPKI of every
 * new key (its identifier and the certificate), so that export was a large part of an issue's CPU.
 * The structure encodes to exactly OpenSSL's bytes (test/secrets/pki/der-encoding.test.ts compares them).
 * Keys of other types and curves go through OpenSSL's export.
 */
export function subjectPublicKeyInfo(publicKey: KeyObject): asn.SubjectPublicKeyInfo {
  const parts = spkiParts(publicKey);
  if (!parts) return AsnConvert.parse(publicKey.export({ format: 'der', type: 'spki' }), asn.SubjectPublicKeyInfo);
  return new asn.SubjectPublicKeyInfo({
    algorithm: new asn.AlgorithmIdentifier({ algorithm: parts.algorithm, parameters: arrayBufferOf(parts.parameters) }),
    subjectPublicKey: arrayBufferOf(parts.key),
  });
}

/** The same SPKI as DER, built directly (encoding the structure through the library costs ~55 µs). */
export function spkiDer(publicKey: KeyObject): Buffer {
  const parts = spkiParts(publicKey);
  if (!parts) return publicKey.export({ format: 'der', type: 'spki' });
  return sequence(sequence(OID_DER[parts.algorithm] as Buffer, parts.parameters), bitString(parts.key));
}

const arrayBufferOf = (bytes: Buffer): ArrayBuffer =>
  bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;

/** An SPKI's algorithm, its parameters (DER) and the key bits. */
interface SpkiParts {
  algorithm: string;
  parameters: Buffer;
  key: Buffer;
}

const EC_PUBLIC_KEY = '1.2.840.10045.2.1';
const RSA_ENCRYPTION = '1.2.840.113549.1.1.1';
const OID_DER: Record<string, Buffer> = {
  [EC_PUBLIC_KEY]: Buffer.from('06072a8648ce3d0201', 'hex'),
  [RSA_ENCRYPTION]: Buffer.from('06092a864886f70d010101', 'hex'),
};
const DER_NULL = Buffer.from('0500', 'hex');

/** Named-curve parameters (the curve's OID, DER) and coordinate sizes by JWK curve name. */
const CURVES: Record<string, { parameters: Buffer; bytes: number }> = {
  'P-256': { parameters: Buffer.from('06082a8648ce3d030107', 'hex'), bytes: 32 },
  'P-384': { parameters: Buffer.from('06052b81040022', 'hex'), bytes: 48 },
  'P-521': { parameters: Buffer.from('06052b81040023', 'hex'), bytes: 66 },
};

/** Node exports JWK for RSA and for the NIST curves only; it throws for the others, which take OpenSSL's path. */
function jwkOf(key: KeyObject): JsonWebKey | undefined {
  if (key.asymmetricKeyType !== 'rsa' && key.asymmetricKeyType !== 'ec') return undefined;
  try {
    return key.export({ format: 'jwk' });
  } catch {
    return undefined;
  }
}

function spkiParts(publicKey: KeyObject): SpkiParts | undefined {
  const jwk = jwkOf(publicKey);
  if (jwk?.kty === 'RSA' && jwk.n && jwk.e) {
    const key = sequence(integer(Buffer.from(jwk.n, 'base64url')), integer(Buffer.from(jwk.e, 'base64url')));
    return { algorithm: RSA_ENCRYPTION, parameters: DER_NULL, key };
  }
  const curve = jwk?.crv === undefined ? undefined : CURVES[jwk.crv];
  if (jwk?.kty !== 'EC' || !curve || !jwk.x || !jwk.y) return undefined;
  const x = Buffer.from(jwk.x, 'base64url');
  const y = Buffer.from(jwk.y, 'base64url');
  if (x.length !== curve.bytes || y.length !== curve.bytes) return undefined;
  return { algorithm: EC_PUBLIC_KEY, parameters: curve.parameters, key: Buffer.concat([Buffer.from([0x04]), x, y]) };
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

/** `content` under the identifier octet `tag`: an explicit tag (0xa3 for [3]), an implicit one (0x80), an OCTET STRING (0x04). */
export const tagged = (tag: number, content: Buffer): Buffer => Buffer.concat([header(tag, content.length), content]);

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
