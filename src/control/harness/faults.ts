import { randomBytes } from 'node:crypto';
import { redactBody } from '../../core/redact.js';
import { invalid } from './errors.js';
import { globMatches } from './glob.js';
import type { FaultMark } from './journal.js';

/** A fault rule as `POST /_emulator/faults` takes it and `GET` shows it. */
export interface FaultRule {
  id: string;
  prefix: string | null;
  method: string | null;
  path: string | null;
  tokenAccessor: string | null;
  effect: FaultMark['effect'];
  status: number | null;
  /** The answer's body; null: the API's own error document for `status`. */
  body: unknown;
  headers: Record<string, string>;
  /** Real milliseconds to wait before the effect (or before the request goes on, for `delay`). */
  delayMs: number;
  probability: number;
  /** Applied at most this often, then the rule is spent; null: without end. */
  times: number | null;
  /** Matches to let through before the rule applies. */
  after: number;
  matched: number;
  applied: number;
  createdAt: string;
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'LIST']);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** An injected delay or hold longer than this is a mistake in the rule. */
export const MAX_DELAY_MS = 600_000;
const KNOWN = new Set([
  'prefix',
  'method',
  'path',
  'token-accessor',
  'status',
  'body',
  'headers',
  'delay',
  'reset',
  'timeout',
  'probability',
  'times',
  'after',
]);

const integerIn = (value: unknown, min: number, max: number): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;

function optionalText(body: Record<string, unknown>, name: string): string | null {
  const value = body[name];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value === '') throw invalid(`"${name}" must be a non-empty string`);
  return value;
}

function headersOf(value: unknown): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw invalid('"headers" must be an object of header names to values');
  const headers: Record<string, string> = {};
  for (const [name, text] of Object.entries(value)) {
    if (!HEADER_NAME.test(name)) throw invalid(`"headers" has an invalid header name ${JSON.stringify(name)}`);
    if ((typeof text !== 'string' && typeof text !== 'number') || /[\r\n]/.test(String(text)))
      throw invalid(`"headers.${name}" must be a string or number on one line`);
    headers[name.toLowerCase()] = String(text);
  }
  return headers;
}

/** Which effect a rule has: exactly one of status, reset, timeout, or a delay on its own. */
function effectOf(body: Record<string, unknown>): FaultMark['effect'] {
  const chosen = (['status', 'reset', 'timeout'] as const).filter((name) => body[name] !== undefined && body[name] !== false);
  if (chosen.length > 1) throw invalid(`give one effect, not ${chosen.map((name) => `"${name}"`).join(' and ')}`);
  if (chosen.length === 1) return chosen[0] as FaultMark['effect'];
  if (body['delay'] === undefined) throw invalid('give an effect: "status", "delay" (ms), "reset": true or "timeout": true');
  return 'delay';
}

