import type { Clock } from '../../core/clock.js';
import { badRequest } from '../../core/errors.js';
import { base62 } from '../../core/ids.js';
import type { DueSource, Scheduler } from '../../core/scheduler.js';
import type { DbOrTx } from '../../store/store.js';
import type { AuthBlock } from '../framework/types.js';
import type { LeaseManager } from '../leases/lease-manager.js';
import { cappedTtlWarning, effectiveTtls, SYSTEM_DEFAULT_TTL_SECONDS, SYSTEM_MAX_TTL_SECONDS } from '../leases/ttl.js';
import type { TokenSettings } from '../auth/token-settings.js';
import type { MountTable } from '../mounts/mount-table.js';
import { MountStorage } from '../storage/mount-storage.js';
import { RESPONSE_WRAPPING_POLICY } from '../acl/authorizer.js';
import { tokenKey, TokenStore, USES_EXHAUSTED, type TokenEntry } from './token-store.js';
import { entityAliasAllowed, hasPolicyRules, roleLimits, rolePolicies, type TokenRole } from './roles.js';

/** What `auth/token/create` asks for, after field conversion. */
export interface CreateTokenInput {
  id?: string;
  policies?: string[];
  meta?: Record<string, string>;
  noParent: boolean;
  noDefaultPolicy: boolean;
  renewable?: boolean;
  ttl?: number;
  explicitMaxTtl?: number;
  period?: number;
  displayName?: string;
  numUses?: number;
  type?: string;
  /** Only with a role that allows it: the token belongs to the entity of this alias on the token auth method. */
  entityAlias?: string;
}

/** A token a login issues: the auth method's settings, bounded by its mount's TTLs. */
export interface LoginTokenInput {
  /** `auth/userpass/login/bob`: recorded as the token's path (and how disabling the mount finds it). */
  requestPath: string;
  /** The mount's `config` (default_lease_ttl, max_lease_ttl). */
  mountConfig: Record<string, unknown>;
  /** `userpass-bob`: the mount path's name, then the method's display name when it has one. */
  displayName: string;
  meta: Record<string, string>;
  settings: TokenSettings;
  /** The identity store's entity the login was linked to. */
  entityId?: string;
}

export interface CreateContext {
  parent: TokenEntry;
  /** `create-orphan` makes orphans without sudo: that path is itself ACL-controlled. */
  orphanPath: boolean;
  /** Whether the caller holds sudo on the create path (root always does). */
  callerHasSudo: boolean;
  /** Recorded as the token's `path`. */
  requestPath: string;
  /** `auth/token/create/:role_name`: the role's rules decide policies, orphan, renewability and bounds. */
  role?: TokenRole;
}

/** Lower-cased, trimmed, de-duplicated, sorted; `root` swallows everything else, as the real service does. */
export function sanitizePolicies(policies: readonly string[], addDefault: boolean): string[] {
  const cleaned = policies.map((policy) => policy.trim().toLowerCase()).filter((policy) => policy !== '');
  if (cleaned.includes('root')) return ['root'];
  if (addDefault) cleaned.push('default');
  return [...new Set(cleaned)].sort();
}

/**
 * The new token's policies. Without a list it inherits the parent's as they are. A caller
 * without sudo may only name policies it holds (`default` included), and its child gets
 * `default` only when it has it; a sudo caller's child always gets it. `no_default_policy`
 * removes it in every case.
 */
function childPolicies(input: CreateTokenInput, parentPolicies: string[], privileged: boolean): string[] {
  let requested: string[];
  let addDefault: boolean;
  if (!input.policies?.length) {
    requested = parentPolicies;
    addDefault = false;
  } else if (!privileged) {
    requested = input.policies;
    const held = new Set(sanitizePolicies(parentPolicies, false));
    if (sanitizePolicies(requested, false).some((policy) => !held.has(policy))) throw badRequest('child policies must be subset of parent');
    addDefault = held.has('default');
  } else {
    requested = input.policies;
    addDefault = true;
  }
  const policies = sanitizePolicies(requested, addDefault && !input.noDefaultPolicy);
  return input.noDefaultPolicy ? policies.filter((policy) => policy !== 'default') : policies;
}

