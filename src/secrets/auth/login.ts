import type { SecretsContext } from '../context.js';
import type { HandlerRequest, LogicalResponse } from '../framework/types.js';
import { effectiveTtls } from '../leases/ttl.js';
import { MountStorage } from '../storage/mount-storage.js';
import type { TokenEntry } from '../tokens/token-store.js';
import { readRole, roleOfPath, tokenBackendStorage } from '../tokens/roles.js';
import { badRequest } from '../../core/errors.js';
import type { TokenSettings } from './token-settings.js';
import { upstream500 } from '../framework/errors.js';

/**
 * Who a login says the caller is, for the identity store: the method's name for the caller (the
 * user, the role's `user_claim` value, the role id…) and the metadata the method reports for the
 * alias (JWT `claim_mappings`, for instance). The identity store links it to an entity alias on the
 * login's mount (creating alias and entity on first sight) and the token records the entity id.
 */
export interface LoginAlias {
  name: string;
  metadata: Record<string, string>;
  /**
   * Group names the method reports (a JWT role's `groups_claim` values): the entity joins the
   * external groups whose alias on this mount has one of these names, and leaves the others.
   */
  groups?: string[];
}

/**
 * The answer to a successful login: a new token from the method's settings, recorded with the
 * login path (`auth/userpass/login/bob`) and named after the mount (`userpass-bob`).
 */
export function loginResponse(
  context: SecretsContext,
  request: HandlerRequest,
  login: { settings: TokenSettings; meta: Record<string, string>; displayName?: string; alias?: LoginAlias },
): LogicalResponse {
  // As the real core does: the mount path with '/' as '-' before the method's display name, one
  // trailing '-' dropped, and no other change (':' and spaces in a JWT claim stay as they are).
  const source = request.mount.path.replace(/^auth\//, '').replace(/\//g, '-');
  // Linked first: a disabled entity refuses the login before any token exists.
  const linked = login.alias ? context.identity.linkLogin(request.mount.accessor, login.alias) : undefined;
  const { token, ttl, warnings } = context.tokens.issueLogin({
    requestPath: `${request.mount.path}${request.path}`,
    mountConfig: request.mount.config,
    displayName: `${source}${login.displayName ?? ''}`.replace(/-$/, ''),
    meta: login.meta,
    settings: login.settings,
    entityId: linked?.entityId,
  });
  return { data: null, auth: context.tokens.authBlock(token, ttl, linked?.identityPolicies), warnings };
}

/**
 * A login token's limits as its auth method sets them now: the user's or role's settings within
 * the mount's TTLs; for a token created against a token role, that role's period and explicit
 * maximum. Undefined for other tokens (or when their auth method is gone).
 */
export function loginLimits(context: SecretsContext, token: TokenEntry): { ttl: number; maxTtl: number; period: number } | undefined {
  const roleName = roleOfPath(token.path);
  if (roleName !== undefined) {
    // A role's tokens renew with the role's current period and explicit maximum, as for real.
    const role = readRole(tokenBackendStorage(context.store.db), roleName);
    if (!role) throw upstream500(badRequest(`original token role ${JSON.stringify(roleName)} could not be found, not renewing`));
    return { ttl: token.ttlSeconds, maxTtl: role.token_explicit_max_ttl, period: role.token_period };
  }
  if (!token.path.startsWith('auth/') || token.path.startsWith('auth/token/')) return undefined;
  const mount = context.authMounts.longestPrefix(token.path.slice('auth/'.length));
  const renewLogin = mount && context.backend(mount.type)?.renewLogin;
  if (!mount || !renewLogin) return undefined;
  const settings = renewLogin(token, new MountStorage(context.store.db, mount.uuid));
  const ttls = effectiveTtls(mount.config);
  return {
    ttl: settings.ttl > 0 ? Math.min(settings.ttl, ttls.maxTtl) : ttls.defaultTtl,
    maxTtl: settings.maxTtl > 0 ? Math.min(settings.maxTtl, ttls.maxTtl) : ttls.maxTtl,
    period: settings.period,
  };
}
