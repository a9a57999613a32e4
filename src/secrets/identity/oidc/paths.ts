import { badRequest, notFound } from '../../../core/errors.js';
import { base62 } from '../../../core/ids.js';
import type { HandlerRequest, LogicalResponse, PathSpec } from '../../framework/types.js';
import type { IdentityStore } from '../identity-store.js';
import { parseRendered, renderJsonTemplate, RESERVED_CLAIMS } from './claims.js';
import { introspect } from './introspect.js';
import { isOidcAlgorithm, OIDC_ALGORITHMS, rotateKey, signClaims, type NamedKeyRecord } from './keys.js';
import { DEFAULT_KEY, OIDC_KEYS, type OidcProvider, type OidcRole } from './provider.js';

const DAY = 24 * 60 * 60;
const name = (request: HandlerRequest) => request.params['name'] ?? '';

/** A bare JSON body, as the real service answers its discovery, key set and introspection paths. */
export const rawJson = (value: unknown): LogicalResponse => ({
  raw: { status: 200, contentType: 'application/json', body: JSON.stringify(value) },
});

const listed = (keys: string[]): LogicalResponse => {
  if (keys.length === 0) throw notFound();
  return { data: { keys } };
};

/** A role's template as given: base64 when it decodes to text, else the text itself. */
function decodeTemplate(template: string): string {
  if (template !== '' && /^[A-Za-z0-9+/]+={0,2}$/.test(template) && template.length % 4 === 0) {
    return Buffer.from(template, 'base64').toString('utf8');
  }
  return template;
}

function configPaths(oidc: OidcProvider): PathSpec[] {
  return [
    {
      pattern: 'oidc/config',
      summary: 'The issuer of identity tokens.',
      fields: { issuer: { type: 'string', description: 'Scheme, host and optional port tokens name as their issuer.' } },
      operations: {
        read: () => ({ data: { issuer: oidc.configuredIssuer() } }),
        update: (request) => {
          if (!request.fields.has('issuer')) return undefined;
          const issuer = request.fields.get<string>('issuer');
          if (issuer !== '' && !validIssuer(issuer)) {
            throw badRequest('invalid issuer, which must include only a scheme, host, and optional port (e.g. https://example.com:8200)');
          }
          oidc.storage.put(OIDC_KEYS.config, { issuer });
          if (issuer === '') return undefined;
          return {
            warnings: [
              'If "issuer" is set explicitly, all tokens must be validated against that address, ' +
                'including those issued by secondary clusters. Setting issuer to "" will restore the default behavior ' +
                "of using the cluster's api_addr as the issuer.",
            ],
          };
        },
      },
    },
  ];
}

function validIssuer(issuer: string): boolean {
  try {
    const url = new URL(issuer);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.host !== '' && issuer === `${url.protocol}//${url.host}`;
  } catch {
    return false;
  }
}

function keyPaths(oidc: OidcProvider): PathSpec[] {
  const keyWire = (key: NamedKeyRecord) => ({
    algorithm: key.algorithm,
    allowed_client_ids: key.allowedClientIds,
    rotation_period: key.rotationPeriod,
    verification_ttl: key.verificationTtl,
  });
  return [
    {
      pattern: 'oidc/key',
      summary: 'List the named keys.',
      operations: {
        list: () => {
          oidc.ensureDefaultKey();
          return listed(oidc.keys().map((key) => key.name));
        },
      },
    },
    {
      pattern: 'oidc/key/:name',
      summary: 'Create, read, update and delete a named key.',
      fields: {
        name: { type: 'string', description: 'Name of the key.' },
        rotation_period: { type: 'duration', description: 'How often a new key pair is made.', default: DAY },
        verification_ttl: { type: 'duration', description: 'How long a rotated public key stays published.', default: DAY },
        algorithm: { type: 'string', description: 'Signing algorithm.', default: 'RS256', example: 'ES256' },
        allowed_client_ids: { type: 'commaStringSlice', description: 'Client ids of roles that may sign with the key; "*" for all.' },
      },
      existenceCheck: (request) => oidc.key(name(request)) !== undefined,
      operations: {
        create: (request) => writeKey(oidc, request),
        update: (request) => writeKey(oidc, request),
        read: (request) => {
          if (name(request) === DEFAULT_KEY) oidc.ensureDefaultKey();
          const key = oidc.key(name(request));
          if (!key) throw badRequest(`no named key found at ${JSON.stringify(name(request))}`);
          return { data: keyWire(key) };
        },
        delete: (request) => {
          const users = oidc.roles().filter((role) => oidc.role(role)?.key === name(request));
          if (users.length > 0) {
            throw badRequest(
              `unable to delete key ${JSON.stringify(name(request))} because it is currently referenced by these roles: ` +
                users.join(', '),
            );
          }
          oidc.deleteKey(name(request));
          return undefined;
        },
      },
    },
    {
      pattern: 'oidc/key/:name/rotate',
      summary: 'Rotate a named key now.',
      fields: {
        name: { type: 'string', description: 'Name of the key.' },
        verification_ttl: { type: 'duration', description: 'How long the retired public key stays published (this rotation only).' },
      },
      operations: {
        update: (request) => {
          const key = oidc.key(name(request));
          if (!key) throw badRequest(`no named key found at ${JSON.stringify(name(request))}`);
          const ttl = request.fields.has('verification_ttl') ? request.fields.get<number>('verification_ttl') : key.verificationTtl;
          oidc.putKey(rotateKey(key, oidc.sealer, oidc.clock.nowMs(), ttl));
          return undefined;
        },
      },
    },
  ];
}

