import { badRequest, notFound } from '../../../core/errors.js';
import { rethrowAsUpstream500, upstream500 } from '../../framework/errors.js';
import type { Clock } from '../../../core/clock.js';
import type { LeaseManager } from '../../leases/lease-manager.js';
import { effectiveTtls } from '../../leases/ttl.js';
import type { FieldSpec, HandlerRequest, LeaseRecord, LogicalResponse, PathSpec } from '../../framework/types.js';
import type { PasswordPolicyStore } from '../../passwords/policy-store.js';
import type { MountStorage } from '../../storage/mount-storage.js';
import { driverError } from './connections.js';
import { formatExpiration, generateUsername, roleAllowed } from './credentials.js';
import { pluginType, type ConnectionPools } from './pools.js';
import { keys, listing, readConnection, readRole, readStaticRole, type ConnectionConfig, type RoleEntry } from './store.js';

export const CREDENTIAL_TYPES = ['password', 'rsa_private_key'];

export const CREDENTIAL_FIELDS: Record<string, FieldSpec> = {
  name: { type: 'string', description: 'Role name (in the URL).' },
  db_name: { type: 'string', description: 'Connection the role uses.' },
  credential_type: { type: 'string', description: '`password` or `rsa_private_key`.', default: 'password' },
  credential_config: { type: 'kvPairs', description: 'Settings of the credential type (`password_policy`).', default: {} },
};

const ROLE_FIELDS: Record<string, FieldSpec> = {
  ...CREDENTIAL_FIELDS,
  default_ttl: { type: 'duration', description: 'Lease TTL; 0 means the mount default.', default: 0 },
  max_ttl: { type: 'duration', description: 'Longest lease; 0 means the mount maximum.', default: 0 },
  creation_statements: { type: 'stringSlice', description: 'Statements that create the user.', default: [] },
  revocation_statements: { type: 'stringSlice', description: 'Statements that drop the user.', default: [] },
  rollback_statements: { type: 'stringSlice', description: 'Statements that undo a failed creation.', default: [] },
  renew_statements: { type: 'stringSlice', description: 'Statements that extend the user.', default: [] },
};

const nameOf = (request: HandlerRequest) => request.params['name'] ?? '';

/** The connection a role names, or the 400 for a missing one. */
export function connectionOf(storage: MountStorage, dbName: string): ConnectionConfig {
  const config = readConnection(storage, dbName);
  if (!config) throw badRequest(`failed to find entry for connection with name: ${JSON.stringify(dbName)}`);
  return config;
}

/** Refuses a credential type the connection's plugin cannot issue. */
export function checkCredentialType(type: string, config: ConnectionConfig | undefined): void {
  if (!CREDENTIAL_TYPES.includes(type)) throw badRequest(`invalid credential_type ${JSON.stringify(type)}`);
  if (config && !pluginType(config.plugin_name).credentialTypes.includes(type)) {
    throw badRequest(`credential_type ${JSON.stringify(type)} is not supported by the plugin ${JSON.stringify(config.plugin_name)}`);
  }
}

/** The password policy of a credential: the role's, else the connection's, else the default. */
export function policyOf(credentialConfig: Record<string, string>, config: ConnectionConfig): string {
  return credentialConfig['password_policy'] || config.password_policy;
}

export function checkPolicyExists(passwords: PasswordPolicyStore, credentialConfig: Record<string, string>): void {
  const policy = credentialConfig['password_policy'];
  if (policy && passwords.raw(policy) === undefined)
    throw badRequest(`credential_config validation failed: password policy "${policy}" does not exist`);
}

function roleView(role: RoleEntry): Record<string, unknown> {
  return {
    db_name: role.db_name,
    creation_statements: role.creation_statements,
    revocation_statements: role.revocation_statements,
    rollback_statements: role.rollback_statements,
    renew_statements: role.renew_statements,
    default_ttl: role.default_ttl,
    max_ttl: role.max_ttl,
    credential_type: role.credential_type,
    ...(Object.keys(role.credential_config).length > 0 ? { credential_config: role.credential_config } : {}),
  };
}

export interface RoleDependencies {
  pools: ConnectionPools;
  passwords: PasswordPolicyStore;
  leases: LeaseManager;
  clock: Clock;
}

