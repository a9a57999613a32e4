/**
 * JSON for answers that hold a long list (a transit batch's `batch_results`), made as many small
 * texts instead of one long one.
 *
 * Why: `JSON.stringify` of a 145 KB answer returns a rope of parts that V8 must flatten into one
 * new 145 KB string before any of it can be encoded: a large object of its own (fresh pages, page
 * faults, a copy) made only to be copied again into the answer's bytes. A perf profile of a batch
 * of 100 encryptions put that flattening at ~12% of the server's CPU. Each element of the list as
 * its own `JSON.stringify` stays small (ordinary young-generation strings) and is encoded straight
 * into the answer's one Buffer.
 */

/** A list at least this long, of objects, is written element by element. */
export const LONG_LIST = 16;

/** Whether one of `data`'s members is a long list of objects (what `jsonBytes` pays off for). */
export function holdsLongList(data: unknown): boolean {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return false;
  const members = data as Record<string, unknown>;
  for (const name in members) {
    const value = members[name];
    if (Array.isArray(value) && value.length >= LONG_LIST && typeof value[0] === 'object' && value[0] !== null) return true;
  }
  return false;
}

/**
 * An object JSON.stringify writes member by member from its own enumerable keys: a plain object
 * without `toJSON`. Anything else (a Date, a Buffer, a class instance) is stringified whole.
 */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return (prototype === Object.prototype || prototype === null) && typeof (value as { toJSON?: unknown }).toJSON !== 'function';
}

/**
 * The texts whose concatenation is `JSON.stringify(value)` (for a plain object or array, which an
 * answer always is): plain objects are opened member by member, arrays element by element, and
 * every element of an array and every other value is stringified on its own. Members JSON leaves
 * out (undefined, functions, symbols) are left out; such array elements are `null`, as there.
 */
export function jsonPieces(value: unknown, pieces: string[] = []): string[] {
  if (Array.isArray(value)) {
    pieces.push('[');
    for (let index = 0; index < value.length; index++) {
      if (index > 0) pieces.push(',');
      pieces.push(JSON.stringify(value[index]) ?? 'null');
    }
    pieces.push(']');
  } else if (isPlainObject(value)) {
    pieces.push('{');
    let first = true;
    for (const name of Object.keys(value)) {
      const member = value[name];
      const opened = Array.isArray(member) || isPlainObject(member);
      const text = opened ? undefined : JSON.stringify(member);
      if (!opened && text === undefined) continue;
      pieces.push(`${first ? '' : ','}${JSON.stringify(name)}:`);
      first = false;
      if (opened) jsonPieces(member, pieces);
      else pieces.push(text as string);
    }
    pieces.push('}');
  } else {
    pieces.push(JSON.stringify(value) ?? 'null');
  }
  return pieces;
}

/** `JSON.stringify(value)` and a newline as UTF-8, written from its pieces into one Buffer. */
export function jsonBytes(value: unknown): Buffer {
  const pieces = jsonPieces(value);
  let length = 1;
  for (const piece of pieces) length += Buffer.byteLength(piece);
  const bytes = Buffer.allocUnsafe(length);
  let offset = 0;
  for (const piece of pieces) offset += bytes.write(piece, offset);
  bytes[offset] = 0x0a;
  return bytes;
}