/** `token` or `token-<name>` with anything but letters, digits and dashes turned into dashes. */
function displayName(requested: string | undefined): string {
  if (!requested) return 'token';
  return `token-${requested}`.replace(/[^a-zA-Z0-9-]/g, '-').replace(/-+$/, '');
}

/**
 * Whether `token` can have no child tokens and no leases, so its revocation need not look for
 * them: a token whose only policy is the built-in `response-wrapping` and that belongs to no
 * entity (every wrapping token, `wrappingEntry`). Its ACL is then exactly that policy's two rules
 * (`cubbyhole/response`, `sys/wrapping/unwrap`), since identity policies come only with an entity
 * and no token's entity ever changes; a child is made only by `auth/token/create*` with the
 * caller as parent, and a lease is recorded against the caller only by `database/creds/*` and the
 * PKI issue paths, all of which that ACL refuses. A login token given `response-wrapping` alone
 * has an entity, whose policies may grant those paths: it is revoked the long way.
 */
export function ownsNothing(token: Pick<TokenEntry, 'policies' | 'entityId'>): boolean {
  return token.policies.length === 1 && token.policies[0] === RESPONSE_WRAPPING_POLICY && !token.entityId;
}

/**
 * Whether `token` was made by `wrappingEntry`: `ownsNothing`, with the empty display name no other
 * token has (a created token's is `token…`, a login's names its mount, the root token's `root`).
 */
export function isWrappingEntry(token: TokenEntry): boolean {
  return ownsNothing(token) && token.displayName === '';
}

/**
 * Every wrapping token's policy list, one frozen array: the ACL kept by a token's (frozen) policy
 * list (`Authorizer.aclFor`) then serves every unwrap, where each token's own new list was a miss
 * and a new WeakMap entry per unwrap. Entries' lists are never changed in place (kept rows are
 * frozen too); the type is the row's.
 */
const WRAPPING_POLICIES = Object.freeze([RESPONSE_WRAPPING_POLICY]) as string[];

/** Marks of rowless entries kept at most (`TokenService.rowless`): one per request under way is the most there can be. */
const ROWLESS_LIMIT = 1024;

export interface TokenDependencies {
  db: DbOrTx;
  clock: Clock;
  scheduler: Scheduler;
  leases: LeaseManager;
  mounts: MountTable;
  /** Whether a policy of this name exists (for the missing-policy warning). */
  policyExists(name: string): boolean;
}

/**
 * The token rules: creation (policy subset, sudo-only options, TTLs), renewal, use counting,
 * and revocation, which takes the token's children, its leases and its cubbyhole with it.
 */
export class TokenService {
  readonly store: TokenStore;
  /**
   * The current limits of the auth method that issued a login token (its user's or role's
   * token_ttl, token_max_ttl and period within the mount's TTLs), read again at every renewal as
   * the real service does; throws when the method refuses (the role is gone). Set by the plugin.
   */
  loginLimits?: (token: TokenEntry) => { ttl: number; maxTtl: number; period: number } | undefined;
  /** The entity of an `entity_alias` on the token auth method (found or made by the identity store). Set by the plugin. */
  entityOfAlias?: (alias: string) => string;

  /**
   * Entries `consumeUse` handed out after deleting their row at their last use (wrapping tokens):
   * the revocation that follows the request empties their cubbyhole and deletes no row again. A
   * mark is only a saving (a second delete of the row is a no-op), so a plain set does: the
   * revocation takes the mark out, and should one ever be left behind the set is emptied past
   * `ROWLESS_LIMIT` (a WeakSet's add cost about a microsecond a use).
   */
  private readonly rowless = new Set<TokenEntry>();
  /** The cubbyhole mounts' storages for the list of their uuids the mount table last gave (`cubbyholeStorages`). */
  private cubbyholes: { uuids: readonly string[]; storages: readonly MountStorage[] } | undefined;

  constructor(private readonly deps: TokenDependencies) {
    this.store = new TokenStore(deps.db, deps.clock);
  }

