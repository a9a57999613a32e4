import { badRequest, notFound } from '../../core/errors.js';
import { parseCidrs } from '../auth/cidr.js';
import { globMatch } from '../engines/pki/policy.js';
import type { FieldSpec, HandlerRequest, LogicalResponse, PathSpec } from '../framework/types.js';
import type { DbOrTx } from '../../store/store.js';
import { MountStorage } from '../storage/mount-storage.js';
import { sanitizePolicies } from './token-service.js';

/** A token role as stored (`auth/token/roles/:role_name`); durations in seconds. */
export interface TokenRole {
  name: string;
  allowed_policies: string[];
  disallowed_policies: string[];
  allowed_policies_glob: string[];
  disallowed_policies_glob: string[];
  orphan: boolean;
  renewable: boolean;
  path_suffix: string;
  /** The older field names are kept as written, so a read answers what was set. */
  period: number;
  token_period: number;
  explicit_max_ttl: number;
  token_explicit_max_ttl: number;
  bound_cidrs: string[];
  token_bound_cidrs: string[];
  token_type: string;
  token_no_default_policy: boolean;
  token_num_uses: number;
  allowed_entity_aliases: string[] | null;
}

const list = (description: string): FieldSpec => ({ type: 'commaStringSlice', description });
const duration = (description: string): FieldSpec => ({ type: 'duration', description });

export const ROLE_FIELDS: Record<string, FieldSpec> = {
  role_name: { type: 'string', description: 'Name of the role.' },
  allowed_policies: list('Policies tokens of this role may have (any, without the parent subset rule).'),
  disallowed_policies: list('Policies tokens of this role may never have.'),
  allowed_policies_glob: list('Like allowed_policies, as globs.'),
  disallowed_policies_glob: list('Like disallowed_policies, as globs.'),
  orphan: { type: 'bool', description: 'Tokens of this role have no parent.' },
  renewable: { type: 'bool', description: 'Tokens of this role may be renewed.', default: true },
  path_suffix: { type: 'string', description: 'Appended to the token path, for revoke-prefix.' },
  period: duration("Use 'token_period' instead."),
  token_period: duration('Tokens of this role are periodic with this period.'),
  explicit_max_ttl: duration("Use 'token_explicit_max_ttl' instead."),
  token_explicit_max_ttl: duration("Hard cap on the lifetime of this role's tokens."),
  bound_cidrs: list("Use 'token_bound_cidrs' instead."),
  token_bound_cidrs: list('Addresses the tokens may be used from.'),
  token_type: { type: 'string', description: '`service`, `default-service` or `default` (batch tokens do not exist here).' },
  token_no_default_policy: { type: 'bool', description: 'Leave `default` out of the tokens.' },
  token_num_uses: { type: 'int', description: 'Uses of each token; 0 is unlimited.' },
  allowed_entity_aliases: list('Entity aliases a creation may name (globs allowed).'),
};

/** The role path suffix rule of the real service: word characters, dashes and dots, at least three. */
const PATH_SUFFIX = /\w[\w-.]+\w/;
const PATH_SUFFIX_SOURCE = '\\w[\\w-.]+\\w';

/** Lower-cased, trimmed, without duplicates, sorted (the real service's RemoveDuplicates). */
function uniqueLower(items: readonly string[]): string[] {
  return [...new Set(items.map((item) => item.trim().toLowerCase()).filter((item) => item !== ''))].sort();
}

export const roleKey = (name: string) => `roles/${name}`;

/** The token backend's storage, where roles live (the router names built-in mounts `builtin-<type>`). */
export const tokenBackendStorage = (db: DbOrTx) => new MountStorage(db, 'builtin-token');

/** The role a token was created against, from its path (`auth/token/create/<role>[/<suffix>]`). */
export const roleOfPath = (path: string): string | undefined => /^auth\/token\/create\/([^/]+)/.exec(path)?.[1];

export function readRole(storage: MountStorage, name: string): TokenRole | undefined {
  return storage.get<TokenRole>(roleKey(name));
}

function emptyRole(name: string): TokenRole {
  return {
    name,
    allowed_policies: [],
    disallowed_policies: [],
    allowed_policies_glob: [],
    disallowed_policies_glob: [],
    orphan: false,
    renewable: true,
    path_suffix: '',
    period: 0,
    token_period: 0,
    explicit_max_ttl: 0,
    token_explicit_max_ttl: 0,
    bound_cidrs: [],
    token_bound_cidrs: [],
    token_type: 'default-service',
    token_no_default_policy: false,
    token_num_uses: 0,
    allowed_entity_aliases: null,
  };
}

/**
 * A `token_*` field and its older name: the new one wins (with a warning when both are given)
 * and clears the old; the old one alone sets both, so reads answer what was written.
 */
