import { ApiError, badRequest } from '../../core/errors.js';
import type { SecretsContext } from '../context.js';
import type { Backend, FieldSpec, HandlerRequest, LogicalResponse, PathSpec } from '../framework/types.js';
import type { CreateTokenInput } from './token-service.js';
import type { TokenEntry, TokenStore } from './token-store.js';
import { readRole, roleOfPath, tokenRolePaths } from './roles.js';

/** `lookup` answers an unknown token with this 403 (not the generic one). */
const BAD_TOKEN = new ApiError(403, 'bad token', { messages: ['bad token'] });

/** `lookup-self`'s `data`, shaped as the real service answers it. */
export function tokenLookupData(token: TokenEntry, store: TokenStore, identityPolicies: readonly string[] = []): Record<string, unknown> {
  const data: Record<string, unknown> = {
    accessor: token.accessor,
    creation_time: Math.floor(token.createdAt.getTime() / 1000),
    creation_ttl: token.ttlSeconds,
    display_name: token.displayName,
    entity_id: token.entityId ?? '',
    expire_time: token.expiresAt ? token.expiresAt.toISOString() : null,
    explicit_max_ttl: token.explicitMaxTtlSeconds,
    id: token.secret ?? '',
    meta: token.meta,
    num_uses: Math.max(0, token.numUses),
    orphan: token.orphan,
    path: token.path,
    policies: token.policies,
    ttl: store.remainingSeconds(token),
    type: 'service',
  };
  // Only tokens that expire have a lease, and only those report its times.
  if (token.expiresAt) {
    data.issue_time = token.createdAt.toISOString();
    data.renewable = token.renewable;
    if (token.lastRenewalAt) {
      data.last_renewal = token.lastRenewalAt.toISOString();
      data.last_renewal_time = Math.floor(token.lastRenewalAt.getTime() / 1000);
    }
  }
  if (token.periodSeconds > 0) data.period = token.periodSeconds;
  // Tokens made against a role carry its name in their path (`auth/token/create/<role>[/<suffix>]`).
  const role = roleOfPath(token.path);
  if (role) data.role = role;
  if (token.boundCidrs?.length) data.bound_cidrs = token.boundCidrs;
  // The policies the token's entity and its groups give it, evaluated now (shown only when there are some).
  if (identityPolicies.length > 0) data.identity_policies = identityPolicies;
  return data;
}

const CREATE_FIELDS: Record<string, FieldSpec> = {
  id: { type: 'string', description: 'Token value to use instead of a generated one (root or sudo only).' },
  policies: { type: 'commaStringSlice', description: "Policies of the new token; the parent's when omitted." },
  meta: { type: 'kvPairs', description: 'String metadata, returned by lookups.' },
  no_parent: { type: 'bool', description: 'Create an orphan (root or sudo only).', default: false },
  no_default_policy: { type: 'bool', description: 'Leave out the `default` policy.', default: false },
  renewable: { type: 'bool', description: 'Whether the token can be renewed.' },
  ttl: { type: 'duration', description: 'Initial TTL; the mount default (768h) when omitted.' },
  explicit_max_ttl: { type: 'duration', description: "Hard cap on the token's lifetime, renewals included." },
  period: { type: 'duration', description: 'Periodic token: every renewal grants this TTL (root or sudo only).' },
  display_name: { type: 'string', description: 'Shown as `token-<name>`.' },
  num_uses: { type: 'int', description: 'Requests the token may make; 0 is unlimited.' },
  type: { type: 'string', description: '`service` (the only type understudy issues).' },
  entity_alias: {
    type: 'string',
    description: "With a role only: one of its allowed_entity_aliases; the token belongs to that alias's entity.",
  },
};

const TOKEN_FIELD: Record<string, FieldSpec> = { token: { type: 'string', description: 'The token to act on.' } };
const ACCESSOR_FIELD: Record<string, FieldSpec> = { accessor: { type: 'string', description: 'Accessor of the token to act on.' } };
const INCREMENT_FIELD: Record<string, FieldSpec> = { increment: { type: 'duration', description: 'Requested TTL extension.' } };

