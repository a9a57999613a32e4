import { createPrivateKey, generateKeyPair, randomBytes, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { publicKeyOf, WireError, WireReader, WireWriter } from './wire.js';

const generate = promisify(generateKeyPair);
const MAGIC = Buffer.from('openssh-key-v1\0', 'latin1');
const NODE_CURVES: Record<number, string> = { 256: 'prime256v1', 384: 'secp384r1', 521: 'secp521r1' };
const SSH_CURVES: Record<string, number> = { 'ecdsa-sha2-nistp256': 256, 'ecdsa-sha2-nistp384': 384, 'ecdsa-sha2-nistp521': 521 };

/** Thrown for a key request the caller got wrong (unknown type, weak size); handlers make it a 400. */
export class KeyRequestError extends Error {}

/**
 * A new key pair for `keyType` as the real service names them (`ssh-rsa`/`rsa`, an
 * `ecdsa-sha2-*` name or `ec` with 256/384/521 bits, `ssh-ed25519`/`ed25519`). Generation runs
 * off the event loop (RSA takes a while).
 */
export async function generateSshKey(keyType: string, keyBits: number): Promise<KeyObject> {
  switch (keyType) {
    case 'ssh-rsa':
    case 'rsa': {
      const bits = keyBits === 0 ? 4096 : keyBits;
      if (bits < 2048) throw new KeyRequestError(`refusing to generate weak ${keyType} key: ${bits} bits < 2048 bits`);
      if (bits > 8192) throw new KeyRequestError(`refusing to generate ${keyType} key of ${bits} bits (more than 8192)`);
      return (await generate('rsa', { modulusLength: bits })).privateKey;
    }
    case 'ed25519':
    case 'ssh-ed25519':
      return (await generate('ed25519')).privateKey;
    default: {
      const bits = SSH_CURVES[keyType] ?? (keyType === 'ec' ? (keyBits === 0 ? 256 : keyBits) : undefined);
      if (bits === undefined) throw new KeyRequestError(`unknown ssh key pair algorithm: ${keyType}`);
      const namedCurve = NODE_CURVES[bits];
      if (!namedCurve) throw new KeyRequestError(`unknown ECDSA key pair algorithm: ${keyType}`);
      return (await generate('ec', { namedCurve })).privateKey;
    }
  }
}

const b64u = (bytes: Buffer) => bytes.toString('base64url');
const unsigned = (mpint: Buffer) => (mpint[0] === 0 ? mpint.subarray(1) : mpint);
const big = (bytes: Buffer) => BigInt(`0x${bytes.toString('hex') || '0'}`);
const bytesOf = (value: bigint) => {
  const hex = value.toString(16);
  return Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex');
};

/** The private half of an unencrypted `openssh-key-v1` key, as a Node key (via JWK). */
function parseOpenSsh(body: Buffer): KeyObject {
  if (!body.subarray(0, MAGIC.length).equals(MAGIC)) throw new WireError('ssh: invalid openssh private key format');
  const reader = new WireReader(body.subarray(MAGIC.length));
  const cipher = reader.string().toString('latin1');
  reader.string();
  reader.string();
  if (cipher !== 'none') throw new WireError('ssh: this private key is passphrase protected');
  if (reader.uint32() !== 1) throw new WireError('ssh: multi-key files are not supported');
  reader.string();
  const inner = new WireReader(reader.string());
  if (inner.uint32() !== inner.uint32()) throw new WireError('ssh: malformed OpenSSH key');
  const type = inner.string().toString('latin1');
  if (type === 'ssh-ed25519') {
    const pub = inner.string();
    const secret = inner.string();
    return createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', x: b64u(pub), d: b64u(secret.subarray(0, 32)) }, format: 'jwk' });
  }
  const bits = SSH_CURVES[type];
  if (bits !== undefined) {
    inner.string();
    const point = inner.string();
    const d = unsigned(inner.string());
    const size = (point.length - 1) / 2;
    const crv = bits === 521 ? 'P-521' : `P-${bits}`;
    const padded = Buffer.concat([Buffer.alloc(Math.max(0, size - d.length)), d]);
    const jwk = { kty: 'EC', crv, x: b64u(point.subarray(1, 1 + size)), y: b64u(point.subarray(1 + size)), d: b64u(padded) };
    return createPrivateKey({ key: jwk, format: 'jwk' });
  }
  if (type === 'ssh-rsa') {
    const [n, e, d, qi, p, q] = [0, 1, 2, 3, 4, 5].map(() => unsigned(inner.string())) as [Buffer, Buffer, Buffer, Buffer, Buffer, Buffer];
    const dp = big(d) % (big(p) - 1n);
    const dq = big(d) % (big(q) - 1n);
    const jwk = {
      kty: 'RSA',
      n: b64u(n),
      e: b64u(e),
      d: b64u(d),
      p: b64u(p),
      q: b64u(q),
      dp: b64u(bytesOf(dp)),
      dq: b64u(bytesOf(dq)),
      qi: b64u(qi),
    };
    return createPrivateKey({ key: jwk, format: 'jwk' });
  }
  throw new WireError(`ssh: unhandled key type ${type}`);
}

/** A private key in any PEM form OpenSSH writes or reads (OpenSSH, PKCS#1, SEC1, PKCS#8). */
export function parsePrivateKey(pem: string): KeyObject {
  const openssh = /-----BEGIN OPENSSH PRIVATE KEY-----([\s\S]*?)-----END OPENSSH PRIVATE KEY-----/.exec(pem);
  if (openssh) return parseOpenSsh(Buffer.from((openssh[1] ?? '').replace(/\s+/g, ''), 'base64'));
  try {
    return createPrivateKey(pem);
  } catch {
    throw new WireError('ssh: no key found');
  }
}

/** An Ed25519 key in the `openssh-key-v1` PEM OpenSSH itself writes (it reads no other Ed25519 form). */
function openSshEd25519(key: KeyObject): string {
  const jwk = key.export({ format: 'jwk' });
  const pub = Buffer.from(jwk.x ?? '', 'base64url');
  const seed = Buffer.from(jwk.d ?? '', 'base64url');
  const check = randomBytes(4).readUInt32BE();
  const inner = new WireWriter()
    .uint32(check)
    .uint32(check)
    .string('ssh-ed25519')
    .string(pub)
    .string(Buffer.concat([seed, pub]))
    .string('');
  let section = inner.bytes();
  const padding: number[] = [];
  for (let i = 1; (section.length + padding.length) % 8 !== 0; i += 1) padding.push(i);
  section = Buffer.concat([section, Buffer.from(padding)]);
  const body = Buffer.concat([
    MAGIC,
    new WireWriter().string('none').string('none').string('').uint32(1).string(publicKeyOf(key).blob).string(section).bytes(),
  ]);
  const lines = body.toString('base64').match(/.{1,70}/g) ?? [];
  return `-----BEGIN OPENSSH PRIVATE KEY-----\n${lines.join('\n')}\n-----END OPENSSH PRIVATE KEY-----\n`;
}

/** The PEM the real service hands out: PKCS#1 for RSA, SEC1 for EC, OpenSSH for Ed25519. */
export function privateKeyPem(key: KeyObject): string {
  if (key.asymmetricKeyType === 'rsa') return key.export({ format: 'pem', type: 'pkcs1' }).toString();
  if (key.asymmetricKeyType === 'ec') return key.export({ format: 'pem', type: 'sec1' }).toString();
  return openSshEd25519(key);
}