/** A rule from a request body, or a 400 naming what is wrong. */
export function parseRule(input: unknown, now: Date): FaultRule {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw invalid('the body must be a JSON object');
  const body = input as Record<string, unknown>;
  const unknown = Object.keys(body).filter((name) => !KNOWN.has(name));
  if (unknown.length > 0) throw invalid(`unknown member ${JSON.stringify(unknown[0])}; known: ${[...KNOWN].join(', ')}`);
  const method = optionalText(body, 'method')?.toUpperCase() ?? null;
  if (method !== null && !METHODS.has(method)) throw invalid(`"method" must be one of ${[...METHODS].join(', ')}`);
  const prefix = optionalText(body, 'prefix');
  if (prefix !== null && !prefix.startsWith('/')) throw invalid('"prefix" must start with "/", such as "/api/v2" or "/v1"');
  const path = optionalText(body, 'path');
  if (path !== null && !path.startsWith('/')) throw invalid('"path" must be a glob starting with "/", such as "/v1/secret/**"');
  const effect = effectOf(body);
  if (effect === 'status' && !integerIn(body['status'], 200, 599)) throw invalid('"status" must be an integer from 200 to 599');
  for (const flag of ['reset', 'timeout'] as const)
    if (body[flag] !== undefined && typeof body[flag] !== 'boolean') throw invalid(`"${flag}" must be true or false`);
  const delay = body['delay'] ?? 0;
  if (!integerIn(delay, 0, MAX_DELAY_MS)) throw invalid(`"delay" must be milliseconds, an integer from 0 to ${MAX_DELAY_MS}`);
  if (effect !== 'status' && (body['body'] !== undefined || body['headers'] !== undefined))
    throw invalid('"body" and "headers" go with "status" only');
  const probability = body['probability'] ?? 1;
  if (typeof probability !== 'number' || !(probability > 0 && probability <= 1))
    throw invalid('"probability" must be a number above 0 and at most 1');
  const times = body['times'] ?? null;
  if (times !== null && !integerIn(times, 1, Number.MAX_SAFE_INTEGER)) throw invalid('"times" must be a positive integer');
  const after = body['after'] ?? 0;
  if (!integerIn(after, 0, Number.MAX_SAFE_INTEGER)) throw invalid('"after" must be a non-negative integer');
  return {
    id: `fault-${randomBytes(6).toString('hex')}`,
    prefix,
    method,
    path,
    tokenAccessor: optionalText(body, 'token-accessor'),
    effect,
    status: effect === 'status' ? (body['status'] as number) : null,
    body: body['body'] ?? null,
    headers: headersOf(body['headers']),
    delayMs: delay,
    probability,
    times,
    after,
    matched: 0,
    applied: 0,
    createdAt: now.toISOString(),
  };
}

export const isSpent = (rule: FaultRule): boolean => rule.times !== null && rule.applied >= rule.times;

/** A rule as `GET /_emulator/faults` shows it. */
export function ruleView(rule: FaultRule): Record<string, unknown> {
  return {
    id: rule.id,
    prefix: rule.prefix,
    method: rule.method,
    path: rule.path,
    'token-accessor': rule.tokenAccessor,
    effect: rule.effect,
    status: rule.status,
    // The rule answers with its body as given; the list shows it redacted, like the journal.
    body: rule.body === null ? null : redactBody(rule.body, 'platform'),
    headers: rule.headers,
    delay: rule.delayMs,
    probability: rule.probability,
    times: rule.times,
    after: rule.after,
    matched: rule.matched,
    applied: rule.applied,
    active: !isSpent(rule),
    'created-at': rule.createdAt,
  };
}

/** What a request is matched on. `subject` is asked for only when a rule names a token. */
export interface Candidate {
  method: string;
  path: string;
  subject(): string | null;
}

/** The fault rules, first match wins, in the order they were added. */
export class FaultRules {
  private rules: FaultRule[] = [];

  constructor(private readonly random: () => number = Math.random) {}

  get size(): number {
    return this.rules.length;
  }

  add(rule: FaultRule): void {
    this.rules.push(rule);
  }

  list(): readonly FaultRule[] {
    return this.rules;
  }

  remove(id: string): boolean {
    const before = this.rules.length;
    this.rules = this.rules.filter((rule) => rule.id !== id);
    return this.rules.length < before;
  }

  clear(): number {
    const removed = this.rules.length;
    this.rules = [];
    return removed;
  }

  /** The rule to apply to this request, counting the match (and the application) on it. */
  pick(candidate: Candidate): FaultRule | undefined {
    for (const rule of this.rules) {
      if (isSpent(rule) || !this.matches(rule, candidate)) continue;
      rule.matched += 1;
      if (rule.matched <= rule.after) continue;
      if (rule.probability < 1 && this.random() >= rule.probability) continue;
      rule.applied += 1;
      return rule;
    }
    return undefined;
  }

  private matches(rule: FaultRule, candidate: Candidate): boolean {
    if (rule.method !== null && rule.method !== candidate.method) return false;
    if (rule.prefix !== null && !candidate.path.startsWith(rule.prefix)) return false;
    if (rule.path !== null && !globMatches(rule.path, candidate.path)) return false;
    if (rule.tokenAccessor !== null && candidate.subject() !== rule.tokenAccessor) return false;
    return true;
  }
}