function createInput(request: HandlerRequest): CreateTokenInput {
  const { fields } = request;
  const meta = fields.has('meta') ? fields.get<Record<string, string>>('meta') : undefined;
  return {
    id: fields.has('id') ? fields.get<string>('id') : undefined,
    policies: fields.has('policies') ? fields.get<string[]>('policies') : undefined,
    meta,
    noParent: fields.get<boolean>('no_parent'),
    noDefaultPolicy: fields.get<boolean>('no_default_policy'),
    renewable: fields.has('renewable') ? fields.get<boolean>('renewable') : undefined,
    ttl: fields.has('ttl') ? fields.get<number>('ttl') : undefined,
    explicitMaxTtl: fields.has('explicit_max_ttl') ? fields.get<number>('explicit_max_ttl') : undefined,
    period: fields.has('period') ? fields.get<number>('period') : undefined,
    displayName: fields.has('display_name') ? fields.get<string>('display_name') : undefined,
    numUses: fields.has('num_uses') ? fields.get<number>('num_uses') : undefined,
    type: fields.has('type') ? fields.get<string>('type') : undefined,
    entityAlias: fields.has('entity_alias') ? fields.get<string>('entity_alias') : undefined,
  };
}

/** The calling token; every path here is authenticated, so the router has already checked it. */
function caller(request: HandlerRequest): TokenEntry {
  return request.token as TokenEntry;
}

/** The `token` field of a revocation: required, though an unknown token is not an error. */
function namedToken(request: HandlerRequest): string {
  const value = request.fields.get<string | undefined>('token');
  if (!value) throw badRequest('missing token ID');
  return value;
}

