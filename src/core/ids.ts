import { randomBytes, randomInt } from 'node:crypto';

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function randomString(alphabet: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

/** A resource id in the spec's form: a kind prefix (`ws`, `task`, `ou`, …), a dash, an opaque part. */
export function newId(prefix: string): string {
  return `${prefix}-${randomString(BASE58, 16)}`;
}

/** Random base62, the alphabet of the secrets API's token, accessor and lease suffixes. */
export function base62(length: number): string {
  return randomString(BASE62, length);
}

export function uuid(): string {
  return crypto.randomUUID();
}

/** A bearer secret with enough entropy to be unguessable; callers store only its hash. */
export function secretToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}