function pairedField<K extends keyof TokenRole>(
  request: HandlerRequest,
  role: TokenRole,
  names: { current: K; legacy: K },
  warnings: string[],
  convert: (value: TokenRole[K]) => TokenRole[K] = (value) => value,
  empty: TokenRole[K],
): void {
  const { fields } = request;
  if (fields.has(names.current)) {
    if (fields.has(names.legacy)) {
      warnings.push(`Both '${names.current}' and deprecated '${names.legacy}' value supplied, ignoring the deprecated value`);
    }
    role[names.current] = convert(fields.get<TokenRole[K]>(names.current));
    role[names.legacy] = empty;
  } else if (fields.has(names.legacy)) {
    role[names.legacy] = convert(fields.get<TokenRole[K]>(names.legacy));
    role[names.current] = role[names.legacy];
  }
}

/** Creates or updates a role: fields not given keep their stored value (or the default on create). */
function writeRole(request: HandlerRequest): LogicalResponse | undefined {
  const name = request.params['role_name'] ?? '';
  const { fields } = request;
  const role = readRole(request.storage, name) ?? emptyRole(name);
  const warnings: string[] = [];
  const given = (field: string) => fields.has(field);

  if (given('orphan')) role.orphan = fields.get<boolean>('orphan');
  if (given('renewable')) role.renewable = fields.get<boolean>('renewable');
  if (given('path_suffix')) {
    const suffix = fields.get<string>('path_suffix');
    if (suffix !== '' && !PATH_SUFFIX.test(suffix)) {
      throw badRequest(`given role path suffix contains invalid characters; must match ${PATH_SUFFIX_SOURCE}`);
    }
    role.path_suffix = suffix;
  }
  if (role.path_suffix.includes('..')) throw badRequest('error registering path suffix: path cannot contain parent references');
  if (given('allowed_policies')) role.allowed_policies = sanitizePolicies(fields.get<string[]>('allowed_policies'), false);
  if (given('disallowed_policies')) role.disallowed_policies = uniqueLower(fields.get<string[]>('disallowed_policies'));
  if (given('allowed_policies_glob')) role.allowed_policies_glob = sanitizePolicies(fields.get<string[]>('allowed_policies_glob'), false);
  if (given('disallowed_policies_glob')) role.disallowed_policies_glob = uniqueLower(fields.get<string[]>('disallowed_policies_glob'));

  if (request.data['token_type'] === null) throw badRequest("Invalid 'token_type' value: null");
  if (given('token_type')) {
    const type = fields.get<string>('token_type');
    if (type === 'batch' || type === 'default-batch') {
      throw badRequest(`token type "${type}" is not supported by understudy; only service tokens are`);
    }
    if (!['service', 'default-service', 'default'].includes(type)) throw badRequest(`invalid 'token_type' value "${type}"`);
    role.token_type = type === 'default' ? 'default-service' : type;
  }
  if (given('token_no_default_policy')) role.token_no_default_policy = fields.get<boolean>('token_no_default_policy');
  if (given('token_num_uses')) {
    const uses = fields.get<number>('token_num_uses');
    if (uses < 0) throw badRequest('error parsing role fields: token_num_uses cannot be negative');
    role.token_num_uses = uses;
  }
  pairedField(request, role, { current: 'token_period', legacy: 'period' }, warnings, undefined, 0);
  pairedField(request, role, { current: 'token_explicit_max_ttl', legacy: 'explicit_max_ttl' }, warnings, undefined, 0);
  const cidrs = (blocks: string[]) => parseCidrs(blocks, 'token_bound_cidrs');
  pairedField(request, role, { current: 'token_bound_cidrs', legacy: 'bound_cidrs' }, warnings, cidrs, []);
  if (given('allowed_entity_aliases')) role.allowed_entity_aliases = uniqueLower(fields.get<string[]>('allowed_entity_aliases'));

  request.storage.put(roleKey(name), role);
  return warnings.length > 0 ? { data: null, warnings } : undefined;
}

/** A role as the real service reads it back. */
function roleData(role: TokenRole): Record<string, unknown> {
  const data: Record<string, unknown> = {
    period: role.period,
    token_period: role.token_period,
    explicit_max_ttl: role.explicit_max_ttl,
    token_explicit_max_ttl: role.token_explicit_max_ttl,
    disallowed_policies: role.disallowed_policies,
    allowed_policies: role.allowed_policies,
    disallowed_policies_glob: role.disallowed_policies_glob,
    allowed_policies_glob: role.allowed_policies_glob,
    name: role.name,
    orphan: role.orphan,
    path_suffix: role.path_suffix,
    renewable: role.renewable,
    token_type: role.token_type,
    allowed_entity_aliases: role.allowed_entity_aliases,
    token_no_default_policy: role.token_no_default_policy,
  };
  if (role.token_bound_cidrs.length > 0) data.token_bound_cidrs = role.token_bound_cidrs;
  if (role.bound_cidrs.length > 0) data.bound_cidrs = role.bound_cidrs;
  if (role.token_num_uses > 0) data.token_num_uses = role.token_num_uses;
  return data;
}

