import { badRequest } from '../../../core/errors.js';
import { effectiveTtls } from '../../leases/ttl.js';
import { FieldData, readDurationField } from '../../framework/fields.js';
import { withFields } from '../../framework/handler-request.js';
import type { FieldSpec, HandlerRequest } from '../../framework/types.js';
import { DEFAULT_TOKEN_SETTINGS, parseTokenSettings, TOKEN_FIELDS, tokenSettingsWire, type TokenSettings } from '../token-settings.js';
import { goValue, normalizeList } from './claims.js';

/** A role as stored. Leeways in seconds, signed (0: the default, negative: none). */
export interface JwtRole {
  role_type: 'jwt' | 'oidc';
  bound_audiences: string[];
  bound_subject: string;
  bound_claims_type: 'string' | 'glob';
  bound_claims: Record<string, unknown>;
  claim_mappings: Record<string, string>;
  user_claim: string;
  user_claim_json_pointer: boolean;
  groups_claim: string;
  oidc_scopes: string[];
  allowed_redirect_uris: string[];
  verbose_oidc_logging: boolean;
  max_age: number;
  clock_skew_leeway: number;
  expiration_leeway: number;
  not_before_leeway: number;
  settings: TokenSettings;
  /** Legacy fields a write set, which reads then show too (as the real method keeps them). */
  legacy: Partial<Record<'ttl' | 'max_ttl' | 'period' | 'num_uses' | 'bound_cidrs', true>>;
}

export const ROLE_NAME = /^\w(?:[\w.-]*\w)?$/;
const signedDuration = (description: string): FieldSpec => ({ type: 'any', documentedAs: 'duration', description });

export const ROLE_FIELDS: Record<string, FieldSpec> = {
  name: { type: 'string', description: 'Name of the role (in the URL; lower-cased).' },
  role_type: { type: 'string', description: '`jwt` or `oidc`; `oidc` when omitted, on every write.' },
  bound_audiences: { type: 'commaStringSlice', description: 'Audiences a token must name one of.' },
  bound_subject: { type: 'string', description: 'The `sub` a token must carry.' },
  bound_claims_type: { type: 'string', description: '`string` (default) or `glob`.', default: 'string' },
  bound_claims: { type: 'map', description: 'Claims (names or JSON pointers) and the values they must match.' },
  claim_mappings: { type: 'kvPairs', description: 'Claims copied into the alias and token metadata, by metadata key.' },
  user_claim: { type: 'string', description: 'The claim naming the user (the alias name); required.' },
  user_claim_json_pointer: { type: 'bool', description: 'Read `user_claim` as a JSON pointer.' },
  groups_claim: { type: 'string', description: 'The claim listing the groups.' },
  oidc_scopes: { type: 'commaStringSlice', description: 'Scopes asked for besides `openid` in the OIDC flow.' },
  allowed_redirect_uris: { type: 'commaStringSlice', description: 'Redirect URIs the OIDC flow may use; required for `oidc` roles.' },
  verbose_oidc_logging: { type: 'bool', description: 'Accepted and reported; understudy logs no tokens either way.' },
  max_age: { type: 'duration', description: 'Maximum authentication age asked of the OIDC provider.' },
  clock_skew_leeway: signedDuration('Leeway on present time claims; 0 is 60 s, negative is none.'),
  expiration_leeway: signedDuration('Lifetime given a token without `exp`; 0 is 150 s, negative is none.'),
  not_before_leeway: signedDuration('Leeway making up a missing `nbf`; 0 is 150 s, negative is none.'),
  ...TOKEN_FIELDS,
  ttl: { type: 'duration', description: 'Legacy name of token_ttl.' },
  max_ttl: { type: 'duration', description: 'Legacy name of token_max_ttl.' },
  period: { type: 'duration', description: 'Legacy name of token_period.' },
  num_uses: { type: 'int', description: 'Legacy name of token_num_uses.' },
  bound_cidrs: { type: 'commaStringSlice', description: 'Legacy name of token_bound_cidrs.' },
};

/** The storage key of the role in the URL; names are lower-cased, as for real. */
export function roleKey(name: string): string {
  const lowered = name.toLowerCase();
  if (!ROLE_NAME.test(lowered)) throw badRequest(`invalid role name "${name}"`);
  return `role/${lowered}`;
}

