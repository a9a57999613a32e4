/**
 * JSON.parse that drops `__proto__` keys, so no request body can smuggle a prototype into an
 * object that is later merged with Object.assign.
 */
export function parseJson(text: string): unknown {
  return JSON.parse(text, (key, value: unknown) => (key === '__proto__' ? undefined : value));
}
