import { ApiError } from '../../core/errors.js';
import { parseDurationSeconds } from '../../core/duration.js';
import type { FieldSpec } from './types.js';

const TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** Go's strconv.ParseBool, which the secrets API uses for booleans in strings and `?list=`. */
export function parseBool(value: string): boolean | undefined {
  if (TRUE.has(value)) return true;
  if (FALSE.has(value)) return false;
  return undefined;
}

const conversionError = (name: string, value: unknown, type: string) =>
  new ApiError(400, `Field validation failed: error converting input ${JSON.stringify(value)} for field "${name}": expected ${type}`);

/**
 * The one reader of every duration field in the secrets tree: seconds or a Go-style string, within
 * the real service's range (see MAX_DURATION_MS); anything else is the field's 400.
 */
export function readDurationField(name: string, value: unknown): number {
  try {
    return parseDurationSeconds(value);
  } catch {
    throw conversionError(name, value, 'a duration');
  }
}

/**
 * Lone UTF-16 surrogates become U+FFFD, as Go's JSON decoder makes them in the real service:
 * JSON allows `"\ud800"`, but no UTF-8 encoder (X.509 names, URLs) can write it.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
export const wellFormed = (text: string) => text.replace(LONE_SURROGATE, '\uFFFD');

type Scalar = string | number | boolean;
const isScalar = (value: unknown): value is Scalar => typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';

/** List items as strings; objects, arrays and nulls inside a list do not convert. */
function stringItems(name: string, items: unknown[], type: string): string[] {
  if (!items.every(isScalar)) throw conversionError(name, items, type);
  return items.map((item) => wellFormed(String(item)));
}

function coerce(name: string, spec: FieldSpec, value: unknown): unknown {
  switch (spec.type) {
    case 'string':
      if (typeof value === 'string') return wellFormed(value);
      if (typeof value === 'number' || typeof value === 'boolean') return String(value);
      throw conversionError(name, value, 'a string');
    case 'bool': {
      if (typeof value === 'boolean') return value;
      const parsed = typeof value === 'string' ? parseBool(value) : typeof value === 'number' ? value !== 0 : undefined;
      if (parsed === undefined) throw conversionError(name, value, 'a boolean');
      return parsed;
    }
    case 'int': {
      const parsed = typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;
      // Past 2^53 a JSON number no longer names one integer (the real service's 64-bit ints overflow there too).
      if (typeof parsed !== 'number' || !Number.isSafeInteger(parsed)) throw conversionError(name, value, 'an integer');
      return parsed;
    }
    case 'duration':
      return readDurationField(name, value);
    case 'commaStringSlice':
      if (typeof value === 'string')
        return value === ''
          ? []
          : wellFormed(value)
              .split(',')
              .map((item) => item.trim())
              .filter((item) => item !== '');
      if (Array.isArray(value)) return stringItems(name, value, 'a list or a comma-separated string');
      throw conversionError(name, value, 'a list or a comma-separated string');
    case 'stringSlice':
      if (typeof value === 'string') return [wellFormed(value)];
      if (Array.isArray(value)) return stringItems(name, value, 'a list of strings');
      throw conversionError(name, value, 'a list of strings');
    case 'map':
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value;
      throw conversionError(name, value, 'a map');
    case 'kvPairs': {
      const entries = typeof value === 'object' && value !== null && !Array.isArray(value) ? Object.entries(value) : undefined;
      if (!entries?.every(([, entry]) => isScalar(entry))) throw conversionError(name, value, 'a map of strings');
      return Object.fromEntries(entries.map(([key, entry]) => [key, String(entry)]));
    }
    case 'any':
      return value;
  }
}

/**
 * Typed access to a request's fields. Values are converted once, up front, so a bad value is a
 * 400 before the handler runs; absent fields report their default through `get` and `false`
 * through `has`, which is how handlers tell "keep the stored value" from "set the default".
 */
export class FieldData {
  private readonly values = new Map<string, unknown>();

  constructor(
    private readonly specs: Record<string, FieldSpec>,
    raw: Record<string, unknown>,
  ) {
    for (const [name, spec] of Object.entries(specs)) {
      const value = raw[name];
      if (value === undefined || value === null) continue;
      this.values.set(name, coerce(name, spec, value));
    }
  }

  has(name: string): boolean {
    return this.values.has(name);
  }

  get<T = unknown>(name: string): T {
    if (this.values.has(name)) return this.values.get(name) as T;
    const spec = this.specs[name];
    if (!spec) throw new Error(`field "${name}" is not declared on this path`);
    // A copy only of an object, which a handler could change; a number or string is its own copy.
    const fallback = spec.default;
    return (typeof fallback === 'object' && fallback !== null ? structuredClone(fallback) : fallback) as T;
  }

  /** Throws the secrets API's 400 when a required field is absent. */
  require<T = unknown>(name: string): T {
    if (!this.values.has(name)) throw new ApiError(400, `missing ${name}`);
    return this.values.get(name) as T;
  }
}
