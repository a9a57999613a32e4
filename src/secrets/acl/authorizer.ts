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

/**
 * Decides what a token may do, from the policies it names. Policies that do not exist grant
 * nothing (a token may name a policy written later), and `root` grants everything.
 */
export class Authorizer {
  constructor(private readonly policies: PolicyStore) {}

  aclFor(token: Pick<TokenEntry, 'policies'>): Acl {
    if (token.policies.includes('root')) return new Acl([], true);
    const parsed = token.policies
      .map((name) => (name === RESPONSE_WRAPPING_POLICY ? RESPONSE_WRAPPING_RULES : this.policies.parsed(name)))
      .filter((policy): policy is ParsedPolicy => policy !== undefined);
    return new Acl(parsed);
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
