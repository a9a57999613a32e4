import { randomInt } from 'node:crypto';
import { HclSyntaxError, itemsFromJson, parseHcl, type HclItem, type HclValue } from '../acl/hcl.js';

/**
 * Password policies as the secrets API writes them:
 *
 *   length = 20
 *   rule "charset" { charset = "abcdefghijklmnopqrstuvwxyz" min-chars = 1 }
 *
 * A password is `length` characters from the union of the charsets, with at least `min-chars`
 * from each rule's charset.
 */
export interface CharsetRule {
  charset: string;
  minChars: number;
}

export interface PasswordPolicy {
  length: number;
  rules: CharsetRule[];
}

const MIN_LENGTH = 4;
const MAX_LENGTH = 100;

/** What a connection or role uses without a named policy: 20 of [a-zA-Z0-9-], one of each class. */
export const DEFAULT_PASSWORD_POLICY: PasswordPolicy = {
  length: 20,
  rules: [
    { charset: 'abcdefghijklmnopqrstuvwxyz', minChars: 1 },
    { charset: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', minChars: 1 },
    { charset: '0123456789', minChars: 1 },
    { charset: '-', minChars: 1 },
  ],
};

export class PasswordPolicyError extends Error {}

const numberOf = (value: HclValue, what: string): number => {
  if (value.kind === 'number' && Number.isInteger(value.value)) return value.value;
  if (value.kind === 'string' && /^\d+$/.test(value.value)) return Number(value.value);
  throw new PasswordPolicyError(`${what} must be an integer`);
};

/**
 * A `rule` item as (type, body) pairs: HCL writes `rule "charset" { … }`; JSON writes
 * `"rule": {"charset": {…}}` or a list of such objects.
 */
function rulesOf(item: HclItem): { kind: string; body: HclValue }[] {
  const kind = item.keys[1]?.text;
  if (kind !== undefined) return [{ kind, body: item.value }];
  const objects = item.value.kind === 'list' ? item.value.items : [item.value];
  return objects.flatMap((object) => {
    if (object.kind !== 'object') throw new PasswordPolicyError('a rule must be a block');
    return object.items.map((child) => ({ kind: child.keys[0]?.text ?? '', body: child.value }));
  });
}

function ruleOf({ kind, body }: { kind: string; body: HclValue }): CharsetRule {
  if (kind !== 'charset') throw new PasswordPolicyError(`unrecognized rule type ${JSON.stringify(kind)}`);
  if (body.kind !== 'object') throw new PasswordPolicyError('a charset rule must be a block');
  let charset = '';
  let minChars = 0;
  for (const field of body.items) {
    const key = field.keys[0]?.text;
    if (key === 'charset' && field.value.kind === 'string') charset = field.value.value;
    else if (key === 'min-chars' || key === 'min_chars') minChars = numberOf(field.value, 'min-chars');
    else throw new PasswordPolicyError(`unrecognized charset rule field ${JSON.stringify(key ?? '')}`);
  }
  if ([...charset].length === 0) throw new PasswordPolicyError('charset cannot be empty');
  if (minChars < 0) throw new PasswordPolicyError('min-chars cannot be negative');
  return { charset: [...new Set(charset)].join(''), minChars };
}

/** Parses and checks a policy (HCL or JSON); throws PasswordPolicyError or HclSyntaxError. */
export function parsePasswordPolicy(text: string): PasswordPolicy {
  const trimmed = text.trim();
  const items = trimmed.startsWith('{') ? itemsFromJson(JSON.parse(trimmed) as Record<string, unknown>) : parseHcl(text);
  let length: number | undefined;
  const rules: CharsetRule[] = [];
  for (const item of items) {
    const key = item.keys[0]?.text;
    if (key === 'length') length = numberOf(item.value, 'length');
    else if (key === 'rule') rules.push(...rulesOf(item).map(ruleOf));
    else throw new PasswordPolicyError(`unrecognized field ${JSON.stringify(key ?? '')}`);
  }
  if (length === undefined) throw new PasswordPolicyError('length must be specified');
  if (length < MIN_LENGTH || length > MAX_LENGTH) throw new PasswordPolicyError(`length must be >= ${MIN_LENGTH} and <= ${MAX_LENGTH}`);
  if (rules.length === 0) throw new PasswordPolicyError('no rules specified');
  const required = rules.reduce((sum, rule) => sum + rule.minChars, 0);
  if (required > length) throw new PasswordPolicyError(`length (${length}) is less than the sum of the rules' min-chars (${required})`);
  return { length, rules };
}

/** Parses, turning syntax errors into policy errors so callers handle one kind. */
export function readPasswordPolicy(text: string): PasswordPolicy {
  try {
    return parsePasswordPolicy(text);
  } catch (error) {
    if (error instanceof PasswordPolicyError) throw error;
    if (error instanceof HclSyntaxError || error instanceof SyntaxError)
      throw new PasswordPolicyError(`unable to parse policy: ${error.message}`);
    throw error;
  }
}

const pick = (chars: string[]): string => chars[randomInt(chars.length)] as string;

/** A password that meets every rule: the required characters first, the rest at random, shuffled. */
export function generatePassword(policy: PasswordPolicy): string {
  const all = [...new Set(policy.rules.flatMap((rule) => [...rule.charset]))];
  const chars: string[] = [];
  for (const rule of policy.rules) {
    const charset = [...rule.charset];
    for (let count = 0; count < rule.minChars; count++) chars.push(pick(charset));
  }
  while (chars.length < policy.length) chars.push(pick(all));
  for (let index = chars.length - 1; index > 0; index--) {
    const other = randomInt(index + 1);
    [chars[index], chars[other]] = [chars[other] as string, chars[index] as string];
  }
  return chars.join('');
}
