import { badRequest, unprocessable } from '../../core/errors.js';

/** A binding as a request gives it; `pointer` is the entry's JSON pointer, for 422s. */
export interface TagBindingInput {
  key: string;
  value: string;
  pointer: string;
}

/** The most bindings one workspace or project carries (the real service's limit). */
export const MAX_BINDINGS = 10;
export const KEY_MAX = 128;
export const VALUE_MAX = 256;
/** Key prefixes the platform keeps for itself; compared without regard to case. */
export const RESERVED_KEY_PREFIXES = ['hc:'] as const;

const KEY = /^[A-Za-z0-9._:-]+$/;
const KEY_TEXT = 'may contain only letters, numbers, ".", ":", "-" and "_"';
const VALUE = /^[A-Za-z0-9 ._:/=+@-]*$/;
const VALUE_TEXT = 'may contain only letters, numbers, spaces and . _ : / = + @ -';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function readKey(raw: unknown, pointer: string): string {
  if (typeof raw !== 'string' || raw === '') throw unprocessable('key is required', `${pointer}/attributes/key`);
  if (raw.length > KEY_MAX) throw unprocessable(`key must be at most ${KEY_MAX} characters`, `${pointer}/attributes/key`);
  if (!KEY.test(raw)) throw unprocessable(`key ${KEY_TEXT}`, `${pointer}/attributes/key`);
  const reserved = RESERVED_KEY_PREFIXES.find((prefix) => raw.toLowerCase().startsWith(prefix));
  if (reserved)
    throw unprocessable(`key "${raw}" is reserved: keys starting with "${reserved}" belong to the platform`, `${pointer}/attributes/key`);
  return raw;
}

function readValue(raw: unknown, pointer: string): string {
  // go-tfe leaves an empty value out of the body; null means the same.
  if (raw === undefined || raw === null) return '';
  if (typeof raw !== 'string') throw unprocessable('value must be a string', `${pointer}/attributes/value`);
  if (raw.length > VALUE_MAX) throw unprocessable(`value must be at most ${VALUE_MAX} characters`, `${pointer}/attributes/value`);
  if (!VALUE.test(raw)) throw unprocessable(`value ${VALUE_TEXT}`, `${pointer}/attributes/value`);
  return raw;
}

/**
 * Reads `{"data": [{"type": "tag-bindings", "attributes": {"key", "value"}}]}` (the PATCH body, or
 * a `tag-bindings` relationship of a create or update) whose data array sits at `base`. A key
 * given twice is a 422 at its second entry.
 */
export function readTagBindings(document: unknown, base: string): TagBindingInput[] {
  const data = isObject(document) ? document['data'] : undefined;
  if (!Array.isArray(data)) throw unprocessable('tag-bindings must be a document with a data array', base);
  const seen = new Set<string>();
  return data.map((entry, index) => {
    const pointer = `${base}/${index}`;
    if (!isObject(entry) || (entry['type'] !== 'tag-bindings' && entry['type'] !== ''))
      throw unprocessable('each entry must have type "tag-bindings"', `${pointer}/type`);
    const attributes = isObject(entry['attributes']) ? entry['attributes'] : {};
    const key = readKey(attributes['key'], pointer);
    if (seen.has(key)) throw unprocessable(`key "${key}" is given more than once`, `${pointer}/attributes/key`);
    seen.add(key);
    return { key, value: readValue(attributes['value'], pointer), pointer };
  });
}

/** The 422 of a workspace or project left with more than the limit. */
export function checkCount(count: number, base: string): void {
  if (count > MAX_BINDINGS) throw unprocessable(`cannot exceed ${MAX_BINDINGS} bindings per resource`, base);
}

const TAGGED = /^filter\[tagged\]\[(\d{1,3})\]\[(key|value)\]$/;
/** More conditions than any workspace can carry bindings cannot match anything useful. */
const MAX_TAGGED = 20;

/**
 * `filter[tagged][n][key]` and `[value]`: every condition must hold; an empty or absent value
 * matches any value (the real client always sends `value`, empty for a key alone).
 */
export function readTaggedFilter(query: Record<string, unknown>): { key: string; value?: string }[] {
  const conditions = new Map<number, { key?: string; value?: string }>();
  for (const [name, raw] of Object.entries(query)) {
    const match = TAGGED.exec(name);
    if (!match) continue;
    const value: unknown = Array.isArray(raw) ? (raw as unknown[])[raw.length - 1] : raw;
    if (typeof value !== 'string') continue;
    const index = Number(match[1]);
    const condition = conditions.get(index) ?? {};
    condition[match[2] as 'key' | 'value'] = value;
    conditions.set(index, condition);
  }
  if (conditions.size > MAX_TAGGED)
    throw badRequest(`at most ${MAX_TAGGED} filter[tagged] conditions`, { title: 'bad request', parameter: 'filter[tagged]' });
  return [...conditions.entries()]
    .sort(([a], [b]) => a - b)
    .map(([index, { key, value }]) => {
      if (key === undefined || key === '')
        throw badRequest('each filter[tagged] condition needs a key', { title: 'bad request', parameter: `filter[tagged][${index}][key]` });
      return value === undefined || value === '' ? { key } : { key, value };
    });
}