/** `auth/token/…`: creation, lookup, renewal and revocation of tokens. */
export function tokenBackend(context: SecretsContext): Backend {
  const { tokens, acl, identity } = context;
  const lookupData = (token: TokenEntry) => tokenLookupData(token, tokens.store, identity.identityPolicies(token.entityId));

  const create =
    (orphanPath: boolean) =>
    (request: HandlerRequest): LogicalResponse => {
      const requestPath = `auth/token/${orphanPath ? 'create-orphan' : 'create'}`;
      const { token, warnings } = tokens.create(createInput(request), {
        parent: caller(request),
        orphanPath,
        callerHasSudo: acl.hasSudo(caller(request), requestPath),
        requestPath,
      });
      return { data: null, auth: tokens.authBlock(token, token.ttlSeconds), warnings };
    };

  const createAgainstRole = (request: HandlerRequest): LogicalResponse => {
    const name = request.params['role_name'] ?? '';
    const role = readRole(request.storage, name);
    if (!role) throw badRequest(`unknown role ${name}`);
    const rolePath = `auth/token/create/${name}`;
    const { token, warnings } = tokens.create(createInput(request), {
      parent: caller(request),
      orphanPath: false,
      callerHasSudo: acl.hasSudo(caller(request), rolePath),
      requestPath: role.path_suffix ? `${rolePath}/${role.path_suffix}` : rolePath,
      role,
    });
    return { data: null, auth: tokens.authBlock(token, token.ttlSeconds), warnings };
  };

  const liveToken = (value: string | undefined, missing: ApiError): TokenEntry => {
    if (!value) throw missing;
    const token = tokens.store.lookup(value);
    if (!token) throw missing;
    return token;
  };

  const renew = (token: TokenEntry, request: HandlerRequest): LogicalResponse => {
    const increment = request.fields.has('increment') ? request.fields.get<number>('increment') : undefined;
    const renewed = tokens.renew(token, increment);
    return { data: null, auth: tokens.authBlock(renewed.token, renewed.ttl), warnings: renewed.warnings };
  };

  const lookupSelf = (request: HandlerRequest): LogicalResponse => ({ data: lookupData(caller(request)) });

  const paths: PathSpec[] = [
    {
      pattern: 'create',
      summary: 'Create a child token (or an orphan, with sudo).',
      fields: CREATE_FIELDS,
      operations: { update: create(false) },
    },
    { pattern: 'create-orphan', summary: 'Create a token without a parent.', fields: CREATE_FIELDS, operations: { update: create(true) } },
    {
      pattern: 'create/:role_name',
      summary: "Create a token under a role's rules.",
      fields: { ...CREATE_FIELDS, role_name: { type: 'string', description: 'The role (in the URL).' } },
      operations: { update: createAgainstRole },
    },
    ...tokenRolePaths(),
    { pattern: 'lookup-self', summary: "The calling token's properties.", operations: { read: lookupSelf, update: lookupSelf } },
    {
      pattern: 'lookup',
      summary: "A token's properties; the caller's own when no token is given.",
      fields: TOKEN_FIELD,
      operations: {
        update: (request) => {
          const value = request.fields.get<string | undefined>('token') || caller(request).secret;
          return { data: lookupData(liveToken(value, BAD_TOKEN)) };
        },
      },
    },
    {
      pattern: 'lookup-accessor',
      summary: "A token's properties by accessor, without its value.",
      fields: ACCESSOR_FIELD,
      operations: {
        update: (request) => {
          const found = tokens.store.byAccessor(request.fields.get<string | undefined>('accessor') ?? '');
          if (!found || !tokens.store.isLive(found)) throw badRequest('invalid accessor');
          return { data: lookupData(found) };
        },
      },
    },
    {
      pattern: 'renew-self',
      summary: 'Extend the calling token.',
      fields: INCREMENT_FIELD,
      operations: { update: (request) => renew(caller(request), request) },
    },
    {
      pattern: 'renew',
      summary: 'Extend a token.',
      fields: { ...TOKEN_FIELD, ...INCREMENT_FIELD },
      operations: {
        update: (request) => renew(liveToken(request.fields.get<string | undefined>('token'), badRequest('missing token ID')), request),
      },
    },
    {
      pattern: 'revoke-self',
      summary: 'Revoke the calling token, its children, leases and cubbyhole.',
      operations: {
        update: async (request) => {
          await tokens.revokeTree(caller(request));
          return undefined;
        },
      },
    },
    {
      pattern: 'revoke',
      summary: 'Revoke a token, its children, leases and cubbyhole.',
      fields: TOKEN_FIELD,
      operations: {
        update: async (request) => {
          const token = tokens.store.bySecret(namedToken(request));
          if (token) await tokens.revokeTree(token);
          return undefined;
        },
      },
    },
    {
      pattern: 'revoke-accessor',
      summary: 'Revoke a token by accessor.',
      fields: ACCESSOR_FIELD,
      operations: {
        update: async (request) => {
          const token = tokens.store.byAccessor(request.fields.get<string | undefined>('accessor') ?? '');
          if (!token) throw badRequest('invalid accessor');
          await tokens.revokeTree(token);
          return undefined;
        },
      },
    },
    {
      pattern: 'revoke-orphan',
      summary: 'Revoke a token but keep its children, which become orphans.',
      fields: TOKEN_FIELD,
      // Not root-protected in the table: the handler checks sudo itself and answers a 400.
      operations: {
        update: async (request) => {
          if (!acl.hasSudo(caller(request), 'auth/token/revoke-orphan'))
            throw badRequest('root or sudo privileges required to revoke and orphan');
          const token = tokens.store.bySecret(namedToken(request));
          if (token) await tokens.revokeOrphan(token);
          return undefined;
        },
      },
    },
    {
      pattern: 'accessors',
      summary: 'Accessors of every token.',
      sudo: true,
      operations: { list: () => ({ data: { keys: tokens.store.accessors() } }) },
    },
  ];
  return { type: 'token', paths };
}
