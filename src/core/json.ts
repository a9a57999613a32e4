/**
 * JSON.parse that drops `__proto__` keys, so no request body can smuggle a prototype into an
 * object that is later merged with Object.assign.
 */
export function parseJson(text: string): unknown {
  // A `__proto__` key is in the text as it is or spelled with a `\u` escape; a text with neither
  // (nearly every body) is parsed without the reviver, which costs a call per value (it doubled
  // the parse of a 140 KB transit batch).
  if (!text.includes('__proto__') && !text.includes('\\u')) return JSON.parse(text);
  return JSON.parse(text, (key, value: unknown) => (key === '__proto__' ? undefined : value));
}

/** A decoded JSON value as text: strings as they are, other values as JSON (never `[object Object]`), none as `fallback`. */
export function textOf(value: unknown, fallback = ''): string {
  if (value === undefined || value === null) return fallback;
  return typeof value === 'string' ? value : JSON.stringify(value);
}
