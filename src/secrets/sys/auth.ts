import { badRequest } from '../../core/errors.js';
import { textOf } from '../../core/json.js';
import type { SecretsContext } from '../context.js';
import type { FieldSpec, HandlerRequest, PathSpec } from '../framework/types.js';
import { effectiveTtls } from '../leases/ttl.js';
import { mountPath, type MountRow } from '../mounts/mount-table.js';
import { MountStorage } from '../storage/mount-storage.js';
import { mergeConfig, mountInfoWire } from './mounts.js';

const ENABLE_FIELDS: Record<string, FieldSpec> = {
  path: { type: 'string', description: 'Where to enable the method, under `auth/` (in the URL).' },
  type: { type: 'string', description: 'Auth method: userpass or approle.' },
  description: { type: 'string', description: 'Free text shown in listings.', default: '' },
  config: { type: 'map', description: 'default_lease_ttl, max_lease_ttl, listing_visibility.' },
  options: { type: 'kvPairs', description: 'Method options (strings).' },
  local: { type: 'bool', description: 'Accepted; there is no replication.', default: false },
  seal_wrap: { type: 'bool', description: 'Accepted; there is no seal.', default: false },
};

const TUNE_FIELDS: Record<string, FieldSpec> = {
  path: { type: 'string', description: 'The auth mount (in the URL).' },
  default_lease_ttl: { type: 'any', description: 'Default TTL of issued tokens: seconds or a duration; "system" resets it.' },
  max_lease_ttl: { type: 'any', description: 'Maximum TTL of issued tokens: seconds or a duration; "system" resets it.' },
  description: { type: 'string', description: 'New description.' },
  listing_visibility: { type: 'string', description: '"unauth" to list the method in the login UI, "" or "hidden" otherwise.' },
  token_type: { type: 'string', description: '`default-service` or `service` (the tokens understudy issues).' },
};

const LISTING_VISIBILITY = new Set(['', 'hidden', 'unauth']);
const TOKEN_TYPES = new Set(['default-service', 'service', 'default']);

/** `config` plus what only auth mounts have (listing_visibility), validated. */
function authConfig(base: Record<string, unknown>, input: Record<string, unknown>): Record<string, unknown> {
  const config = mergeConfig(base, input);
  const visibility = input['listing_visibility'];
  if (visibility !== undefined && visibility !== null) {
    if (typeof visibility !== 'string' || !LISTING_VISIBILITY.has(visibility)) {
      throw badRequest(`invalid listing_visibility ${textOf(visibility)}`);
    }
    if (visibility === '') delete config['listing_visibility'];
    else config['listing_visibility'] = visibility;
  }
  const tokenType = input['token_type'];
  // The CLI sends an empty token_type with every enable.
  if (tokenType !== undefined && tokenType !== null && tokenType !== '' && (typeof tokenType !== 'string' || !TOKEN_TYPES.has(tokenType))) {
    throw badRequest(`token_type "${textOf(tokenType)}" is not supported by understudy; only service tokens are issued`);
  }
  return config;
}

/** An auth mount as `sys/auth` lists it: a mount entry whose config also names the token type. */
function authMountWire(mount: MountRow) {
  const wire = mountInfoWire(mount);
  return { ...wire, config: { ...wire.config, token_type: 'default-service' } };
}

/** `sys/auth…`: the table of enabled auth methods. Disabling one revokes every token it issued. */
export function authMountPaths(context: SecretsContext): PathSpec[] {
  const { authMounts, tokens } = context;
  const pathParam = (request: HandlerRequest) => request.params['path'] ?? '';

  const tunable = (request: HandlerRequest): MountRow => {
    const mount = authMounts.get(pathParam(request));
    if (!mount) throw badRequest(`cannot fetch sysview for path "auth/${mountPath(pathParam(request))}"`);
    return mount;
  };

  return [
    {
      pattern: 'auth',
      summary: 'Every enabled auth method, keyed by path (token/ always).',
      operations: {
        read: () => {
          const data = Object.fromEntries(authMounts.all().map((mount) => [mount.path, authMountWire(mount)]));
          return { data, dataAtTopLevel: true };
        },
      },
    },
    {
      pattern: 'auth/:path*/tune',
      summary: "An auth mount's token TTLs and listing visibility; writing changes them.",
      // Root-protected, like everything under `sys/auth/` in the real service.
      sudo: true,
      fields: TUNE_FIELDS,
      operations: {
        read: (request) => {
          const mount = tunable(request);
          const { defaultTtl, maxTtl } = effectiveTtls(mount.config);
          const visibility = mount.config['listing_visibility'];
          const data = {
            description: mount.description,
            default_lease_ttl: defaultTtl,
            max_lease_ttl: maxTtl,
            force_no_cache: mount.config['force_no_cache'] === true,
            token_type: 'default-service',
            ...(typeof visibility === 'string' ? { listing_visibility: visibility } : {}),
            ...(mount.options ? { options: mount.options } : {}),
          };
          return { data, dataAtTopLevel: true };
        },
        update: (request) => {
          const mount = tunable(request);
          const patch: Parameters<typeof authMounts.update>[1] = { config: authConfig(mount.config, request.data) };
          if (request.fields.has('description')) patch.description = request.fields.get<string>('description');
          authMounts.update(mount.path, patch);
          return undefined;
        },
      },
    },
    {
      pattern: 'auth/:path*',
      summary: 'Enable (POST), read or disable (DELETE) the auth method at a path.',
      sudo: true,
      fields: ENABLE_FIELDS,
      operations: {
        read: (request) => {
          const mount = authMounts.get(pathParam(request));
          if (!mount) throw badRequest(`No auth engine at auth/${mountPath(pathParam(request))}`);
          return { data: authMountWire(mount), dataAtTopLevel: true };
        },
        update: (request) => {
          const type = request.fields.get<string | undefined>('type') ?? '';
          if (type === 'token') throw badRequest('token credential backend cannot be instantiated');
          if (!context.authMethods.has(type)) throw badRequest(`plugin not found in the catalog: ${type}`);
          const config = authConfig({}, request.fields.has('config') ? request.fields.get<Record<string, unknown>>('config') : {});
          authMounts.enable({
            path: pathParam(request),
            type,
            description: request.fields.get<string>('description'),
            config,
            options: request.fields.has('options') ? request.fields.get<Record<string, string>>('options') : null,
            local: request.fields.get<boolean>('local'),
            sealWrap: request.fields.get<boolean>('seal_wrap'),
          });
          return undefined;
        },
        delete: async (request) => {
          if (mountPath(pathParam(request)) === 'token/') throw badRequest('token credential backend cannot be disabled');
          const mount = authMounts.get(pathParam(request));
          if (!mount) return undefined;
          await tokens.revokeIssuedUnder(`auth/${mount.path}`);
          new MountStorage(context.store.db, mount.uuid).clear();
          authMounts.remove(mount.path);
          return undefined;
        },
      },
    },
  ];
}