/** Validates everything before anything is stored, so a refused write leaves the key as it was. */
function writeKey(oidc: OidcProvider, request: HandlerRequest): undefined {
  const existing = request.operation === 'update' ? oidc.key(name(request)) : undefined;
  const pick = <T>(field: string, current: T | undefined): T =>
    request.fields.has(field) || current === undefined ? request.fields.get<T>(field) : current;
  const rotationPeriod = pick('rotation_period', existing?.rotationPeriod);
  if (rotationPeriod < 60) throw badRequest('rotation_period must be at least one minute');
  const verificationTtl = pick('verification_ttl', existing?.verificationTtl);
  if (verificationTtl > 10 * rotationPeriod) throw badRequest('verification_ttl cannot be longer than 10x rotation_period');
  const allowedClientIds = pick<string[] | undefined>('allowed_client_ids', existing?.allowedClientIds) ?? [];
  const algorithm = pick('algorithm', existing?.algorithm);
  if (!isOidcAlgorithm(algorithm)) throw badRequest(`unknown signing algorithm ${JSON.stringify(algorithm)}`);
  const settings = { algorithm, rotationPeriod, verificationTtl, allowedClientIds };
  const nextRotation = oidc.clock.nowMs() + rotationPeriod * 1000;
  if (!existing || existing.algorithm !== algorithm) {
    // A new key, or a new algorithm: a new key pair; the old one (if any) stays on the ring until it expires.
    const fresh = oidc.createKey(name(request), settings);
    const retired = (existing?.ring ?? []).map((entry) =>
      entry.kid === existing?.signingKid ? { ...entry, expireAt: oidc.clock.nowMs() + verificationTtl * 1000 } : entry,
    );
    oidc.putKey({ ...fresh, ring: [...retired, ...fresh.ring], nextRotation: Math.min(existing?.nextRotation ?? Infinity, nextRotation) });
  } else {
    oidc.putKey({ ...existing, ...settings, nextRotation: Math.min(existing.nextRotation, nextRotation) });
  }
  return undefined;
}

function rolePaths(oidc: OidcProvider, identity: IdentityStore): PathSpec[] {
  return [
    {
      pattern: 'oidc/role',
      summary: 'List the roles.',
      operations: { list: () => listed(oidc.roles()) },
    },
    {
      pattern: 'oidc/role/:name',
      summary: 'Create, read, update and delete a role tokens are minted for.',
      fields: {
        name: { type: 'string', description: 'Name of the role.' },
        key: { type: 'string', description: 'The named key that signs the tokens (must exist).', default: DEFAULT_KEY },
        template: { type: 'string', description: 'Claims template: JSON, or JSON in base64.', default: '' },
        ttl: { type: 'duration', description: 'Lifetime of the tokens.', default: DAY },
        client_id: { type: 'string', description: 'Client id the tokens are for (their audience); made when not given.' },
      },
      existenceCheck: (request) => oidc.role(name(request)) !== undefined,
      operations: {
        create: (request) => writeRole(oidc, identity, request),
        update: (request) => writeRole(oidc, identity, request),
        read: (request) => {
          const role = oidc.role(name(request));
          if (!role) throw notFound();
          return { data: { client_id: role.clientId, key: role.key, template: role.template, ttl: role.ttl } };
        },
        delete: (request) => {
          oidc.storage.delete(OIDC_KEYS.role + name(request));
          return undefined;
        },
      },
    },
    {
      pattern: 'oidc/token/:name',
      summary: "Mint a signed identity token for the caller's entity.",
      fields: { name: { type: 'string', description: 'Name of the role.' } },
      operations: {
        read: (request) => mintToken(oidc, identity, request),
      },
    },
  ];
}