  create(input: CreateTokenInput, context: CreateContext): { token: TokenEntry; warnings: string[] } {
    const { parent, role } = context;
    const parentIsRoot = parent.policies.includes('root');
    const privileged = parentIsRoot || context.callerHasSudo;
    const warnings: string[] = [];

    if (input.id && !privileged) throw badRequest('root or sudo privileges required to specify token id');
    // With a role, the role alone decides whether the token has a parent.
    if (input.noParent && !role && !privileged) throw badRequest('root or sudo privileges required to create orphan token');
    if (input.period && !privileged) throw badRequest('root or sudo privileges required to create periodic token');
    if (input.numUses !== undefined && input.numUses < 0) throw badRequest('number of uses cannot be negative');
    if (input.type && input.type !== 'service' && input.type !== 'default') {
      throw badRequest(`token type "${input.type}" is not supported by understudy; only service tokens are`);
    }
    if (input.id && this.store.bySecret(input.id)) throw badRequest('cannot create a token with a duplicate ID');
    if (input.entityAlias) {
      if (!role) throw badRequest("'entity_alias' is only allowed in combination with token role");
      if (!entityAliasAllowed(role, input.entityAlias)) throw badRequest("invalid 'entity_alias' value");
    }

    const policies =
      role && hasPolicyRules(role)
        ? rolePolicies(role, input.policies, parent.policies, input.noDefaultPolicy).filter(
            (policy) => !input.noDefaultPolicy || policy !== 'default',
          )
        : childPolicies(input, parent.policies, privileged);
    // Wrapping tokens' policy is built in and theirs alone.
    if (policies.includes(RESPONSE_WRAPPING_POLICY)) throw badRequest(`cannot assign policy "${RESPONSE_WRAPPING_POLICY}"`);
    if (policies.includes('root') && !parentIsRoot) throw badRequest('root tokens may not be created without parent token being root');
    for (const policy of policies) {
      if (policy !== 'root' && policy !== 'default' && !this.deps.policyExists(policy)) warnings.push(`Policy "${policy}" does not exist`);
    }

    const limits = role
      ? roleLimits(role, input, warnings)
      : { period: input.period ?? 0, explicitMaxTtl: input.explicitMaxTtl ?? 0, numUses: input.numUses ?? 0 };
    const { ttl, explicitMaxTtl } = this.initialTtl({ ...input, ...limits }, policies, warnings);
    const now = this.deps.clock.nowMs();
    const orphan = role ? role.orphan : context.orphanPath || input.noParent;
    // A child belongs to its parent's entity, unless it names an alias of its own.
    const entityId = input.entityAlias && this.entityOfAlias ? this.entityOfAlias(input.entityAlias) : (parent.entityId ?? null);
    const secret = input.id || `hvs.${base62(24)}`;
    const token: TokenEntry = {
      id: tokenKey(secret),
      secret,
      accessor: base62(24),
      parentId: orphan ? null : parent.id,
      policies,
      displayName: displayName(input.displayName),
      meta: input.meta && Object.keys(input.meta).length > 0 ? input.meta : null,
      path: context.requestPath,
      numUses: limits.numUses,
      orphan,
      renewable: ttl > 0 && (input.renewable ?? true) && (role?.renewable ?? true),
      ttlSeconds: ttl,
      explicitMaxTtlSeconds: explicitMaxTtl,
      createdAt: new Date(now),
      expiresAt: ttl > 0 ? new Date(now + ttl * 1000) : null,
      lastRenewalAt: null,
      periodSeconds: limits.period,
      maxTtlSeconds: 0,
      boundCidrs: role?.token_bound_cidrs.length ? role.token_bound_cidrs : null,
      entityId,
    };
    this.store.insert(token);
    if (token.expiresAt) this.deps.scheduler.poke(token.expiresAt.getTime());
    return { token, warnings };
  }

