import { badRequest } from '../../../core/errors.js';
import { textOf } from '../../../core/json.js';
import { multierrorText } from '../../framework/errors.js';
import { FieldData } from '../../framework/fields.js';
import type { HandlerRequest } from '../../framework/types.js';

/** Reading the version-2 engine's inputs as the real engine does, with its error texts. */

/** `1h0m0s`, `-1s`, `0s`: a signed number of seconds as Go's time.Duration prints it. */
export function goDuration(seconds: number): string {
  if (seconds === 0) return '0s';
  const whole = Math.abs(Math.trunc(seconds));
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  const text = hours > 0 ? `${hours}h${minutes}m${whole % 60}s` : minutes > 0 ? `${minutes}m${whole % 60}s` : `${whole}s`;
  return seconds < 0 ? `-${text}` : text;
}

/** Go's mapstructure weak decoding of `options.cas` to an integer. */
function casValue(raw: unknown): number {
  if (typeof raw === 'number' && Number.isInteger(raw)) return raw;
  if (typeof raw === 'boolean') return raw ? 1 : 0;
  if (typeof raw === 'string' && /^-?\d+$/.test(raw.trim())) return Number(raw.trim());
  if (raw === '') return 0;
  throw badRequest('error parsing check-and-set parameter');
}

export function checkAndSet(options: Record<string, unknown> | undefined, casRequired: boolean, current: number): void {
  if (options && 'cas' in options) {
    if (casValue(options['cas']) !== current) throw badRequest('check-and-set parameter did not match the current version');
  } else if (casRequired) {
    throw badRequest('check-and-set parameter required for this call');
  }
}

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]*$/u;
const CUSTOM_PREFIX = 'custom_metadata validation failed';

/** `custom_metadata` as strings, with the real service's limits and its multierror text. */
export function customMetadata(raw: Record<string, unknown>, dropNulls: boolean): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (value === null && dropNulls) continue;
    if (value !== null && typeof value === 'object') {
      throw badRequest(`${CUSTOM_PREFIX}: '${key}' expected type 'string', got unconvertible type`);
    }
    pairs[key] = textOf(value);
  }
  const count = Object.keys(pairs).length;
  if (count > 64) throw badRequest(multierrorText([`${CUSTOM_PREFIX}: payload must contain at most 64 keys, provided ${count}`]));
  const problems: string[] = [];
  for (const [key, value] of Object.entries(pairs)) {
    const keyLength = Buffer.byteLength(key);
    const valueLength = Buffer.byteLength(value);
    const quoted = JSON.stringify(key);
    if (keyLength === 0 || keyLength > 128) {
      problems.push(`${CUSTOM_PREFIX}: length of key ${quoted} is ${keyLength} but must be 0 < len(key) <= 128`);
    }
    if (valueLength === 0 || valueLength > 512) {
      problems.push(`${CUSTOM_PREFIX}: length of value for key ${quoted} is ${valueLength} but must be 0 < len(value) <= 512`);
    }
    if (!PRINTABLE.test(key)) problems.push(`${CUSTOM_PREFIX}: key ${quoted} (${key}) contains unprintable characters`);
    if (!PRINTABLE.test(value)) problems.push(`${CUSTOM_PREFIX}: value for key ${quoted} contains unprintable characters`);
  }
  if (problems.length > 0) throw badRequest(multierrorText(problems));
  return pairs;
}

/** `versions` as a list of integers or a comma-separated string; none is the real service's 400. */
export function versionList(request: HandlerRequest): number[] {
  const raw = request.data['versions'];
  const items: unknown[] =
    typeof raw === 'string'
      ? raw
          .split(',')
          .map((item) => item.trim())
          .filter((item) => item !== '')
      : Array.isArray(raw)
        ? raw
        : raw === undefined || raw === null
          ? []
          : [raw];
  const versions = items.map((item) => (typeof item === 'string' && /^\d+$/.test(item) ? Number(item) : item));
  if (!versions.every((version): version is number => typeof version === 'number' && Number.isSafeInteger(version) && version >= 0)) {
    const input = JSON.stringify(raw);
    throw badRequest(`Field validation failed: error converting input ${input} for field "versions": expected a list of integers`);
  }
  if (versions.length === 0) throw badRequest('no version number provided');
  return versions;
}

/** Keeps a map's shape, with every leaf (and every map below `depth`, when set) replaced by null. */
export function subkeys(value: Record<string, unknown>, depth: number, level = 1): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(value).map(([key, child]) => {
      const isMap = typeof child === 'object' && child !== null && !Array.isArray(child);
      return [key, isMap && (depth === 0 || level < depth) ? subkeys(child as Record<string, unknown>, depth, level + 1) : null];
    }),
  );
}

/** RFC 7386: `patch` merged into `target` (null removes a key). */
export function mergePatch(target: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const result = { ...target };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else if (typeof value === 'object' && !Array.isArray(value)) {
      const base = result[key];
      const nested = typeof base === 'object' && base !== null && !Array.isArray(base) ? (base as Record<string, unknown>) : {};
      result[key] = mergePatch(nested, value as Record<string, unknown>);
    } else result[key] = value;
  }
  return result;
}

/** The real service keeps an unsigned count, so a negative one would wrap; it is refused instead. */
export function maxVersions(fields: FieldData): number {
  const value = fields.get<number>('max_versions');
  if (value < 0) throw badRequest('max_versions must not be negative');
  return value;
}

/** A duration that may be negative (`-1s`, `-1`): the mount's way to disable expiry. */
export function signedDuration(raw: unknown): number {
  const text = typeof raw === 'string' ? raw.trim() : raw;
  const negative = (typeof text === 'string' && text.startsWith('-')) || (typeof text === 'number' && text < 0);
  const magnitude = typeof text === 'string' && negative ? text.slice(1) : typeof text === 'number' ? Math.abs(text) : text;
  const parsed = new FieldData({ delete_version_after: { type: 'duration', description: '' } }, { delete_version_after: magnitude });
  const seconds = parsed.get<number>('delete_version_after');
  return negative ? -1 : seconds;
}