function writeRole(oidc: OidcProvider, identity: IdentityStore, request: HandlerRequest): undefined {
  const existing = request.operation === 'update' ? oidc.role(name(request)) : undefined;
  const pick = <T>(field: string, current: T | undefined): T =>
    request.fields.has(field) || current === undefined ? request.fields.get<T>(field) : current;
  const key = pick('key', existing?.key);
  if (key === '') throw badRequest('the key parameter is required');
  if (key === DEFAULT_KEY) oidc.ensureDefaultKey();
  if (!oidc.key(key)) throw badRequest(`key ${JSON.stringify(key)} does not exist`);
  const template = decodeTemplate(pick('template', existing?.template));
  if (template !== '') {
    const parsed = parseRendered(renderJsonTemplate(template, identity, undefined));
    if (typeof parsed === 'string') throw badRequest(`error parsing template JSON: ${parsed}`);
    const reserved = Object.keys(parsed).find((claim) => RESERVED_CLAIMS.includes(claim));
    if (reserved !== undefined) {
      throw badRequest(`top level key ${JSON.stringify(reserved)} not allowed. Restricted keys: ${RESERVED_CLAIMS.join(', ')}`);
    }
  }
  const role: OidcRole = {
    name: name(request),
    key,
    template,
    ttl: pick('ttl', existing?.ttl),
    clientId: existing?.clientId || request.fields.get<string | undefined>('client_id') || base62(26),
  };
  oidc.storage.put(OIDC_KEYS.role + role.name, role);
  return undefined;
}

function mintToken(oidc: OidcProvider, identity: IdentityStore, request: HandlerRequest): LogicalResponse {
  const role = oidc.role(name(request));
  if (!role) throw badRequest(`role ${JSON.stringify(name(request))} not found`);
  const key = oidc.key(role.key);
  if (!key) throw badRequest(`key ${JSON.stringify(role.key)} not found`);
  if (!key.allowedClientIds.includes('*') && !key.allowedClientIds.includes(role.clientId)) {
    throw badRequest(
      `the key ${JSON.stringify(role.key)} does not list the client ID of the role ${JSON.stringify(role.name)} as an allowed client ID`,
    );
  }
  const entityId = request.token?.entityId ?? '';
  const entity = entityId === '' ? undefined : identity.state().entityOrMerged(entityId);
  if (!entity) throw badRequest("no entity associated with the request's token");
  const now = Math.floor(oidc.clock.nowMs() / 1000);
  const claims: Record<string, unknown> = {};
  if (role.template !== '') {
    const parsed = parseRendered(renderJsonTemplate(role.template, identity, entity.id));
    // As upstream: a template that fails at mint time is dropped, the basic token is still issued.
    if (typeof parsed !== 'string') for (const [claim, value] of Object.entries(parsed)) claims[claim] = value;
  }
  for (const reserved of RESERVED_CLAIMS) delete claims[reserved];
  const token = signClaims(
    key,
    {
      iss: oidc.issuer(request.origin),
      namespace: 'root',
      sub: entity.id,
      aud: role.clientId,
      exp: now + role.ttl,
      iat: now,
      ...claims,
    },
    oidc.sealer,
  );
  return { data: { token, client_id: role.clientId, ttl: role.ttl } };
}

function wellKnownPaths(oidc: OidcProvider, identity: IdentityStore): PathSpec[] {
  return [
    {
      pattern: 'oidc/.well-known/openid-configuration',
      summary: 'OIDC discovery document of the identity token issuer.',
      unauthenticated: ['read'],
      neverWrapped: true,
      operations: {
        read: (request) => {
          const issuer = oidc.issuer(request.origin);
          return rawJson({
            issuer,
            jwks_uri: `${issuer}/.well-known/keys`,
            response_types_supported: ['id_token'],
            subject_types_supported: ['public'],
            id_token_signing_alg_values_supported: OIDC_ALGORITHMS,
          });
        },
      },
    },
    {
      pattern: 'oidc/.well-known/keys',
      summary: 'Public keys that verify identity tokens (current and recently rotated).',
      unauthenticated: ['read'],
      neverWrapped: true,
      operations: {
        read: () => {
          oidc.ensureDefaultKey();
          return rawJson({ keys: oidc.publishedKeys() });
        },
      },
    },
    {
      pattern: 'oidc/introspect',
      summary: 'Check an identity token: signature, issuer, expiry, audience and its entity.',
      fields: {
        token: { type: 'string', description: 'The token to check.', default: '' },
        client_id: { type: 'string', description: 'Audience the token must be for (optional).', default: '' },
      },
      operations: {
        update: (request) =>
          rawJson(introspect(oidc, identity, request.fields.get('token'), request.fields.get('client_id'), request.origin)),
      },
    },
  ];
}

/** The provider's paths under `identity/`. */
export function oidcPaths(oidc: OidcProvider, identity: IdentityStore): PathSpec[] {
  return [...configPaths(oidc), ...keyPaths(oidc), ...rolePaths(oidc, identity), ...wellKnownPaths(oidc, identity)];
}