  /**
   * Issues the token of a successful login: an orphan with the method's policies and metadata.
   * Its TTL is `token_ttl` (else the mount default), its cap `token_max_ttl` (else the mount
   * maximum), never above the mount maximum; a period replaces both, as for periodic tokens.
   */
  issueLogin(input: LoginTokenInput): { token: TokenEntry; ttl: number; warnings: string[] } {
    const { settings } = input;
    const mount = effectiveTtls(input.mountConfig);
    const warnings: string[] = [];
    let maxTtl = settings.maxTtl > 0 ? Math.min(settings.maxTtl, mount.maxTtl) : mount.maxTtl;
    if (settings.explicitMaxTtl > 0) maxTtl = Math.min(maxTtl, settings.explicitMaxTtl);
    let ttl = settings.period > 0 ? settings.period : settings.ttl > 0 ? settings.ttl : mount.defaultTtl;
    if (settings.explicitMaxTtl > 0 && ttl > settings.explicitMaxTtl) ttl = settings.explicitMaxTtl;
    if (settings.period === 0 && ttl > maxTtl) {
      warnings.push(cappedTtlWarning(ttl, maxTtl));
      ttl = maxTtl;
    }
    const now = this.deps.clock.nowMs();
    const secret = `hvs.${base62(24)}`;
    const token: TokenEntry = {
      id: tokenKey(secret),
      secret,
      accessor: base62(24),
      parentId: null,
      policies: sanitizePolicies(settings.policies, !settings.noDefaultPolicy),
      displayName: input.displayName,
      meta: Object.keys(input.meta).length > 0 ? input.meta : null,
      path: input.requestPath,
      numUses: settings.numUses,
      orphan: true,
      renewable: true,
      ttlSeconds: ttl,
      explicitMaxTtlSeconds: settings.explicitMaxTtl,
      createdAt: new Date(now),
      expiresAt: new Date(now + ttl * 1000),
      lastRenewalAt: null,
      periodSeconds: settings.period,
      maxTtlSeconds: settings.period > 0 ? 0 : maxTtl,
      boundCidrs: settings.boundCidrs.length > 0 ? settings.boundCidrs : null,
      entityId: input.entityId ?? null,
    };
    this.store.insert(token);
    this.deps.scheduler.poke(token.expiresAt?.getTime());
    return { token, ttl, warnings };
  }

  /**
   * A wrapping token, not yet stored: an orphan with the built-in `response-wrapping` policy, one
   * use, living `ttl` seconds (its explicit maximum too), recording the wrapped request's path.
   * Its row is its lookup record too (`ResponseWrapper.record`): creation TTL, time and path.
   */
  wrappingEntry(ttl: number, path: string, now: Date): TokenEntry {
    const secret = `hvs.${base62(24)}`;
    return {
      id: tokenKey(secret),
      secret,
      accessor: base62(24),
      parentId: null,
      policies: WRAPPING_POLICIES,
      displayName: '',
      meta: null,
      path,
      numUses: 1,
      orphan: true,
      renewable: false,
      ttlSeconds: ttl,
      explicitMaxTtlSeconds: ttl,
      createdAt: now,
      expiresAt: new Date(now.getTime() + ttl * 1000),
      lastRenewalAt: null,
      periodSeconds: 0,
      maxTtlSeconds: 0,
      boundCidrs: null,
    };
  }

  /**
   * Revokes the tokens a lease prefix covers, as their leases would be in the real service (whose
   * token lease ids are the creation path plus a hash): `auth/token/create/` takes every token
   * created there, `auth/token/create/web/` those of the role `web`.
   */
  async revokeUnderLeasePrefix(prefix: string): Promise<number> {
    const covered = this.store.withPathPrefix(prefix.replace(/\/$/, '')).filter((token) => `${token.path}/`.startsWith(prefix));
    for (const token of covered) if (this.store.get(token.id)) await this.revokeTree(token);
    return covered.length;
  }

  /** Revokes every token a login under `pathPrefix` (`auth/userpass/`) issued, with their children. */
  async revokeIssuedUnder(pathPrefix: string): Promise<number> {
    const issued = this.store.withPathPrefix(pathPrefix);
    for (const token of issued) if (this.store.get(token.id)) await this.revokeTree(token);
    return issued.length;
  }

