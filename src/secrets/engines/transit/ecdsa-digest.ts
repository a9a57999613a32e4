import { randomBytes, type KeyObject } from 'node:crypto';
import { badRequest } from '../../../core/errors.js';

/**
 * ECDSA over a digest the caller computed (FIPS 186-4 §6.4), for `prehashed` signing: Node only
 * signs messages it hashes itself. Affine arithmetic on the NIST prime curves with BigInt; slow
 * next to OpenSSL (tens of milliseconds), which is why only prehashed requests come here.
 */
interface Curve {
  p: bigint;
  n: bigint;
  g: Point;
  bytes: number;
}
type Point = { x: bigint; y: bigint } | null;

const hex = (text: string) => BigInt(`0x${text}`);

const CURVES: Readonly<Record<string, Curve>> = {
  'P-256': {
    p: 2n ** 256n - 2n ** 224n + 2n ** 192n + 2n ** 96n - 1n,
    n: hex('ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551'),
    g: {
      x: hex('6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296'),
      y: hex('4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5'),
    },
    bytes: 32,
  },
  'P-384': {
    p: 2n ** 384n - 2n ** 128n - 2n ** 96n + 2n ** 32n - 1n,
    n: hex('ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973'),
    g: {
      x: hex('aa87ca22be8b05378eb1c71ef320ad746e1d3b628ba79b9859f741e082542a385502f25dbf55296c3a545e3872760ab7'),
      y: hex('3617de4a96262c6f5d9e98bf9292dc29f8f41dbd289a147ce9da3113b5f0b8c00a60b1ce1d7e819d7a431d7c90ea0e5f'),
    },
    bytes: 48,
  },
  'P-521': {
    p: 2n ** 521n - 1n,
    n: hex(
      '01ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff' +
        'ffa51868783bf2f966b7fcc0148f709a5d03bb5c9b8899c47aebb6fb71e91386409',
    ),
    g: {
      x: hex(
        '00c6858e06b70404e9cd9e3ecb662395b4429c648139053fb521f828af606b4d3d' +
          'baa14b5e77efe75928fe1dc127a2ffa8de3348b3c1856a429bf97e7e31c2e5bd66',
      ),
      y: hex(
        '011839296a789a3bc0045c8a5fb42c7d1bd998f54449579b446817afbd17273e66' +
          '2c97ee72995ef42640c550b9013fad0761353c7086a272c24088be94769fd16650',
      ),
    },
    bytes: 66,
  },
};

const mod = (value: bigint, m: bigint) => ((value % m) + m) % m;

function inverse(value: bigint, m: bigint): bigint {
  let [a, b, x, y] = [mod(value, m), m, 1n, 0n];
  while (b !== 0n) {
    const q = a / b;
    [a, b] = [b, a - q * b];
    [x, y] = [y, x - q * y];
  }
  return mod(x, m);
}

function add(curve: Curve, left: Point, right: Point): Point {
  if (!left) return right;
  if (!right) return left;
  const { p } = curve;
  if (left.x === right.x && mod(left.y + right.y, p) === 0n) return null;
  const slope =
    left.x === right.x && left.y === right.y
      ? mod((3n * left.x * left.x - 3n) * inverse(2n * left.y, p), p)
      : mod((right.y - left.y) * inverse(right.x - left.x, p), p);
  const x = mod(slope * slope - left.x - right.x, p);
  return { x, y: mod(slope * (left.x - x) - left.y, p) };
}

function multiply(curve: Curve, scalar: bigint, point: Point): Point {
  let result: Point = null;
  let addend = point;
  for (let k = scalar; k > 0n; k >>= 1n) {
    if (k & 1n) result = add(curve, result, addend);
    addend = add(curve, addend, addend);
  }
  return result;
}

const toBig = (bytes: Buffer) => (bytes.length === 0 ? 0n : BigInt(`0x${bytes.toString('hex')}`));
const toBytes = (value: bigint, length: number) => Buffer.from(value.toString(16).padStart(length * 2, '0'), 'hex');

