import { randomUUID } from 'node:crypto';
import { badRequest, notFound } from '../../core/errors.js';
import type { EngineFactory } from '../context.js';
import type { FieldSpec, HandlerRequest, LogicalResponse, PathSpec } from '../framework/types.js';
import { existingRole, ROLE_NAME, ROLE_NAME_FIELD, roleKey, type RoleEntry } from './approle-role.js';
import { parseCidrs } from './cidr.js';
import { approleLogin, secretIdPaths } from './approle-secret-ids.js';
import { DEFAULT_TOKEN_SETTINGS, parseTokenSettings, TOKEN_FIELDS, tokenSettingsWire } from './token-settings.js';
import { upstream500 } from '../framework/errors.js';

const ROLE_FIELDS: Record<string, FieldSpec> = {
  ...ROLE_NAME_FIELD,
  role_id: { type: 'string', description: 'Role ID to use instead of a generated one.' },
  bind_secret_id: { type: 'bool', description: 'Whether login needs a secret ID (default true).' },
  secret_id_bound_cidrs: { type: 'commaStringSlice', description: 'Addresses logins with this role may come from.' },
  bound_cidr_list: { type: 'commaStringSlice', description: 'Legacy name of secret_id_bound_cidrs.' },
  secret_id_num_uses: { type: 'int', description: 'Logins each secret ID allows; 0 is unlimited.' },
  secret_id_ttl: { type: 'duration', description: 'Lifetime of secret IDs; 0 is unlimited.' },
  local_secret_ids: { type: 'bool', description: 'Accepted at creation; there is no replication.' },
  period: { type: 'duration', description: 'Legacy name of token_period.' },
  ...TOKEN_FIELDS,
};

function setRoleId(request: HandlerRequest, role: RoleEntry, roleId: string): void {
  if (roleId === '') throw badRequest('missing role_id');
  const owner = request.storage.get<string>(`role_id/${roleId}`);
  if (owner !== undefined && owner !== role.name) throw badRequest('role_id already in use');
  if (role.roleId !== roleId) request.storage.delete(`role_id/${role.roleId}`);
  request.storage.put(`role_id/${roleId}`, role.name);
  role.roleId = roleId;
}

function writeRole(request: HandlerRequest): LogicalResponse | undefined {
  const { fields } = request;
  const key = roleKey(request);
  const current = request.storage.get<RoleEntry>(key);
  const role: RoleEntry = current ?? {
    name: key.slice('role/'.length),
    roleId: '',
    bindSecretId: true,
    secretIdBoundCidrs: [],
    secretIdNumUses: 0,
    secretIdTtl: 0,
    localSecretIds: fields.has('local_secret_ids') && fields.get<boolean>('local_secret_ids'),
    settings: DEFAULT_TOKEN_SETTINGS,
  };
  if (fields.has('bind_secret_id')) role.bindSecretId = fields.get<boolean>('bind_secret_id');
  const cidrField = ['secret_id_bound_cidrs', 'bound_cidr_list'].find((name) => fields.has(name));
  if (cidrField) role.secretIdBoundCidrs = parseCidrs(fields.get<string[]>(cidrField), cidrField);
  if (fields.has('secret_id_num_uses')) role.secretIdNumUses = fields.get<number>('secret_id_num_uses');
  if (role.secretIdNumUses < 0) throw badRequest('secret_id_num_uses cannot be negative');
  if (fields.has('secret_id_ttl')) role.secretIdTtl = fields.get<number>('secret_id_ttl');
  role.settings = parseTokenSettings(request, role.settings);
  if (fields.has('period') && !fields.has('token_period')) role.settings = { ...role.settings, period: fields.get<number>('period') };
  if (!role.bindSecretId && role.secretIdBoundCidrs.length === 0 && role.settings.boundCidrs.length === 0) {
    throw badRequest('at least one constraint should be enabled on the role');
  }
  // Checked last, so a refused write leaves no role ID index behind.
  setRoleId(request, role, fields.has('role_id') ? fields.get<string>('role_id').trim() : role.roleId || randomUUID());
  request.storage.put(key, role);
  return undefined;
}

function roleWire(role: RoleEntry): Record<string, unknown> {
  return {
    bind_secret_id: role.bindSecretId,
    local_secret_ids: role.localSecretIds,
    secret_id_bound_cidrs: role.secretIdBoundCidrs,
    secret_id_num_uses: role.secretIdNumUses,
    secret_id_ttl: role.secretIdTtl,
    ...tokenSettingsWire(role.settings),
    ...(role.settings.period > 0 ? { period: role.settings.period } : {}),
  };
}

/** The `approle` auth method: roles, their role IDs and secret IDs, and the login with both. */
export const approleMethod: EngineFactory = (context) => {
  const paths: PathSpec[] = [
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
      pattern: 'role/:role_name',
      summary: 'Create, read, update or delete a role.',
      fields: ROLE_FIELDS,
      existenceCheck: (request) => ROLE_NAME.test(request.params['role_name'] ?? '') && request.storage.get(roleKey(request)) !== undefined,
      operations: {
        read: (request) => {
          const role = request.storage.get<RoleEntry>(roleKey(request));
          if (!role) throw notFound();
          return { data: roleWire(role) };
        },
        create: writeRole,
        update: writeRole,
        delete: (request) => {
          const key = roleKey(request);
          const role = request.storage.get<RoleEntry>(key);
          if (!role) return undefined;
          request.storage.deletePrefix(`secret_id/${role.name}/`);
          request.storage.deletePrefix(`accessor/${role.name}/`);
          request.storage.delete(`role_id/${role.roleId}`);
          request.storage.delete(key);
          return undefined;
        },
      },
    },
    {
      pattern: 'role/:role_name/role-id',
      summary: "Read or set a role's role ID.",
      fields: { ...ROLE_NAME_FIELD, role_id: { type: 'string', description: 'The new role ID.' } },
      operations: {
        read: (request) => {
          const role = request.storage.get<RoleEntry>(roleKey(request));
          if (!role) throw notFound();
          return { data: { role_id: role.roleId } };
        },
        update: (request) => {
          const role = existingRole(request);
          setRoleId(request, role, (request.fields.get<string | undefined>('role_id') ?? '').trim());
          request.storage.put(roleKey(request), role);
          return undefined;
        },
      },
    },
    ...secretIdPaths(context),
    {
      pattern: 'login',
      summary: 'Log in with a role ID and secret ID; answers a token.',
      fields: {
        role_id: { type: 'string', description: 'The role ID.' },
        secret_id: { type: 'string', description: 'A secret ID of the role (when it binds one).' },
      },
      unauthenticated: ['create', 'update'],
      operations: { update: (request) => approleLogin(context, request) },
    },
  ];
  return {
    type: 'approle',
    paths,
    // The role whose role ID the login sends.
    resolveRole: ({ data, storage }) =>
      typeof data['role_id'] === 'string' && data['role_id'] !== '' ? storage.get<string>(`role_id/${data['role_id']}`) : undefined,
    renewLogin: (token, storage) => {
      const name = token.meta?.['role_name'] ?? '';
      const role = storage.get<RoleEntry>(`role/${name}`);
      if (!role) throw upstream500(badRequest(`role "${name}" does not exist during renewal`));
      return role.settings;
    },
  };
};
