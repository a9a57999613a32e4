import { multierrorText } from '../framework/errors.js';
import { parseDurationSeconds } from '../../core/duration.js';
import { HclSyntaxError, itemsFromJson, parseHcl, type HclItem, type HclValue } from './hcl.js';

/** Capabilities as bits, so rules from several policies combine with a bitwise OR. */
export const CAPABILITY_BITS = {
  deny: 1,
  create: 2,
  read: 4,
  update: 8,
  delete: 16,
  list: 32,
  sudo: 64,
  patch: 128,
} as const;

export type Capability = keyof typeof CAPABILITY_BITS;

/** The order the real service lists capabilities in when it reports them. */
export const CAPABILITY_ORDER: readonly Capability[] = ['create', 'read', 'update', 'delete', 'list', 'sudo', 'patch', 'deny'];

/** The legacy `policy = "…"` shorthand and the capabilities each word stands for. */
const LEGACY_POLICIES: Record<string, Capability[]> = {
  deny: ['deny'],
  read: ['read', 'list'],
  write: ['create', 'read', 'update', 'delete', 'list'],
  sudo: ['create', 'read', 'update', 'delete', 'list', 'sudo'],
};

const TOP_LEVEL_KEYS = ['name', 'path'];
const PATH_KEYS = [
  'comment',
  'policy',
  'capabilities',
  'allowed_parameters',
  'denied_parameters',
  'required_parameters',
  'min_wrapping_ttl',
  'max_wrapping_ttl',
  'mfa_methods',
  'control_group',
];

export interface PathRule {
  /** The path as matched: a trailing `*` is stripped for prefix rules, kept when `+` is present. */
  path: string;
  isPrefix: boolean;
  hasSegmentWildcards: boolean;
  /** Bitmask of CAPABILITY_BITS; `deny` alone when denied. */
  capabilities: number;
  /** Seconds; a request on the path must ask for a wrapped answer at least this long (0: no rule). */
  minWrappingTtl: number;
  /** Seconds; a request on the path must ask for a wrapped answer at most this long (0: no rule). */
  maxWrappingTtl: number;
}

/**
 * A rule whose path holds identity templates (`{{identity.entity.id}}`): its path is known only
 * for a token's entity, so it is rendered and shaped when that token's ACL is built.
 */
export interface TemplatedRule {
  /** The path as written, templates included. */
  template: string;
  capabilities: number;
  minWrappingTtl: number;
  maxWrappingTtl: number;
}

export interface ParsedPolicy {
  rules: PathRule[];
  /** Rules with templated paths; empty for most policies. */
  templated: TemplatedRule[];
}

/** Whether a policy path holds an identity template. */
export const isTemplated = (path: string): boolean => path.includes('{{');

