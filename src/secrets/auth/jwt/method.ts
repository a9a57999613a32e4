import { badRequest, notFound } from '../../../core/errors.js';
import type { EngineFactory } from '../../context.js';
import type { HandlerRequest, LogicalResponse, PathSpec } from '../../framework/types.js';
import { CONFIG_FIELDS, CONFIG_KEY, configWire, readConfigWrite, type JwtConfig } from './config.js';
import { jwtLogin } from './login.js';
import { oidcPaths } from './oidc.js';
import { readRoleWrite, ROLE_FIELDS, roleKey, roleWire, type JwtRole } from './role.js';
import { Validators } from './validators.js';

async function writeConfig(validators: Validators, request: HandlerRequest): Promise<undefined> {
  const config = await readConfigWrite(request, request.storage.get<JwtConfig>(CONFIG_KEY));
  request.storage.put(CONFIG_KEY, config);
  // A configuration write drops the mount's key set, as the real method resets its validator.
  validators.forget(request.mount.uuid);
  return undefined;
}

function writeRole(request: HandlerRequest): LogicalResponse | undefined {
  const key = roleKey(request.params['name'] ?? '');
  const { role, warnings } = readRoleWrite(request, request.storage.get<JwtRole>(key));
  request.storage.put(key, role);
  return warnings.length > 0 ? { data: null, warnings } : undefined;
}

/**
 * The `jwt` and `oidc` auth methods (one method, as for real): a configuration naming where the
 * signing keys come from, roles binding claims to token settings, the login with a signed JWT,
 * and the OIDC browser flow.
 */
export const jwtMethod =
  (type: 'jwt' | 'oidc'): EngineFactory =>
  (context) => {
    const validators = new Validators();
    const paths: PathSpec[] = [
      {
        pattern: 'config',
        summary: 'Read or write the key source, issuer, algorithms and OIDC client of the method.',
        fields: CONFIG_FIELDS,
        operations: {
          read: (request) => {
            const config = request.storage.get<JwtConfig>(CONFIG_KEY);
            if (!config) throw notFound();
            return { data: configWire(config) };
          },
          update: (request) => writeConfig(validators, request),
        },
      },
      {
        pattern: 'role',
        summary: 'Names of the roles.',
        operations: {
          list: (request) => {
            const keys = request.storage.list('role/');
            if (keys.length === 0) throw notFound();
            return { data: { keys } };
          },
        },
      },
      {
        pattern: 'role/:name',
        summary: 'Create, read, update or delete a role.',
        fields: ROLE_FIELDS,
        existenceCheck: (request) => {
          try {
            return request.storage.get(roleKey(request.params['name'] ?? '')) !== undefined;
          } catch {
            return false;
          }
        },
        operations: {
          read: (request) => {
            const role = request.storage.get<JwtRole>(roleKey(request.params['name'] ?? ''));
            if (!role) throw notFound();
            return { data: roleWire(role) };
          },
          create: writeRole,
          update: writeRole,
          delete: (request) => {
            request.storage.delete(roleKey(request.params['name'] ?? ''));
            return undefined;
          },
        },
      },
      {
        pattern: 'login',
        summary: 'Log in with a signed JWT and a role; answers a token.',
        fields: {
          role: { type: 'string', description: 'The role (lower-cased); the default role when omitted.' },
          jwt: { type: 'string', description: 'The signed JWT (compact JWS).' },
          distributed_claim_access_token: { type: 'string', description: 'Accepted and ignored (Azure distributed claims).' },
        },
        unauthenticated: ['create', 'update'],
        operations: { update: (request) => jwtLogin(context, validators, request) },
      },
      ...oidcPaths(context, validators),
    ];
    return {
      type,
      paths,
      renewLogin: (token, storage) => {
        const name = token.meta?.['role'] ?? '';
        const role = storage.get<JwtRole>(`role/${name}`);
        if (!role) throw badRequest(`role ${name} does not exist during renewal`);
        return role.settings;
      },
      unmounted: async (mountUuid) => validators.forget(mountUuid),
      // The login's `role` (or the default role), when that role exists.
      resolveRole: ({ data, storage }) => {
        const named = typeof data['role'] === 'string' ? data['role'].toLowerCase() : '';
        const name = named || (storage.get<JwtConfig>(CONFIG_KEY)?.default_role ?? '');
        return name !== '' && storage.get<JwtRole>(`role/${name}`) ? name : undefined;
      },
    };
  };