/** The digest as an integer: its leftmost bits, as many as the order has (Go's hashToInt). */
function digestInteger(curve: Curve, digest: Buffer): bigint {
  const orderBits = curve.n.toString(2).length;
  const truncated = digest.subarray(0, Math.ceil(orderBits / 8));
  const excess = truncated.length * 8 - orderBits;
  return excess > 0 ? toBig(truncated) >> BigInt(excess) : toBig(truncated);
}

function curveOf(key: KeyObject): { curve: Curve; jwk: { d?: string; x?: string; y?: string } } {
  const jwk = key.export({ format: 'jwk' });
  const curve = CURVES[jwk.crv ?? ''];
  if (!curve) throw badRequest(`unsupported curve ${jwk.crv ?? ''}`);
  return { curve, jwk };
}

function derInteger(value: bigint): Buffer {
  let bytes = toBytes(value, Math.ceil(value.toString(16).length / 2));
  if ((bytes[0] ?? 0) & 0x80) bytes = Buffer.concat([Buffer.from([0]), bytes]);
  return Buffer.concat([derLength(0x02, bytes.length), bytes]);
}

function derLength(tag: number, length: number): Buffer {
  return length < 0x80 ? Buffer.from([tag, length]) : Buffer.from([tag, 0x81, length]);
}

/** SEQUENCE { INTEGER r, INTEGER s } parsed; undefined for anything else. */
function parseDer(signature: Buffer): { r: bigint; s: bigint } | undefined {
  let at = 0;
  const read = (tag: number): Buffer | undefined => {
    if (signature[at] !== tag) return undefined;
    let length = signature[at + 1] ?? 0;
    at += 2;
    if (length === 0x81) length = signature[at++] ?? 0;
    const body = signature.subarray(at, at + length);
    at += length;
    return body.length === length ? body : undefined;
  };
  const sequence = read(0x30);
  if (!sequence || at !== signature.length) return undefined;
  at = signature.length - sequence.length;
  const r = read(0x02);
  const s = read(0x02);
  return r && s && at === signature.length ? { r: toBig(r), s: toBig(s) } : undefined;
}

export function ecdsaSignDigest(key: KeyObject, digest: Buffer, ieee: boolean): Buffer {
  const { curve, jwk } = curveOf(key);
  const d = toBig(Buffer.from(jwk.d ?? '', 'base64url'));
  const e = digestInteger(curve, digest);
  for (;;) {
    const k = mod(toBig(randomBytes(curve.bytes + 8)), curve.n - 1n) + 1n;
    const point = multiply(curve, k, curve.g);
    const r = point ? mod(point.x, curve.n) : 0n;
    const s = mod(inverse(k, curve.n) * (e + r * d), curve.n);
    if (r === 0n || s === 0n) continue;
    if (ieee) return Buffer.concat([toBytes(r, curve.bytes), toBytes(s, curve.bytes)]);
    const body = Buffer.concat([derInteger(r), derInteger(s)]);
    return Buffer.concat([derLength(0x30, body.length), body]);
  }
}

export function ecdsaVerifyDigest(publicKey: KeyObject, digest: Buffer, signature: Buffer, ieee: boolean): boolean {
  const { curve, jwk } = curveOf(publicKey);
  const half = signature.length / 2;
  const parsed = ieee ? { r: toBig(signature.subarray(0, half)), s: toBig(signature.subarray(half)) } : parseDer(signature);
  if (!parsed) return false;
  const { r, s } = parsed;
  if (r <= 0n || r >= curve.n || s <= 0n || s >= curve.n) return false;
  const q = { x: toBig(Buffer.from(jwk.x ?? '', 'base64url')), y: toBig(Buffer.from(jwk.y ?? '', 'base64url')) };
  const w = inverse(s, curve.n);
  const e = digestInteger(curve, digest);
  const point = add(curve, multiply(curve, mod(e * w, curve.n), curve.g), multiply(curve, mod(r * w, curve.n), q));
  return point !== null && mod(point.x, curve.n) === r;
}