  /** The requested TTL, bounded by the explicit max and the system max; 0 (never) only for root. */
  private initialTtl(input: CreateTokenInput, policies: string[], warnings: string[]): { ttl: number; explicitMaxTtl: number } {
    let explicitMaxTtl = input.explicitMaxTtl ?? 0;
    const period = input.period ?? 0;
    if (explicitMaxTtl > SYSTEM_MAX_TTL_SECONDS && !period) {
      warnings.push(
        `Explicit max TTL of ${explicitMaxTtl} seconds is greater than system/mount allowed value; ` +
          `value is being capped to ${SYSTEM_MAX_TTL_SECONDS} seconds`,
      );
      explicitMaxTtl = SYSTEM_MAX_TTL_SECONDS;
    }
    let ttl = period || input.ttl || 0;
    if (ttl === 0 && explicitMaxTtl > 0) ttl = explicitMaxTtl;
    if (ttl === 0) return { ttl: policies.includes('root') ? 0 : SYSTEM_DEFAULT_TTL_SECONDS, explicitMaxTtl };
    if (explicitMaxTtl > 0 && ttl > explicitMaxTtl) {
      warnings.push(`Requested TTL is higher than explicit max TTL; value being capped to ${explicitMaxTtl} seconds`);
      ttl = explicitMaxTtl;
    }
    if (!period && ttl > SYSTEM_MAX_TTL_SECONDS) {
      warnings.push(cappedTtlWarning(ttl, SYSTEM_MAX_TTL_SECONDS));
      ttl = SYSTEM_MAX_TTL_SECONDS;
    }
    return { ttl, explicitMaxTtl };
  }

  /** Extends the token's life by `increment` (or its period / creation TTL), within its maximum. */
  renew(token: TokenEntry, increment: number | undefined): { token: TokenEntry; ttl: number; warnings: string[] } {
    if (!token.expiresAt || !token.renewable) throw badRequest('lease is not renewable');
    const now = this.deps.clock.nowMs();
    const warnings: string[] = [];
    let ttl: number;
    const method = this.loginLimits?.(token);
    const period = method ? method.period : token.periodSeconds;
    if (period > 0) {
      ttl = period;
    } else {
      // The tighter of the token's explicit maximum and its auth method's cap (login tokens).
      const caps = [token.explicitMaxTtlSeconds, method ? method.maxTtl : token.maxTtlSeconds].filter((cap) => cap > 0);
      const maxTtl = caps.length > 0 ? Math.min(...caps) : SYSTEM_MAX_TTL_SECONDS;
      const remainingMax = Math.floor((token.createdAt.getTime() + maxTtl * 1000 - now) / 1000);
      if (remainingMax <= 0) throw badRequest('past the max TTL, cannot renew');
      const requested = increment && increment > 0 ? increment : (method?.ttl ?? token.ttlSeconds);
      if (requested > remainingMax) warnings.push(cappedTtlWarning(requested, remainingMax));
      ttl = Math.min(requested, remainingMax);
    }
    const patch = { expiresAt: new Date(now + ttl * 1000), lastRenewalAt: new Date(now) };
    this.store.update(token.id, patch);
    this.deps.scheduler.poke(patch.expiresAt.getTime());
    return { token: { ...token, ...patch }, ttl, warnings };
  }

  /**
   * Counts one use of a use-limited token. Returns the entry as the request sees it and whether
   * that was the last use (the caller revokes the token once the request is done).
   */
  consumeUse(token: TokenEntry): { token: TokenEntry; lastUse: boolean } {
    if (token.numUses <= 0) return { token, lastUse: false };
    const left = token.numUses - 1;
    const consumed = { ...token, numUses: left };
    if (left === 0 && ownsNothing(token)) {
      // Its revocation is its row and its cubbyhole (`revokeTree`): the row goes now, which refuses
      // the token to every later lookup as the used-up mark would, and spares that update.
      this.store.delete([token.id]);
      if (this.rowless.size >= ROWLESS_LIMIT) this.rowless.clear();
      this.rowless.add(consumed);
    } else {
      this.store.setUses(token.id, left === 0 ? USES_EXHAUSTED : left);
    }
    return { token: consumed, lastUse: left === 0 };
  }

