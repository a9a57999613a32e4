import { createHash } from 'node:crypto';

/**
 * Just enough OpenPGP (RFC 4880) to name a public key: strip the ASCII armor, read the first
 * packet, which must be a version 4 public key, and derive its fingerprint and long key id the
 * way the standard does. understudy never checks signatures itself — the terraform CLI does, with
 * the key the provider protocol hands it — so nothing more of the format is needed.
 */
export interface PublicKeyInfo {
  /** The 64-bit key id in upper-case hex, as `gpg --list-keys --keyid-format long` prints it. */
  keyId: string;
  fingerprint: string;
}

const BEGIN = '-----BEGIN PGP PUBLIC KEY BLOCK-----';
const END = '-----END PGP PUBLIC KEY BLOCK-----';
const PUBLIC_KEY_TAG = 6;

/** The armored block's bytes, or null when it is not a public key block. */
function dearmor(armor: string): Buffer | null {
  const lines = armor.replace(/\r/g, '').split('\n');
  const start = lines.findIndex((line) => line.trim() === BEGIN);
  if (start < 0) return null;
  const end = lines.findIndex((line, index) => index > start && line.trim() === END);
  if (end < 0) return null;
  // Armor headers (`Version: …`) end at the first blank line; a block may have none.
  let body = lines.slice(start + 1, end);
  const blank = body.findIndex((line) => line.trim() === '');
  if (blank >= 0 && body.slice(0, blank).every((line) => /^[A-Za-z-]+: /.test(line))) body = body.slice(blank + 1);
  const data = body
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('='))
    .join('');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(data)) return null;
  const bytes = Buffer.from(data, 'base64');
  return bytes.length > 0 ? bytes : null;
}

/** The first packet's tag and body, or null when the header is malformed or runs past the end. */
function firstPacket(bytes: Buffer): { tag: number; body: Buffer } | null {
  const header = bytes[0];
  if (header === undefined || (header & 0x80) === 0) return null;
  let tag: number;
  let length: number;
  let offset: number;
  if (header & 0x40) {
    tag = header & 0x3f;
    const first = bytes[1];
    if (first === undefined) return null;
    if (first < 192) [length, offset] = [first, 2];
    else if (first < 224) [length, offset] = [((first - 192) << 8) + (bytes[2] ?? 0) + 192, 3];
    else if (first === 255) [length, offset] = [bytes.length >= 6 ? bytes.readUInt32BE(2) : -1, 6];
    else return null; // partial lengths never frame a key packet
  } else {
    tag = (header >> 2) & 0x0f;
    const kind = header & 0x03;
    if (kind === 0) [length, offset] = [bytes[1] ?? -1, 2];
    else if (kind === 1) [length, offset] = [bytes.length >= 3 ? bytes.readUInt16BE(1) : -1, 3];
    else if (kind === 2) [length, offset] = [bytes.length >= 5 ? bytes.readUInt32BE(1) : -1, 5];
    else [length, offset] = [bytes.length - 1, 1];
  }
  if (length < 0 || offset + length > bytes.length) return null;
  return { tag, body: bytes.subarray(offset, offset + length) };
}

/** The key's id and fingerprint, or null when `armor` is not an armored version 4 public key. */
export function readPublicKey(armor: string): PublicKeyInfo | null {
  const bytes = dearmor(armor);
  const packet = bytes && firstPacket(bytes);
  if (!packet || packet.tag !== PUBLIC_KEY_TAG || packet.body[0] !== 4 || packet.body.length < 6) return null;
  const prefix = Buffer.from([0x99, (packet.body.length >> 8) & 0xff, packet.body.length & 0xff]);
  const fingerprint = createHash('sha1').update(prefix).update(packet.body).digest('hex').toUpperCase();
  return { fingerprint, keyId: fingerprint.slice(-16) };
}
