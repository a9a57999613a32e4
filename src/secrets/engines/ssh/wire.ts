import { createPublicKey, type KeyObject } from 'node:crypto';

/**
 * The SSH wire encoding (RFC 4251 §5): strings and mpints with a 32-bit length, big-endian
 * integers. Certificates, public key blobs and signatures are all written with it.
 */
export class WireWriter {
  private readonly parts: Buffer[] = [];

  uint32(value: number): this {
    const part = Buffer.alloc(4);
    part.writeUInt32BE(value);
    this.parts.push(part);
    return this;
  }

  uint64(value: bigint): this {
    const part = Buffer.alloc(8);
    part.writeBigUInt64BE(value);
    this.parts.push(part);
    return this;
  }

  string(value: Buffer | string): this {
    const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
    this.uint32(bytes.length);
    this.parts.push(bytes);
    return this;
  }

  /** A non-negative integer given as unsigned big-endian bytes: minimal, with a 0 byte before a set top bit. */
  mpint(unsigned: Buffer): this {
    let start = 0;
    while (start < unsigned.length && unsigned[start] === 0) start += 1;
    const trimmed = unsigned.subarray(start);
    const needsPad = trimmed.length > 0 && (trimmed[0] as number) & 0x80;
    return this.string(needsPad ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
  }

  raw(bytes: Buffer): this {
    this.parts.push(bytes);
    return this;
  }

  bytes(): Buffer {
    return Buffer.concat(this.parts);
  }
}

/** Thrown for malformed wire data; handlers turn it into the API's 400. */
export class WireError extends Error {}

export class WireReader {
  private offset = 0;
  constructor(private readonly buffer: Buffer) {}

  uint32(): number {
    if (this.offset + 4 > this.buffer.length) throw new WireError('short read');
    const value = this.buffer.readUInt32BE(this.offset);
    this.offset += 4;
    return value;
  }

  string(): Buffer {
    const length = this.uint32();
    if (this.offset + length > this.buffer.length) throw new WireError('short read');
    const value = this.buffer.subarray(this.offset, this.offset + length);
    this.offset += length;
    return value;
  }

  rest(): Buffer {
    return this.buffer.subarray(this.offset);
  }

  get done(): boolean {
    return this.offset === this.buffer.length;
  }
}

export const CURVES: Record<string, { sshName: string; hash: string; size: number }> = {
  'P-256': { sshName: 'nistp256', hash: 'sha256', size: 32 },
  'P-384': { sshName: 'nistp384', hash: 'sha384', size: 48 },
  'P-521': { sshName: 'nistp521', hash: 'sha512', size: 66 },
};

const b64u = (text: string | undefined) => Buffer.from(text ?? '', 'base64url');

/** An SSH public key: its algorithm name and its wire blob (the name included). */
export interface SshPublicKey {
  type: string;
  blob: Buffer;
}

/** The wire blob of a public key held by Node (RSA, EC P-256/384/521, Ed25519). */
export function publicKeyOf(key: KeyObject): SshPublicKey {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  const jwk = publicKey.export({ format: 'jwk' });
  switch (publicKey.asymmetricKeyType) {
    case 'rsa': {
      const blob = new WireWriter().string('ssh-rsa').mpint(b64u(jwk.e)).mpint(b64u(jwk.n)).bytes();
      return { type: 'ssh-rsa', blob };
    }
    case 'ec': {
      const curve = CURVES[jwk.crv ?? ''];
      if (!curve) throw new WireError(`unsupported curve ${jwk.crv}`);
      const type = `ecdsa-sha2-${curve.sshName}`;
      const point = Buffer.concat([Buffer.from([4]), b64u(jwk.x), b64u(jwk.y)]);
      return { type, blob: new WireWriter().string(type).string(curve.sshName).string(point).bytes() };
    }
    case 'ed25519':
      return { type: 'ssh-ed25519', blob: new WireWriter().string('ssh-ed25519').string(b64u(jwk.x)).bytes() };
    default:
      throw new WireError(`unsupported key type ${publicKey.asymmetricKeyType}`);
  }
}

/** `type base64 [comment]` as authorized_keys and the real service's answers write it. */
export const authorizedKey = (key: SshPublicKey): string => `${key.type} ${key.blob.toString('base64')}\n`;

const KEY_TYPES = new Set(['ssh-rsa', 'ssh-ed25519', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521']);

/**
 * Parses an authorized_keys line (or a bare base64 blob) and checks the blob's structure, so a
 * certificate never embeds a key no client can read. Certificates are not accepted as keys.
 */
export function parseAuthorizedKey(text: string): SshPublicKey {
  const fields = text.trim().split(/\s+/);
  const encoded = fields.length >= 2 ? fields[1] : fields[0];
  if (!encoded || !/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) throw new WireError('ssh: no key found');
  const blob = Buffer.from(encoded, 'base64');
  const reader = new WireReader(blob);
  const type = reader.string().toString('latin1');
  if (!KEY_TYPES.has(type)) throw new WireError(`ssh: unknown key algorithm: ${type}`);
  if (type === 'ssh-rsa') {
    reader.string();
    reader.string();
  } else if (type === 'ssh-ed25519') {
    if (reader.string().length !== 32) throw new WireError('ssh: invalid size for ed25519 key');
  } else {
    const curve = reader.string().toString('latin1');
    if (`ecdsa-sha2-${curve}` !== type) throw new WireError('ssh: curve name mismatch');
    reader.string();
  }
  if (!reader.done) throw new WireError('ssh: junk at end of public key');
  return { type, blob };
}

/** The algorithm a public key's type names, for key generation and `private_key_type`. */
export function keyFamily(type: string): 'rsa' | 'ec' | 'ed25519' {
  if (type === 'ssh-rsa') return 'rsa';
  if (type === 'ssh-ed25519') return 'ed25519';
  return 'ec';
}