/** `roles/:name` and `creds/:name`. */
export function rolePaths(deps: RoleDependencies): PathSpec[] {
  const { pools, passwords, leases, clock } = deps;

  const write = (request: HandlerRequest): LogicalResponse | undefined => {
    const { fields, storage } = request;
    const name = nameOf(request);
    if (readStaticRole(storage, name)) throw badRequest('Role and Static Role names must be unique');
    const existing = request.operation === 'create' ? undefined : readRole(storage, name);
    const keep = <K extends keyof RoleEntry>(key: K, fallback: RoleEntry[K]): RoleEntry[K] =>
      fields.has(key) ? fields.get<RoleEntry[K]>(key) : (existing?.[key] ?? fallback);
    const role: RoleEntry = {
      db_name: keep('db_name', ''),
      creation_statements: keep('creation_statements', []),
      revocation_statements: keep('revocation_statements', []),
      rollback_statements: keep('rollback_statements', []),
      renew_statements: keep('renew_statements', []),
      default_ttl: keep('default_ttl', 0),
      max_ttl: keep('max_ttl', 0),
      credential_type: keep('credential_type', 'password'),
      credential_config: keep('credential_config', {}),
    };
    if (role.db_name === '') throw badRequest('database name is required');
    if (role.creation_statements.length === 0) throw badRequest('empty creation statements');
    if (role.max_ttl > 0 && role.default_ttl > role.max_ttl) throw badRequest('ttl cannot be greater than max_ttl');
    checkCredentialType(role.credential_type, readConnection(storage, role.db_name));
    checkPolicyExists(passwords, role.credential_config);
    storage.put(keys.role(name), role);
    return undefined;
  };

  const creds = async (request: HandlerRequest): Promise<LogicalResponse> => {
    const { storage } = request;
    const name = nameOf(request);
    const role = readRole(storage, name);
    if (!role) throw badRequest(`unknown role: ${name}`);
    // From here the real engine returns Go errors (500s): upstream500 keeps that for the `upstream` dialect.
    let config: ConnectionConfig;
    try {
      config = connectionOf(storage, role.db_name);
    } catch (error) {
      rethrowAsUpstream500(error);
    }
    if (!roleAllowed(config.allowed_roles, name)) throw upstream500(badRequest(`${JSON.stringify(name)} is not an allowed role`));
    checkCredentialType(role.credential_type, config);

    const mountTtls = effectiveTtls(request.mount.config);
    const maxTtl = Math.min(role.max_ttl || mountTtls.maxTtl, mountTtls.maxTtl);
    const ttl = Math.min(role.default_ttl || mountTtls.defaultTtl, maxTtl);
    const now = clock.nowMs();
    const type = pluginType(config.plugin_name);
    const username = generateUsername(type.username, request.token?.displayName ?? 'token', name, now);
    const password = passwords.generate(policyOf(role.credential_config, config));
    // The user's own expiry outlives the lease a little, so revocation, not the database, ends it.
    const expiration = formatExpiration(new Date(now + (ttl + 5) * 1000));

    const plugin = await pools.get(request.mount.uuid, role.db_name, config).catch((error: unknown) => {
      throw upstream500(driverError('error creating database object: ', error));
    });
    try {
      await plugin.newUser({ statements: role.creation_statements, username, password, expiration });
    } catch (error) {
      throw upstream500(driverError('failed to create user: ', error));
    }
    try {
      const { lease, warnings } = leases.create({
        mount: request.mount,
        path: `creds/${name}`,
        tokenId: request.token?.id ?? null,
        ttl: role.default_ttl,
        maxTtl: role.max_ttl,
        renewable: true,
        revokeData: { username, role: name, db_name: role.db_name },
      });
      return { data: { username, password }, lease, ...(warnings.length > 0 ? { warnings } : {}) };
    } catch (error) {
      // No lease recorded means nobody would ever drop the user: undo it now.
      await plugin.deleteUser({ statements: role.revocation_statements, username }).catch(() => undefined);
      throw error;
    }
  };

  return [
    {
      pattern: 'roles',
      summary: 'Names of the dynamic roles.',
      operations: {
        list: (request) => {
          const names = listing(request.storage, 'role/');
          if (names.length === 0) throw notFound();
          return { data: { keys: names } };
        },
      },
    },
    {
      pattern: 'roles/:name',
      summary: 'Create, read, update or delete a dynamic role.',
      fields: ROLE_FIELDS,
      existenceCheck: (request) => readRole(request.storage, nameOf(request)) !== undefined,
      operations: {
        create: write,
        update: write,
        read: (request) => {
          const role = readRole(request.storage, nameOf(request));
          if (!role) throw notFound();
          return { data: roleView(role) };
        },
        delete: (request) => {
          request.storage.delete(keys.role(nameOf(request)));
          return undefined;
        },
      },
    },
    {
      pattern: 'creds/:name',
      summary: 'Create a database user from the role; leased.',
      operations: { read: creds },
    },
  ];
}

/** What a dynamic credential's lease remembers, to drop or renew the user later. */
interface CredentialLease {
  username: string;
  role: string;
  db_name: string;
}

const leaseData = (lease: LeaseRecord): CredentialLease => lease.revokeData as unknown as CredentialLease;

/** Lease revocation and expiry: the role's revocation statements, or the plugin's safe default. */
export async function revokeCredential(pools: ConnectionPools, lease: LeaseRecord, storage: MountStorage): Promise<void> {
  const { username, role, db_name: dbName } = leaseData(lease);
  const config = connectionOf(storage, dbName);
  const plugin = await pools.get(lease.mountUuid, dbName, config);
  await plugin.deleteUser({ statements: readRole(storage, role)?.revocation_statements ?? [], username });
}

/** Lease renewal: the role's renew statements (PostgreSQL's default moves `VALID UNTIL`). */
export async function renewCredential(pools: ConnectionPools, lease: LeaseRecord, storage: MountStorage, expiresAt: Date): Promise<void> {
  const { username, role, db_name: dbName } = leaseData(lease);
  const config = connectionOf(storage, dbName);
  const plugin = await pools.get(lease.mountUuid, dbName, config);
  await plugin.renewUser({
    statements: readRole(storage, role)?.renew_statements ?? [],
    username,
    expiration: formatExpiration(new Date(expiresAt.getTime() + 5000)),
  });
}
