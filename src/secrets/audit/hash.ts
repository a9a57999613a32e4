import { createHmac } from 'node:crypto';

/** A string as audit devices write it: `hmac-sha256:` and the HMAC-SHA256 of the value under the device's salt, in hex. */
export function identifiedHmac(salt: string, value: string): string {
  return `hmac-sha256:${createHmac('sha256', salt).update(value).digest('hex')}`;
}

/**
 * A copy of `value` with every string replaced by `hash(string)`, at any depth; object keys,
 * numbers, booleans and nulls stay as they are (the real service hashes values, never keys).
 */
export function hashStrings(value: unknown, hash: (text: string, key: string) => string, key = ''): unknown {
  if (typeof value === 'string') return hash(value, key);
  if (Array.isArray(value)) return value.map((item) => hashStrings(item, hash, key));
  if (value instanceof Date) return hash(value.toISOString(), key);
  if (typeof value === 'object' && value !== null) {
    const copy: Record<string, unknown> = {};
    for (const [name, item] of Object.entries(value)) copy[name] = hashStrings(item, hash, name);
    return copy;
  }
  return value;
}

/** Keys whose values are tokens wherever they appear (a lookup's body, a wrapping call). */
const TOKEN_KEYS = new Set(['token', 'client_token', 'wrapping_token']);

/**
 * `log_raw` data: written as is, except tokens: values under a token key, and any value equal to a
 * token this request carried or issued (`lookup-self` answers with the caller's token as `id`).
 */
export function rawExceptTokens(value: unknown, hmac: (text: string) => string, tokens: readonly string[]): unknown {
  return hashStrings(value, (text, key) => (TOKEN_KEYS.has(key) || tokens.includes(text) ? hmac(text) : text));
}
