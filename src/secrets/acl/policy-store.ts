import { asc, eq, sql } from 'drizzle-orm';
import type { Clock } from '../../core/clock.js';
import { badRequest } from '../../core/errors.js';
import { perConnection } from '../../store/per-connection.js';
import { prepared } from '../../store/prepared.js';
import { deepFreeze, ReadCache } from '../../store/read-cache.js';
import { sqliteOf, type DbOrTx } from '../../store/store.js';
import { secretPolicies } from '../../store/tables.js';
import { RESPONSE_WRAPPING_POLICY } from './authorizer.js';
import { DEFAULT_POLICY } from './default-policy.js';
import { parsePolicy, PolicyParseError, type ParsedPolicy } from './policy.js';

/** Parsed policies by their text: tokens name the same few policies on every request. */
const parsedByText = new Map<string, ParsedPolicy>();
const PARSE_CACHE_LIMIT = 1000;

function parseCached(raw: string): ParsedPolicy {
  let parsed = parsedByText.get(raw);
  if (!parsed) {
    parsed = parsePolicy(raw);
    if (parsedByText.size >= PARSE_CACHE_LIMIT) parsedByText.clear();
    parsedByText.set(raw, parsed);
  }
  return parsed;
}

/** A non-root token's policies are read on every request. */
const policyText = prepared((db) =>
  db
    .select({ raw: secretPolicies.raw })
    .from(secretPolicies)
    .where(eq(secretPolicies.name, sql.placeholder('name')))
    .prepare(),
);

/**
 * Parsed policies by the name a token gives, kept per store connection: a non-root token's
 * policies are looked at on every request, and reading a policy's text and finding its parse by
 * that text (hashing all of it) cost more than the rest of the request's ACL check. Any write to
 * the policy table, on any path, drops them (`ReadCache`); a name that finds no policy is read again.
 */
const parsedByName = perConnection((sqlite) => new ReadCache<ParsedPolicy>(sqlite, 'secret_policy', ['secret_policies'], deepFreeze));

/** Policy names are case-insensitive: stored and compared lower-case, trimmed. */
export function policyName(name: string): string {
  return name.trim().toLowerCase();
}

/** ACL policies. `root` is built in and never stored; `default` is stored and editable. */
export class PolicyStore {
  private readonly kept: ReadCache<ParsedPolicy>;

  constructor(
    private readonly db: DbOrTx,
    private readonly clock: Clock,
  ) {
    this.kept = parsedByName(sqliteOf(db));
  }

  /** Stored policy names, sorted (the caller adds `root` where the listing shows it). */
  names(): string[] {
    return this.db
      .select({ name: secretPolicies.name })
      .from(secretPolicies)
      .orderBy(asc(secretPolicies.name))
      .all()
      .map((row) => row.name);
  }

  /** The policy's text; `root` has none and reads as an empty string. */
  raw(name: string): string | undefined {
    const key = policyName(name);
    if (key === 'root') return '';
    return policyText(this.db).get({ name: key })?.raw;
  }

  exists(name: string): boolean {
    return this.raw(name) !== undefined;
  }

  /** The parsed rules, or undefined for a policy that does not exist (tokens may name one). */
  parsed(name: string): ParsedPolicy | undefined {
    return this.kept.get(name, () => this.parsedNow(name));
  }

  private parsedNow(name: string): ParsedPolicy | undefined {
    const raw = this.raw(name);
    if (raw === undefined || policyName(name) === 'root') return undefined;
    return parseCached(raw);
  }

  /** Validates and stores; a parse error is the real service's 400. */
  put(name: string, raw: string): void {
    const key = policyName(name);
    if (key === 'root' || key === RESPONSE_WRAPPING_POLICY) throw badRequest(`cannot update "${key}" policy`);
    try {
      parseCached(raw);
    } catch (error) {
      if (error instanceof PolicyParseError) throw badRequest(error.message);
      throw error;
    }
    const updatedAt = this.clock.now();
    this.db
      .insert(secretPolicies)
      .values({ name: key, raw, updatedAt })
      .onConflictDoUpdate({ target: secretPolicies.name, set: { raw, updatedAt } })
      .run();
  }

  delete(name: string): void {
    const key = policyName(name);
    if (key === 'root' || key === RESPONSE_WRAPPING_POLICY) throw badRequest(`cannot delete "${key}" policy`);
    if (key === 'default') throw badRequest('cannot delete default policy');
    this.db.delete(secretPolicies).where(eq(secretPolicies.name, key)).run();
  }

  /** Puts the built-in `default` policy in place when missing (the seed runs this at every start). */
  ensureDefault(): void {
    if (!this.exists('default')) {
      this.db.insert(secretPolicies).values({ name: 'default', raw: DEFAULT_POLICY, updatedAt: this.clock.now() }).run();
    }
  }
}