function signedSeconds(name: string, value: unknown): number {
  const text = typeof value === 'string' ? value.trim() : value;
  const negative = (typeof text === 'string' && text.startsWith('-')) || (typeof text === 'number' && text < 0);
  const magnitude = typeof text === 'string' && negative ? text.slice(1) : typeof text === 'number' ? Math.abs(text) : text;
  const seconds = readDurationField(name, magnitude);
  return negative ? -seconds : seconds;
}

const LEGACY = [
  ['policies', 'token_policies'],
  ['ttl', 'token_ttl'],
  ['max_ttl', 'token_max_ttl'],
  ['period', 'token_period'],
  ['num_uses', 'token_num_uses'],
  ['bound_cidrs', 'token_bound_cidrs'],
] as const;

/** The legacy names read as their `token_*` fields when those are absent (both at once is refused). */
function withLegacyFields(request: HandlerRequest, role: JwtRole): HandlerRequest {
  const data = { ...request.data };
  for (const [legacy, current] of LEGACY) {
    if (data[legacy] === undefined) continue;
    if (data[current] !== undefined && legacy !== 'policies') throw badRequest(`"${current}" and "${legacy}" cannot both be given`);
    if (legacy !== 'policies') {
      data[current] = data[legacy];
      delete data[legacy];
      role.legacy[legacy] = true;
    }
  }
  return withFields(request, new FieldData(ROLE_FIELDS, data, request.params), data);
}

const emptyRole = (): JwtRole => ({
  role_type: 'oidc',
  bound_audiences: [],
  bound_subject: '',
  bound_claims_type: 'string',
  bound_claims: {},
  claim_mappings: {},
  user_claim: '',
  user_claim_json_pointer: false,
  groups_claim: '',
  oidc_scopes: [],
  allowed_redirect_uris: [],
  verbose_oidc_logging: false,
  max_age: 0,
  clock_skew_leeway: 0,
  expiration_leeway: 0,
  not_before_leeway: 0,
  settings: DEFAULT_TOKEN_SETTINGS,
  legacy: {},
});

/**
 * A role write in the real method's order, over the stored role. `role_type` and
 * `bound_claims_type` take their defaults on every write that omits them, as for real.
 * Returns the role and the warnings the answer carries.
 */
