import { POLICY_DENIED } from '../framework/errors.js';
import type { Operation } from '../framework/types.js';
import type { TokenEntry } from '../tokens/token-store.js';
import { Acl } from './acl.js';
import type { PolicyStore } from './policy-store.js';
import { parsePolicy, type ParsedPolicy } from './policy.js';
import type { TemplateLookup } from './template.js';

/** What the ACL needs from the identity store: a token's entity's policies, templates and state. */
export interface IdentitySource {
  /** The entity's own policies and its groups' (direct and inherited); none for no or an unknown entity. */
  identityPolicies(entityId: string | null | undefined): string[];
  /** Whether the entity exists and is disabled (its tokens may do nothing). */
  isDisabled(entityId: string): boolean;
  /** Values of identity templates for the entity. */
  templateLookup(entityId: string): TemplateLookup;
  /** Changes with every identity write (and store replacement): rendered ACLs are compiled again then. */
  version(): string;
}

/** The built-in policy of wrapping tokens: read their own cubbyhole's answer, and unwrap it. */
export const RESPONSE_WRAPPING_POLICY = 'response-wrapping';
const RESPONSE_WRAPPING_RULES = parsePolicy(`
path "cubbyhole/response" { capabilities = ["create", "read"] }
path "sys/wrapping/unwrap" { capabilities = ["update"] }
`);

/** Compiled ACLs kept; past this many policy sets the cache starts again. */
const COMPILED_LIMIT = 1000;

const sameItems = <T>(a: readonly T[], b: readonly T[]) => a.length === b.length && a.every((item, index) => item === b[index]);

/** A token's ACL with everything it was made from, kept by the token's policy list (see `Authorizer.byPolicies`). */
interface KeptAcl {
  entityId: string | undefined;
  /** The identity version it was made at ('' for a token without an entity). */
  identityVersion: string;
  /** The policy names (the token's and its identity's) and what each was found to be (undefined: no such policy). */
  names: readonly string[];
  found: readonly (ParsedPolicy | undefined)[];
  acl: Acl;
}

/**
 * Decides what a token may do, from the policies it names. Policies that do not exist grant
 * nothing (a token may name a policy written later), and `root` grants everything.
 */
export class Authorizer {
  private readonly rootAcl = new Acl([], true);
  /**
   * ACLs by the policy names they were compiled from, with the parsed policies they came from: an
   * edited text parses to another object, so an entry is used only while every policy under it is
   * the one it was compiled from.
   */
  private readonly compiled = new Map<string, { parsed: readonly ParsedPolicy[]; acl: Acl }>();
  /**
   * ACLs by the policy list of the token they were made for. A request's token entry is a new
   * object each time, but its `policies` is the frozen list of the row the token row cache keeps
   * (one list per row until the row is written), so a request by a known token builds no key and
   * hashes no text. An entry is used only while what it was made from is unchanged: the entity,
   * the identity version (any identity write or store replacement moves it) and every policy it
   * names (the policy store finds them again; a write to the policy table drops what it kept).
   */
  private readonly byPolicies = new WeakMap<readonly string[], KeptAcl>();

  constructor(
    private readonly policies: PolicyStore,
    private readonly identity?: IdentitySource,
  ) {}

  /**
   * The token's ACL: its own policies and, evaluated on every request as in the real service,
   * those its entity and the entity's groups give. Templated rules are rendered for the entity;
   * such an ACL is kept per entity and identity version, so a request does not render again.
   */
  aclFor(token: Pick<TokenEntry, 'policies' | 'entityId'>): Acl {
    if (token.policies.includes('root')) return this.rootAcl;
    const entityId = token.entityId ?? undefined;
    const identityVersion = entityId !== undefined && this.identity !== undefined ? this.identity.version() : '';
    const kept = this.byPolicies.get(token.policies);
    if (kept !== undefined && kept.entityId === entityId && kept.identityVersion === identityVersion && this.findsSame(kept))
      return kept.acl;
    const fromIdentity = this.identity?.identityPolicies(entityId) ?? [];
    const names = fromIdentity.length > 0 ? [...new Set([...token.policies, ...fromIdentity])] : token.policies;
    const found = names.map((name) => this.policy(name));
    const parsed = found.filter((policy): policy is ParsedPolicy => policy !== undefined);
    const acl = this.compile(names, parsed, entityId, identityVersion);
    // Only a list nobody can change in place may stand for what it held (a row read inside a transaction is not frozen).
    if (Object.isFrozen(token.policies)) this.byPolicies.set(token.policies, { entityId, identityVersion, names, found, acl });
    return acl;
  }

  /** Whether every policy the kept ACL was made from is still the one found then. */
  private findsSame(kept: KeptAcl): boolean {
    for (let index = 0; index < kept.names.length; index++)
      if (this.policy(kept.names[index] as string) !== kept.found[index]) return false;
    return true;
  }

  private policy(name: string): ParsedPolicy | undefined {
    return name === RESPONSE_WRAPPING_POLICY ? RESPONSE_WRAPPING_RULES : this.policies.parsed(name);
  }

  /** The ACL of these policies, kept per policy set (and per entity and identity version when a rule is templated). */
  private compile(names: readonly string[], parsed: readonly ParsedPolicy[], entityId: string | undefined, identityVersion: string): Acl {
    const templated = entityId !== undefined && this.identity !== undefined && parsed.some((policy) => policy.templated.length > 0);
    const key = templated ? `${names.join('\n')}\n#${entityId}@${identityVersion}` : names.join('\n');
    const known = this.compiled.get(key);
    if (known && sameItems(known.parsed, parsed)) return known.acl;
    const acl = new Acl(parsed, false, templated && entityId !== undefined ? this.identity?.templateLookup(entityId) : undefined);
    if (this.compiled.size >= COMPILED_LIMIT) this.compiled.clear();
    this.compiled.set(key, { parsed, acl });
    return acl;
  }

  /**
   * Throws the policy 403 unless the token may perform `operation` on `path` (full path after
   * `/v1/`) with the wrapping TTL asked for (0: none).
   */
  authorize(token: TokenEntry, path: string, operation: Operation, needsSudo: boolean, wrapTtl = 0): void {
    // A disabled entity's tokens may do nothing, root or not.
    if (token.entityId && this.identity?.isDisabled(token.entityId)) throw POLICY_DENIED;
    if (!this.aclFor(token).allows(path, operation, needsSudo, wrapTtl)) throw POLICY_DENIED;
  }

  hasSudo(token: TokenEntry, path: string): boolean {
    return this.aclFor(token).hasSudo(path);
  }
}
