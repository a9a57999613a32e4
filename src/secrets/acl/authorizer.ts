import { POLICY_DENIED } from '../framework/errors.js';
import type { Operation } from '../framework/types.js';
import type { TokenEntry } from '../tokens/token-store.js';
import { Acl } from './acl.js';
import type { PolicyStore } from './policy-store.js';
import { parsePolicy, type ParsedPolicy } from './policy.js';

/** The built-in policy of wrapping tokens: read their own cubbyhole's answer, and unwrap it. */
export const RESPONSE_WRAPPING_POLICY = 'response-wrapping';
const RESPONSE_WRAPPING_RULES = parsePolicy(`
path "cubbyhole/response" { capabilities = ["create", "read"] }
path "sys/wrapping/unwrap" { capabilities = ["update"] }
`);

/** Compiled ACLs kept; past this many policy sets the cache starts again. */
const COMPILED_LIMIT = 1000;

const sameItems = <T>(a: readonly T[], b: readonly T[]) => a.length === b.length && a.every((item, index) => item === b[index]);

/**
 * Decides what a token may do, from the policies it names. Policies that do not exist grant
 * nothing (a token may name a policy written later), and `root` grants everything.
 */
export class Authorizer {
  private readonly rootAcl = new Acl([], true);
  /**
   * ACLs by the policy names they were compiled from, with the parsed policies they came from: a
   * policy's text is still read on every request, and an edited text parses to another object, so
   * an entry is used only while every policy under it is the one it was compiled from.
   */
  private readonly compiled = new Map<string, { parsed: readonly ParsedPolicy[]; acl: Acl }>();

  constructor(private readonly policies: PolicyStore) {}

  aclFor(token: Pick<TokenEntry, 'policies'>): Acl {
    if (token.policies.includes('root')) return this.rootAcl;
    const parsed = token.policies
      .map((name) => (name === RESPONSE_WRAPPING_POLICY ? RESPONSE_WRAPPING_RULES : this.policies.parsed(name)))
      .filter((policy): policy is ParsedPolicy => policy !== undefined);
    const key = token.policies.join('\n');
    const known = this.compiled.get(key);
    if (known && sameItems(known.parsed, parsed)) return known.acl;
    const acl = new Acl(parsed);
    if (this.compiled.size >= COMPILED_LIMIT) this.compiled.clear();
    this.compiled.set(key, { parsed, acl });
    return acl;
  }

  /**
   * Throws the policy 403 unless the token may perform `operation` on `path` (full path after
   * `/v1/`) with the wrapping TTL asked for (0: none).
   */
  authorize(token: TokenEntry, path: string, operation: Operation, needsSudo: boolean, wrapTtl = 0): void {
    if (!this.aclFor(token).allows(path, operation, needsSudo, wrapTtl)) throw POLICY_DENIED;
  }

  hasSudo(token: TokenEntry, path: string): boolean {
    return this.aclFor(token).hasSudo(path);
  }
}
