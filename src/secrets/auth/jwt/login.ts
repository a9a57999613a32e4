import { ApiError, badRequest } from '../../../core/errors.js';
import type { SecretsContext } from '../../context.js';
import type { HandlerRequest, LogicalResponse } from '../../framework/types.js';
import { addressInCidrs } from '../cidr.js';
import { loginResponse, type LoginAlias } from '../login.js';
import { ClaimError, extractMetadata, getClaim, goValue, normalizeList, validateBoundClaims } from './claims.js';
import { CONFIG_KEY, type JwtConfig } from './config.js';
import { SUPPORTED_ALGS } from './jws.js';
import { ROLE_NAME, type JwtRole } from './role.js';
import { validateToken, ValidationError } from './validator.js';
import type { Validators } from './validators.js';

/** The role a login names (or the configuration's default role), with the real method's texts. */
export function loginRole(request: HandlerRequest, config: JwtConfig): { name: string; role: JwtRole } {
  const name = (request.fields.get<string | undefined>('role') ?? '').toLowerCase() || config.default_role;
  if (name === '') throw badRequest('missing role');
  const role = ROLE_NAME.test(name) ? request.storage.getShared<JwtRole>(`role/${name}`) : undefined;
  if (!role) throw badRequest(`role ${JSON.stringify(name)} could not be found`);
  return { name, role };
}

/**
 * The alias a verified token makes: its user claim's value, with the `claim_mappings` and the role
 * as metadata, and the `groups_claim` values the identity store matches against external groups.
 */
export function aliasOf(claims: Record<string, unknown>, roleName: string, role: JwtRole): LoginAlias {
  const rawUser = role.user_claim_json_pointer ? getClaim(claims, role.user_claim) : (claims[role.user_claim] ?? undefined);
  if (rawUser === undefined) throw new ClaimError(`claim ${JSON.stringify(role.user_claim)} not found in token`);
  if (typeof rawUser !== 'string') throw new ClaimError(`claim ${JSON.stringify(role.user_claim)} could not be converted to string`);
  const metadata = { ...extractMetadata(claims, role.claim_mappings), role: roleName };
  if (role.groups_claim !== '') {
    const groups = getClaim(claims, role.groups_claim);
    if (groups === undefined) throw new ClaimError(`failed to fetch groups: ${JSON.stringify(role.groups_claim)} claim not found in token`);
    const list = normalizeList(groups);
    if (!list) throw new ClaimError(`${JSON.stringify(role.groups_claim)} claim could not be converted to string list`);
    const bad = list.find((group) => typeof group !== 'string');
    if (bad !== undefined) throw new ClaimError(`value ${goValue(bad)} in groups claim could not be parsed as string`);
    // Empty names make no group alias, as for real.
    return { name: rawUser, metadata, groups: (list as string[]).filter((group) => group !== '') };
  }
  return { name: rawUser, metadata };
}

/** A valid token's claims to a login: the alias, the bound claims, then the token (both login paths end here). */
export function issueForClaims(
  context: SecretsContext,
  request: HandlerRequest,
  claims: Record<string, unknown>,
  roleName: string,
  role: JwtRole,
): LogicalResponse {
  let alias: LoginAlias;
  try {
    alias = aliasOf(claims, roleName, role);
  } catch (error) {
    throw badRequest((error as Error).message);
  }
  try {
    validateBoundClaims(role.bound_claims_type, role.bound_claims, claims);
  } catch (error) {
    throw badRequest(`error validating claims: ${(error as Error).message}`);
  }
  return loginResponse(context, request, { settings: role.settings, meta: alias.metadata, displayName: alias.name, alias });
}

/** A token with an audience needs a role that binds audiences (direct logins only). */
function checkUnboundAudience(claims: Record<string, unknown>, role: JwtRole): void {
  if (role.bound_audiences.length > 0) return;
  const aud = claims['aud'];
  if ((Array.isArray(aud) && aud.length > 0) || (typeof aud === 'string' && aud !== '')) {
    throw badRequest('audience claim found in JWT but no audiences bound to the role');
  }
}

/** Refused with 403 from outside the role's `token_bound_cidrs`. */
export function checkBoundCidrs(request: HandlerRequest, role: JwtRole): void {
  if (role.settings.boundCidrs.length > 0 && !addressInCidrs(request.clientAddress, role.settings.boundCidrs)) {
    throw new ApiError(403, 'permission denied', { messages: ['permission denied'] });
  }
}

/** `auth/<mount>/login`: the real method's checks, in its order, with its texts. */
export async function jwtLogin(context: SecretsContext, validators: Validators, request: HandlerRequest): Promise<LogicalResponse> {
  // Read-only here (frozen, shared with other logins: no unsealing and parsing per login).
  const config = request.storage.getShared<JwtConfig>(CONFIG_KEY);
  if (!config) throw badRequest('could not load configuration');
  const { name, role } = loginRole(request, config);
  if (role.role_type === 'oidc') throw badRequest('role with oidc role_type is not allowed');
  const token = request.fields.get<string | undefined>('jwt') ?? '';
  if (token === '') throw badRequest('missing token');
  checkBoundCidrs(request, role);
  let keySet;
  try {
    keySet = await validators.keySet(request.mount.uuid, config);
  } catch (error) {
    throw badRequest(`error configuring token validator: ${(error as Error).message}`);
  }
  let claims: Record<string, unknown>;
  try {
    claims = await validateToken(keySet, token, {
      issuer: config.bound_issuer,
      subject: role.bound_subject,
      audiences: role.bound_audiences,
      algorithms: config.jwt_supported_algs.length > 0 ? config.jwt_supported_algs : SUPPORTED_ALGS,
      notBeforeLeeway: role.not_before_leeway,
      expirationLeeway: role.expiration_leeway,
      clockSkewLeeway: role.clock_skew_leeway,
      nowMs: context.clock.nowMs(),
    });
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    throw badRequest(`error validating token: ${error.message}`);
  }
  checkUnboundAudience(claims, role);
  return issueForClaims(context, request, claims, name, role);
}