/** `auth/token/roles` and `auth/token/roles/:role_name`. */
export function tokenRolePaths(): PathSpec[] {
  return [
    {
      pattern: 'roles',
      summary: 'Names of the token roles.',
      operations: {
        list: (request) => {
          const keys = request.storage.list('roles/');
          if (keys.length === 0) throw notFound();
          return { data: { keys } };
        },
      },
    },
    {
      pattern: 'roles/:role_name',
      summary: 'A token role: what auth/token/create/:role_name may and must give its tokens.',
      fields: ROLE_FIELDS,
      existenceCheck: (request) => readRole(request.storage, request.params['role_name'] ?? '') !== undefined,
      operations: {
        read: (request) => {
          const role = readRole(request.storage, request.params['role_name'] ?? '');
          if (!role) throw notFound();
          return { data: roleData(role) };
        },
        create: writeRole,
        update: writeRole,
        delete: (request) => {
          request.storage.delete(roleKey(request.params['role_name'] ?? ''));
          return undefined;
        },
      },
    },
  ];
}

const inList = (items: readonly string[], value: string) => items.includes(value);
const inGlobs = (patterns: readonly string[], value: string) => patterns.some((pattern) => globMatch(pattern, value));

/** Whether the role has policy rules of its own (then the parent's policies do not bound the token). */
export function hasPolicyRules(role: TokenRole): boolean {
  return [role.allowed_policies, role.disallowed_policies, role.allowed_policies_glob, role.disallowed_policies_glob].some(
    (items) => items.length > 0,
  );
}

/**
 * The policies of a token created against a role with policy rules: the requested ones (else the
 * role's allowed ones, else the parent's), each allowed by the role and none disallowed; `default`
 * is added unless the request, the role or its disallowed list says otherwise.
 */
export function rolePolicies(
  role: TokenRole,
  requested: string[] | undefined,
  parentPolicies: string[],
  noDefaultPolicy: boolean,
): string[] {
  const addDefault =
    !noDefaultPolicy &&
    !role.token_no_default_policy &&
    !inList(role.disallowed_policies, 'default') &&
    !inGlobs(role.disallowed_policies_glob, 'default');
  let policies = requested?.length ? sanitizePolicies(requested, addDefault) : [];
  if (role.allowed_policies.length > 0 || role.allowed_policies_glob.length > 0) {
    const allowed = sanitizePolicies(role.allowed_policies, addDefault);
    if (policies.length === 0) {
      policies = allowed;
    } else {
      const globs = sanitizePolicies(role.allowed_policies_glob, false);
      if (policies.some((policy) => !inList(allowed, policy) && !inGlobs(globs, policy))) {
        const quoted = (items: string[]) => `[${items.map((item) => JSON.stringify(item)).join(' ')}]`;
        throw badRequest(
          `token policies (${quoted(policies)}) must be subset of the role's allowed policies (${quoted(allowed)}) ` +
            `or glob policies (${quoted(globs)})`,
        );
      }
    }
  } else if (policies.length === 0) {
    policies = sanitizePolicies(parentPolicies, addDefault);
  }
  const refused = policies.find((policy) => inList(role.disallowed_policies, policy) || inGlobs(role.disallowed_policies_glob, policy));
  if (refused !== undefined) throw badRequest(`token policy "${refused}" is disallowed by this role`);
  return policies;
}

/** Whether an entity alias may be named when creating a token against the role. */
export function entityAliasAllowed(role: TokenRole, alias: string): boolean {
  const lower = alias.toLowerCase();
  const allowed = role.allowed_entity_aliases ?? [];
  return inList(allowed, lower) || inGlobs(allowed, lower);
}

/** The lesser of a creation's and a role's value (0: not set), with the real service's warning when both are set. */
function lesser(requested: number, fromRole: number, warnings: string[], what: string): number {
  if (fromRole === 0) return requested;
  if (requested === 0) return fromRole;
  const chosen = Math.min(requested, fromRole);
  warnings.push(`${what} specified both during creation call and in role; using the lesser value of ${chosen} seconds`);
  return chosen;
}

/** What a role changes in a creation request: the bounds and use count its tokens get. */
export function roleLimits(
  role: TokenRole,
  input: { period?: number; explicitMaxTtl?: number; numUses?: number },
  warnings: string[],
): { period: number; explicitMaxTtl: number; numUses: number } {
  const requestedUses = input.numUses ?? 0;
  const numUses =
    role.token_num_uses === 0 ? requestedUses : requestedUses === 0 ? role.token_num_uses : Math.min(role.token_num_uses, requestedUses);
  return {
    explicitMaxTtl: lesser(input.explicitMaxTtl ?? 0, role.token_explicit_max_ttl, warnings, 'Explicit max TTL'),
    period: lesser(input.period ?? 0, role.token_period, warnings, 'Period'),
    numUses,
  };
}