export function readRoleWrite(request: HandlerRequest, current: JwtRole | undefined): { role: JwtRole; warnings: string[] } {
  const role: JwtRole = current ? { ...structuredClone(current) } : emptyRole();
  const roleType = request.fields.get<string | undefined>('role_type') || 'oidc';
  if (roleType !== 'jwt' && roleType !== 'oidc') throw badRequest(`invalid 'role_type': ${roleType}`);
  role.role_type = roleType;
  const withLegacy = withLegacyFields(request, role);
  const { fields } = withLegacy;
  role.settings = parseTokenSettings(withLegacy, role.settings);
  const mountMax = effectiveTtls(request.mount.config).maxTtl;
  if (role.settings.period > mountMax) {
    throw badRequest(
      `'period' of '"${goDurationText(role.settings.period)}"' is greater than the backend's maximum lease TTL of ` +
        `'"${goDurationText(mountMax)}"'`,
    );
  }
  for (const name of ['expiration_leeway', 'not_before_leeway', 'clock_skew_leeway'] as const) {
    if (request.data[name] !== undefined && request.data[name] !== null) role[name] = signedSeconds(name, request.data[name]);
  }
  if (fields.has('bound_audiences')) role.bound_audiences = fields.get<string[]>('bound_audiences');
  if (fields.has('bound_subject')) role.bound_subject = fields.get<string>('bound_subject');
  if (fields.has('verbose_oidc_logging')) role.verbose_oidc_logging = fields.get<boolean>('verbose_oidc_logging');
  if (fields.has('max_age')) role.max_age = fields.get<number>('max_age');
  const claimsType = fields.get<string>('bound_claims_type');
  if (claimsType !== 'string' && claimsType !== 'glob') throw badRequest(`invalid 'bound_claims_type': ${claimsType}`);
  role.bound_claims_type = claimsType;
  if (fields.has('bound_claims')) {
    role.bound_claims = fields.get<Record<string, unknown>>('bound_claims');
    if (claimsType === 'glob') {
      for (const values of Object.values(role.bound_claims)) {
        const list = normalizeList(values);
        if (!list) throw badRequest(`claim is not a string or list: ${goValue(values)}`);
        const notString = list.find((value) => typeof value !== 'string');
        if (notString !== undefined) throw badRequest(`claim is not a string: ${goValue(notString)}`);
      }
    }
  }
  if (fields.has('claim_mappings')) {
    const mappings = fields.get<Record<string, string>>('claim_mappings');
    const targets = new Set<string>();
    for (const target of Object.values(mappings)) {
      if (target === 'role') throw badRequest(`metadata key "role" is reserved and may not be a mapping destination`);
      if (targets.has(target)) throw badRequest(`multiple keys are mapped to metadata key ${JSON.stringify(target)}`);
      targets.add(target);
    }
    role.claim_mappings = mappings;
  }
  if (fields.has('user_claim')) role.user_claim = fields.get<string>('user_claim');
  if (role.user_claim === '') throw badRequest('a user claim must be defined on the role');
  if (fields.has('user_claim_json_pointer')) role.user_claim_json_pointer = fields.get<boolean>('user_claim_json_pointer');
  if (fields.has('groups_claim')) role.groups_claim = fields.get<string>('groups_claim');
  if (fields.has('oidc_scopes')) role.oidc_scopes = fields.get<string[]>('oidc_scopes');
  if (fields.has('allowed_redirect_uris')) role.allowed_redirect_uris = fields.get<string[]>('allowed_redirect_uris');
  if (role.role_type === 'oidc' && role.allowed_redirect_uris.length === 0) {
    throw badRequest("'allowed_redirect_uris' must be set if 'role_type' is 'oidc' or unspecified.");
  }
  if (
    role.role_type !== 'oidc' &&
    role.bound_audiences.length === 0 &&
    role.settings.boundCidrs.length === 0 &&
    role.bound_subject === '' &&
    Object.keys(role.bound_claims).length === 0
  ) {
    throw badRequest('must have at least one bound constraint when creating/updating a role');
  }
  const warnings: string[] = [];
  if (role.settings.maxTtl > mountMax) {
    warnings.push(
      "token max ttl is greater than the system or backend mount's maximum TTL value; issued tokens' max TTL value will be truncated",
    );
  }
  if (role.verbose_oidc_logging) {
    warnings.push(
      'verbose_oidc_logging has been enabled for this role. This is not recommended in production since sensitive information ' +
        'may be present in OIDC responses.',
    );
  }
  return { role, warnings };
}

function goDurationText(seconds: number): string {
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = seconds % 60;
  return hours > 0 ? `${hours}h${minutes}m${rest}s` : minutes > 0 ? `${minutes}m${rest}s` : `${rest}s`;
}

/** The role as reads show it, legacy keys only where a write used them. */
export function roleWire(role: JwtRole): Record<string, unknown> {
  const token = tokenSettingsWire(role.settings);
  const wire: Record<string, unknown> = {
    role_type: role.role_type,
    expiration_leeway: role.expiration_leeway,
    not_before_leeway: role.not_before_leeway,
    clock_skew_leeway: role.clock_skew_leeway,
    bound_audiences: role.bound_audiences,
    bound_subject: role.bound_subject,
    bound_claims_type: role.bound_claims_type,
    bound_claims: Object.keys(role.bound_claims).length > 0 ? role.bound_claims : null,
    claim_mappings: Object.keys(role.claim_mappings).length > 0 ? role.claim_mappings : null,
    user_claim: role.user_claim,
    user_claim_json_pointer: role.user_claim_json_pointer,
    groups_claim: role.groups_claim,
    allowed_redirect_uris: role.allowed_redirect_uris,
    oidc_scopes: role.oidc_scopes,
    verbose_oidc_logging: role.verbose_oidc_logging,
    max_age: role.max_age,
    ...token,
  };
  if (role.legacy.ttl && role.settings.ttl > 0) wire.ttl = role.settings.ttl;
  if (role.legacy.max_ttl && role.settings.maxTtl > 0) wire.max_ttl = role.settings.maxTtl;
  if (role.legacy.period && role.settings.period > 0) wire.period = role.settings.period;
  if (role.legacy.num_uses && role.settings.numUses > 0) wire.num_uses = role.settings.numUses;
  if (role.legacy.bound_cidrs && role.settings.boundCidrs.length > 0) wire.bound_cidrs = role.settings.boundCidrs;
  return wire;
}
