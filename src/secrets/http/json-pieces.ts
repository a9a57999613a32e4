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

/** Texts up to this long are joined to their neighbours before they are written (see `JsonPieces`). */
const SHORT_TEXT = 64;

/** Printable ASCII but `"` and `\\`: text JSON writes unchanged, one byte a character. */
const PLAIN_TEXT = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * The texts whose concatenation is `JSON.stringify(value)` (for a plain object or array, which an
 * answer always is), with their UTF-8 length: plain objects and arrays are opened member by member
 * and element by element; a string that needs no escaping is written between its quotes as it is
 * (no copy of a 1.4 KB ciphertext into a quoted one, and none into JSON.stringify's growing
 * buffers, which allocated ~4 KB per batch item); every other value is stringified on its own.
 * Members JSON leaves out (undefined, functions, symbols) are left out; such array elements are
 * `null`, as there. One difference no answer meets: a `toJSON` is called without its member's name.
 */
export class JsonPieces {
  readonly texts: string[] = [];
  /** Whether each text is ASCII (so its bytes can be copied instead of encoded). */
  readonly ascii: boolean[] = [];
  byteLength = 0;
  /**
   * The short texts since the last long one, joined: the punctuation and member names around a
   * batch item's ciphertext become one text to write instead of about ten (each write into the
   * answer is a call into Node's C++, which cost more than the bytes it copied).
   */
  private short = '';
  private shortAscii = true;

  constructor(value: unknown) {
    this.value(value);
    this.endShort();
  }

  private add(text: string, ascii: boolean): void {
    this.byteLength += ascii ? text.length : Buffer.byteLength(text);
    if (text.length <= SHORT_TEXT) {
      this.short += text;
      this.shortAscii &&= ascii;
      return;
    }
    this.endShort();
    this.texts.push(text);
    this.ascii.push(ascii);
  }

  private endShort(): void {
    if (this.short === '') return;
    this.texts.push(this.short);
    this.ascii.push(this.shortAscii);
    this.short = '';
    this.shortAscii = true;
  }

  private value(value: unknown): void {
    if (typeof value === 'string') {
      if (PLAIN_TEXT.test(value)) {
        this.add('"', true);
        this.add(value, true);
        this.add('"', true);
      } else this.add(JSON.stringify(value), false);
    } else if (Array.isArray(value)) {
      this.add('[', true);
      for (let index = 0; index < value.length; index++) {
        if (index > 0) this.add(',', true);
        const element: unknown = value[index];
        if (element === undefined || typeof element === 'function' || typeof element === 'symbol') this.add('null', true);
        else this.value(element);
      }
      this.add(']', true);
    } else if (isPlainObject(value)) {
      this.add('{', true);
      let first = true;
      for (const name of Object.keys(value)) {
        const member = value[name];
        if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
        // Kept out when its toJSON gives nothing, as JSON.stringify keeps it out.
        const text =
          typeof member === 'object' && member !== null && !Array.isArray(member) && !isPlainObject(member) ? JSON.stringify(member) : '';
        if (text === undefined) continue;
        const plainName = PLAIN_TEXT.test(name);
        const key = plainName ? `"${name}":` : `${JSON.stringify(name)}:`;
        this.add(first ? key : `,${key}`, plainName);
        first = false;
        if (text === '') this.value(member);
        else this.add(text, false);
      }
      this.add('}', true);
    } else {
      const text = JSON.stringify(value) as string | undefined;
      this.add(text ?? 'null', typeof value !== 'object' || value === null);
    }
  }
}

/** `JSON.stringify(value)` and a newline as UTF-8, written from its pieces into one Buffer. */
export function jsonBytes(value: unknown): Buffer {
  const { texts, ascii, byteLength } = new JsonPieces(value);
  const bytes = Buffer.allocUnsafe(byteLength + 1);
  let offset = 0;
  for (let index = 0; index < texts.length; index++) {
    const text = texts[index] as string;
    offset += bytes.write(text, offset, ascii[index] ? 'latin1' : 'utf8');
  }
  bytes[offset] = 0x0a;
  return bytes;
}