/** A rule's path as matched: leading `/` dropped, a trailing `*` made a prefix unless `+` segments are present. */
export function shapePath(key: string): Pick<PathRule, 'path' | 'isPrefix' | 'hasSegmentWildcards'> {
  let path = key.replace(/^\//, '');
  if (path.includes('+*')) throw new PolicyParseError(`path ${JSON.stringify(path)}: invalid use of wildcards ('+*' is forbidden)`);
  const hasSegmentWildcards = path === '+' || path.includes('/+') || path.startsWith('+/');
  let isPrefix = false;
  // With `+` segments the trailing `*` stays part of the pattern; the matcher handles it.
  if (path.endsWith('*') && !hasSegmentWildcards) {
    path = path.slice(0, -1);
    isPrefix = true;
  }
  return { path, isPrefix, hasSegmentWildcards };
}

export class PolicyParseError extends Error {}

function checkKeys(items: HclItem[], valid: string[], prefix = ''): void {
  const invalid = items
    .filter((item) => !valid.includes(item.keys[0]?.text ?? ''))
    .map((item) => `${prefix}invalid key "${item.keys[0]?.text ?? ''}" on line ${item.line}`);
  if (invalid.length > 0) throw new PolicyParseError(multierrorText(invalid));
}

function stringList(value: HclValue, what: string): string[] {
  if (value.kind === 'string') return [value.value];
  if (value.kind === 'list' && value.items.every((item) => item.kind === 'string')) {
    return value.items.map((item) => (item as { value: string }).value);
  }
  throw new PolicyParseError(`${what}: expected a list of strings`);
}

/** `path "x" { … }` in HCL and `{"path": {"x": {…}}}` in JSON both come down to (key, body) pairs. */
function pathEntries(items: HclItem[]): { key: string; body: HclValue }[] {
  const entries: { key: string; body: HclValue }[] = [];
  const fromObject = (value: HclValue) => {
    if (value.kind === 'object') for (const inner of value.items) entries.push({ key: inner.keys[0]?.text ?? '', body: inner.value });
    else if (value.kind === 'list') value.items.forEach(fromObject);
    else throw new PolicyParseError('path: expected an object');
  };
  for (const item of items) {
    if (item.keys[0]?.text !== 'path') continue;
    const label = item.keys[1];
    if (label) entries.push({ key: label.text, body: item.value });
    else fromObject(item.value);
  }
  return entries;
}

/** `min_wrapping_ttl` / `max_wrapping_ttl`: seconds as a number, or a duration string; 0 when absent. */
function wrappingTtl(item: HclItem | undefined, name: string): number {
  if (!item) return 0;
  const raw = item.value.kind === 'string' || item.value.kind === 'number' ? item.value.value : undefined;
  try {
    return parseDurationSeconds(raw);
  } catch {
    throw new PolicyParseError(`error parsing ${name}: time: invalid duration "${String(raw ?? item.value.kind)}"`);
  }
}

/** What a path block grants (capabilities, wrapping bounds); `key` names the path in error texts. */
function parseGrant(key: string, body: HclValue): Omit<PathRule, 'path' | 'isPrefix' | 'hasSegmentWildcards'> {
  if (body.kind !== 'object') throw new PolicyParseError(`path ${JSON.stringify(key)}: expected an object`);
  checkKeys(body.items, PATH_KEYS, `path ${JSON.stringify(key)}: `);
  const names: string[] = [];
  for (const item of body.items) {
    const field = item.keys[0]?.text;
    if (field === 'capabilities') names.push(...stringList(item.value, `path ${JSON.stringify(key)}: capabilities`));
    if (field === 'policy') {
      if (item.value.kind !== 'string') throw new PolicyParseError(`path ${JSON.stringify(key)}: policy: expected a string`);
      const expanded = LEGACY_POLICIES[item.value.value];
      if (!expanded) throw new PolicyParseError(`path ${JSON.stringify(key)}: invalid policy ${JSON.stringify(item.value.value)}`);
      names.push(...expanded);
    }
  }

  let capabilities = 0;
  for (const name of names) {
    if (!Object.hasOwn(CAPABILITY_BITS, name)) {
      throw new PolicyParseError(`path ${JSON.stringify(key)}: invalid capability ${JSON.stringify(name)}`);
    }
    const bit = CAPABILITY_BITS[name as Capability];
    if (name === 'deny') {
      capabilities = CAPABILITY_BITS.deny;
      break;
    }
    capabilities |= bit;
  }
  const field = (name: string) => body.items.find((item) => item.keys[0]?.text === name);
  const minWrappingTtl = wrappingTtl(field('min_wrapping_ttl'), 'min_wrapping_ttl');
  const maxWrappingTtl = wrappingTtl(field('max_wrapping_ttl'), 'max_wrapping_ttl');
  if (minWrappingTtl !== 0 && maxWrappingTtl !== 0 && maxWrappingTtl < minWrappingTtl) {
    throw new PolicyParseError('max_wrapping_ttl cannot be less than min_wrapping_ttl');
  }
  return { capabilities, minWrappingTtl, maxWrappingTtl };
}

function parseRule(key: string, body: HclValue): PathRule {
  const grant = parseGrant(key, body);
  return { ...shapePath(key), ...grant };
}

/**
 * Parses a policy in HCL or JSON. Errors carry the real service's text after
 * `failed to parse policy: `, which callers answer with a 400.
 */
export function parsePolicy(raw: string): ParsedPolicy {
  try {
    let items: HclItem[];
    const trimmed = raw.trim();
    if (trimmed.startsWith('{')) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(trimmed);
      } catch (error) {
        throw new PolicyParseError(`At 1:1: ${(error as Error).message}`);
      }
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new PolicyParseError('does not contain a root object');
      items = itemsFromJson(parsed as Record<string, unknown>);
    } else {
      items = parseHcl(raw);
    }
    checkKeys(items, TOP_LEVEL_KEYS);
    const rules: PathRule[] = [];
    const templated: TemplatedRule[] = [];
    for (const { key, body } of pathEntries(items)) {
      if (!isTemplated(key)) {
        rules.push(parseRule(key, body));
        continue;
      }
      // The capabilities are checked now; the path is shaped once a token's entity renders it.
      templated.push({ template: key, ...parseGrant(key, body) });
    }
    return { rules, templated };
  } catch (error) {
    if (error instanceof PolicyParseError || error instanceof HclSyntaxError) {
      throw new PolicyParseError(`failed to parse policy: ${error.message}`);
    }
    throw error;
  }
}

/** Capability names of a bitmask, in the service's order. */
export function capabilityNames(bits: number): Capability[] {
  if (bits & CAPABILITY_BITS.deny) return ['deny'];
  return CAPABILITY_ORDER.filter((name) => bits & CAPABILITY_BITS[name]);
}