  /** Revokes the token and every descendant, their cubbyholes and their leases. */
  async revokeTree(token: TokenEntry): Promise<void> {
    if (ownsNothing(token)) {
      // Nothing can hang under it (see `ownsNothing`): its row and its cubbyhole are all there is.
      // Taking the mark out tells whether the row is gone already.
      if (!this.rowless.delete(token)) this.store.delete([token.id]);
      this.destroyCubbyholes([token.accessor]);
      return;
    }
    const tree = this.store.tree(token);
    this.store.delete(tree.map((entry) => entry.id));
    this.destroyCubbyholes(tree.map((entry) => entry.accessor));
    await this.deps.leases.revokeForTokens(tree.map((entry) => entry.id));
  }

  /** Revokes only this token; its children become orphans. */
  async revokeOrphan(token: TokenEntry): Promise<void> {
    for (const child of this.store.children(token.id)) this.store.update(child.id, { parentId: null, orphan: true });
    this.store.delete([token.id]);
    this.destroyCubbyholes([token.accessor]);
    await this.deps.leases.revokeForTokens([token.id]);
  }

  /** Every cubbyhole mount keeps a token's entries under its accessor. */
  private destroyCubbyholes(accessors: readonly string[]): void {
    const cubbyholes = this.cubbyholeStorages();
    for (const accessor of accessors) for (const storage of cubbyholes) storage.deletePrefix(`${accessor}/`);
  }

  /**
   * The storage of each cubbyhole mount, made again only when the mount table gives another list
   * (it keeps one until a mount write or a new store generation; inside a transaction, a new one each time).
   */
  private cubbyholeStorages(): readonly MountStorage[] {
    const uuids = this.deps.mounts.uuidsOfType('cubbyhole');
    if (this.cubbyholes?.uuids !== uuids) {
      this.cubbyholes = { uuids, storages: uuids.map((uuid) => new MountStorage(this.deps.db, uuid)) };
    }
    return this.cubbyholes.storages;
  }

  /**
   * The `auth` block of create and renew responses; `leaseDuration` is the TTL just granted. A
   * login's block also names the policies its entity gives (`identity_policies`), which join
   * `policies` as in the real service.
   */
  authBlock(token: TokenEntry, leaseDuration: number, identityPolicies: readonly string[] = []): AuthBlock {
    const all = identityPolicies.length > 0 ? [...new Set([...token.policies, ...identityPolicies])].sort() : token.policies;
    return {
      // Every path that answers an auth block was handed the token value or just made it.
      client_token: token.secret ?? '',
      accessor: token.accessor,
      policies: all,
      token_policies: token.policies,
      ...(identityPolicies.length > 0 ? { identity_policies: [...identityPolicies] } : {}),
      metadata: token.meta,
      lease_duration: leaseDuration,
      renewable: token.renewable,
      entity_id: token.entityId ?? '',
      token_type: 'service',
      orphan: token.orphan,
      mfa_requirement: null,
      num_uses: Math.max(0, token.numUses),
    };
  }

  /** Expired tokens, for the scheduler: each is revoked with its children, leases and cubbyhole. */
  dueSource(): DueSource {
    return {
      name: 'tokens',
      next: () => {
        const token = this.store.nextExpiring();
        if (!token?.expiresAt) return undefined;
        const at = token.expiresAt.getTime();
        return {
          at,
          run: async () => {
            const current = this.store.get(token.id);
            const subject = token.accessor;
            if (!current?.expiresAt || current.expiresAt.getTime() > this.deps.clock.nowMs()) {
              return { at: new Date(at).toISOString(), kind: 'token-expiry', subject, outcome: 'done', detail: 'no longer due' };
            }
            const revoked = this.store.tree(current).length;
            await this.revokeTree(current);
            return {
              at: new Date(at).toISOString(),
              kind: 'token-expiry',
              subject,
              outcome: 'done',
              detail: `revoked ${revoked} token(s)`,
            };
          },
        };
      },
    };
  }
}
