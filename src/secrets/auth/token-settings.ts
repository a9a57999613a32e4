import { badRequest } from '../../core/errors.js';
import type { FieldSpec, HandlerRequest } from '../framework/types.js';
import { parseCidrs } from './cidr.js';

/**
 * The `token_*` settings every auth method's users and roles carry (the real service's common
 * token fields): what a login's token gets. Stored as is; times in seconds.
 */
export interface TokenSettings {
  policies: string[];
  ttl: number;
  maxTtl: number;
  explicitMaxTtl: number;
  period: number;
  numUses: number;
  noDefaultPolicy: boolean;
  boundCidrs: string[];
  type: string;
  /** Set through the legacy `policies` field, which reads then report too. */
  legacyPolicies?: boolean;
}

export const DEFAULT_TOKEN_SETTINGS: TokenSettings = {
  policies: [],
  ttl: 0,
  maxTtl: 0,
  explicitMaxTtl: 0,
  period: 0,
  numUses: 0,
  noDefaultPolicy: false,
  boundCidrs: [],
  type: 'default',
};

export const TOKEN_FIELDS: Record<string, FieldSpec> = {
  token_policies: { type: 'commaStringSlice', description: 'Policies of issued tokens.' },
  policies: { type: 'commaStringSlice', description: 'Legacy name of token_policies.' },
  token_ttl: { type: 'duration', description: 'Initial TTL of issued tokens; the mount default when 0.' },
  token_max_ttl: { type: 'duration', description: 'Maximum lifetime of issued tokens, renewals included; the mount maximum when 0.' },
  token_explicit_max_ttl: { type: 'duration', description: 'Hard cap recorded on the token (explicit_max_ttl).' },
  token_period: { type: 'duration', description: 'Issue periodic tokens with this period.' },
  token_num_uses: { type: 'int', description: 'Uses of each issued token; 0 is unlimited.' },
  token_no_default_policy: { type: 'bool', description: 'Leave the `default` policy out.' },
  token_bound_cidrs: { type: 'commaStringSlice', description: 'Addresses issued tokens may be used from.' },
  token_type: { type: 'string', description: '`default` or `service` (batch tokens are not issued).' },
};

const SERVICE_TYPES = new Set(['default', 'service', 'default-service']);

/** Applies the request's `token_*` fields (and the legacy `policies`) over `current`. */
export function parseTokenSettings(request: HandlerRequest, current: TokenSettings): TokenSettings {
  const { fields } = request;
  const next: TokenSettings = { ...current };
  if (fields.has('token_policies') && fields.has('policies')) throw badRequest('"token_policies" and "policies" cannot both be given');
  if (fields.has('token_policies')) {
    next.policies = fields.get<string[]>('token_policies');
    next.legacyPolicies = false;
  } else if (fields.has('policies')) {
    next.policies = fields.get<string[]>('policies');
    next.legacyPolicies = true;
  }
  const durations = [
    ['token_ttl', 'ttl'],
    ['token_max_ttl', 'maxTtl'],
    ['token_explicit_max_ttl', 'explicitMaxTtl'],
    ['token_period', 'period'],
  ] as const;
  for (const [field, key] of durations) if (fields.has(field)) next[key] = fields.get<number>(field);
  if (fields.has('token_num_uses')) next.numUses = fields.get<number>('token_num_uses');
  if (fields.has('token_no_default_policy')) next.noDefaultPolicy = fields.get<boolean>('token_no_default_policy');
  if (fields.has('token_bound_cidrs')) next.boundCidrs = parseCidrs(fields.get<string[]>('token_bound_cidrs'), 'token_bound_cidrs');
  if (fields.has('token_type')) {
    // An empty type is the default, as for real (hvac sends `token_type: ""` unless told otherwise).
    const type = fields.get<string>('token_type') || 'default';
    if (!SERVICE_TYPES.has(type)) throw badRequest(`token_type "${type}" is not supported by understudy; only service tokens are issued`);
    next.type = type;
  }
  if (next.numUses < 0) throw badRequest("'token_num_uses' cannot be negative");
  if (next.maxTtl > 0 && next.ttl > next.maxTtl) throw badRequest("'token_ttl' cannot be greater than 'token_max_ttl'");
  return next;
}

/** The `token_*` fields as reads report them. */
export function tokenSettingsWire(settings: TokenSettings): Record<string, unknown> {
  const wire: Record<string, unknown> = {
    token_bound_cidrs: settings.boundCidrs,
    token_explicit_max_ttl: settings.explicitMaxTtl,
    token_max_ttl: settings.maxTtl,
    token_no_default_policy: settings.noDefaultPolicy,
    token_num_uses: settings.numUses,
    token_period: settings.period,
    token_policies: settings.policies,
    token_ttl: settings.ttl,
    token_type: settings.type,
  };
  if (settings.legacyPolicies) wire.policies = settings.policies;
  return wire;
}
