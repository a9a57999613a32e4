import { createHmac } from 'node:crypto';

/** A string as audit devices write it: `hmac-sha256:` and the HMAC-SHA256 of the value under the device's salt, in hex. */
export function identifiedHmac(salt: string, value: string): string {
  return `hmac-sha256:${createHmac('sha256', salt).update(value).digest('hex')}`;
}

/** Values longer than this are converted every time rather than remembered (a cache must stay small). */
const REMEMBERED_LENGTH = 256;

/** `convert` remembered for the last `size` short texts (the cache is emptied when full; long texts are converted every time). */
function rememberedShort(convert: (text: string) => string, size: number): (text: string) => string {
  const known = new Map<string, string>();
  return (text) => {
    if (text.length > REMEMBERED_LENGTH) return convert(text);
    let converted = known.get(text);
    if (converted === undefined) {
      if (known.size >= size) known.clear();
      converted = convert(text);
      known.set(text, converted);
    }
    return converted;
  };
}

/**
 * `hmac` remembered for the last thousand short values: a client sends the same token (and its
 * accessor) on every request and reads the same secrets again, and each HMAC costs about as much
 * as the rest of a record. The cache lives in memory only, beside the store that holds the values.
 */
export function rememberedHmac(hmac: (value: string) => string, size = 1024): (value: string) => string {
  return rememberedShort(hmac, size);
}

/**
 * JSON.stringify of strings, remembered for the last thousand short ones: the keys of a client's
 * data and the HMACs of its values come back on every request, and the lookup costs a fraction of
 * the conversion. The texts live in memory only, beside the HMACs remembered with them.
 */
export function rememberedJson(size = 1024): (text: string) => string {
  return rememberedShort(JSON.stringify, size);
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
    const object = value as Record<string, unknown>;
    // Own members only, as Object.entries lists them, without building the list.
    for (const name in object) if (Object.hasOwn(object, name)) copy[name] = hashStrings(object[name], hash, name);
    return copy;
  }
  return value;
}

/**
 * `JSON.stringify(hashStrings(value, hash))`, written straight to text without the hashed copy
 * (the response's data is most of a record). Plain objects, arrays, strings, numbers, booleans,
 * nulls and dates are written here; anything else (a class instance, an object with `toJSON`)
 * goes through the copy as before, so the text is the same byte for byte. Undefined where
 * JSON.stringify would leave the value out. `json` writes strings (keys and hashed values) as JSON.
 */
export function hashedJson(
  value: unknown,
  hash: (text: string, key: string) => string,
  key = '',
  json: (text: string) => string = JSON.stringify,
): string | undefined {
  switch (typeof value) {
    case 'string':
      return json(hash(value, key));
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      break;
    default:
      return JSON.stringify(hashStrings(value, hash, key));
  }
  if (value === null) return 'null';
  if (Array.isArray(value)) {
    let text = '[';
    for (let index = 0; index < value.length; index++)
      text += `${index === 0 ? '' : ','}${hashedJson(value[index], hash, key, json) ?? 'null'}`;
    return `${text}]`;
  }
  if (value instanceof Date) return json(hash(value.toISOString(), key));
  const prototype = Object.getPrototypeOf(value) as unknown;
  const object = value as Record<string, unknown>;
  if ((prototype !== Object.prototype && prototype !== null) || typeof object['toJSON'] === 'function')
    return JSON.stringify(hashStrings(value, hash, key));
  let text = '';
  for (const name in object) {
    if (!Object.hasOwn(object, name)) continue;
    const member = hashedJson(object[name], hash, name, json);
    if (member !== undefined) text += `${text === '' ? '' : ','}${json(name)}:${member}`;
  }
  return `{${text}}`;
}

/** Keys whose values are tokens wherever they appear (a lookup's body, a wrapping call). */
const TOKEN_KEYS = new Set(['token', 'client_token', 'wrapping_token']);

/**
 * `log_raw` data as JSON text: written as is, except tokens: values under a token key, and any value equal to a
 * token this request carried or issued (`lookup-self` answers with the caller's token as `id`).
 */
export function rawExceptTokens(value: unknown, hmac: (text: string) => string, tokens: readonly string[]): string | undefined {
  return hashedJson(value, (text, key) => (TOKEN_KEYS.has(key) || tokens.includes(text) ? hmac(text) : text));
}
