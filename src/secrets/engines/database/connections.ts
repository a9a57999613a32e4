import { badRequest, notFound } from '../../../core/errors.js';
import { upstream500 } from '../../framework/errors.js';
import type { FieldSpec, HandlerRequest, LogicalResponse, PathSpec } from '../../framework/types.js';
import type { PasswordPolicyStore } from '../../passwords/policy-store.js';
import { ConnectionPools, pluginFor, pluginType } from './pools.js';
import { keys, listing, readConnection, type ConnectionConfig } from './store.js';

const CONNECTION_FIELDS: Record<string, FieldSpec> = {
  name: { type: 'string', description: 'Connection name (in the URL).' },
  plugin_name: { type: 'string', description: 'Database plugin.' },
  verify_connection: { type: 'bool', description: 'Connect once before saving.', default: true },
  allowed_roles: { type: 'commaStringSlice', description: 'Roles that may use the connection; `*` for any.', default: [] },
  root_rotation_statements: { type: 'stringSlice', description: 'Statements that rotate the root password.', default: [] },
  password_policy: { type: 'string', description: 'Password policy for generated passwords.', default: '' },
};

/** Keys of the request that are settings of the engine, not of the plugin. */
const ENGINE_KEYS = new Set([...Object.keys(CONNECTION_FIELDS), 'plugin_version']);
/** Never read back. */
const HIDDEN_DETAILS = ['password', 'private_key'];

export const driverError = (prefix: string, error: unknown) => badRequest(`${prefix}${(error as Error).message || String(error)}`);

/** A URL with a literal password (not `{{password}}`), as Go's url.Redacted() shows it. */
function literalPassword(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    if (parsed.password === '' || decodeURIComponent(parsed.password) === '{{password}}') return undefined;
    parsed.password = 'xxxxx';
    return parsed.toString();
  } catch {
    return undefined;
  }
}

function connectionView(config: ConnectionConfig): Record<string, unknown> {
  const details: Record<string, unknown> = { ...config.connection_details };
  for (const hidden of HIDDEN_DETAILS) delete details[hidden];
  const url = typeof details['connection_url'] === 'string' ? details['connection_url'] : '';
  const redacted = literalPassword(url);
  if (redacted !== undefined) details['connection_url'] = redacted;
  return {
    plugin_name: config.plugin_name,
    connection_details: details,
    allowed_roles: config.allowed_roles,
    // The real engine reads the statements back under this name.
    root_credentials_rotate_statements: config.root_rotation_statements,
    password_policy: config.password_policy,
    verify_connection: config.verify_connection,
  };
}

const nameOf = (request: HandlerRequest) => request.params['name'] ?? '';

/** `config/:name`, `reset/:name`, `rotate-root/:name`. */
export function connectionPaths(pools: ConnectionPools, passwords: PasswordPolicyStore): PathSpec[] {
  const write = async (request: HandlerRequest): Promise<LogicalResponse | undefined> => {
    const { fields, storage } = request;
    const name = nameOf(request);
    const existing = readConnection(storage, name);
    const details: Record<string, unknown> = request.operation === 'create' || !existing ? {} : { ...existing.connection_details };
    for (const [key, value] of Object.entries(request.data)) if (!ENGINE_KEYS.has(key)) details[key] = value;
    const keep = <K extends keyof ConnectionConfig>(key: K, fallback: ConnectionConfig[K]): ConnectionConfig[K] =>
      fields.has(key) ? fields.get<ConnectionConfig[K]>(key) : (existing?.[key] ?? fallback);
    const config: ConnectionConfig = {
      plugin_name: keep('plugin_name', ''),
      connection_details: details,
      allowed_roles: keep('allowed_roles', []),
      root_rotation_statements: keep('root_rotation_statements', []),
      password_policy: keep('password_policy', ''),
      verify_connection: fields.get<boolean>('verify_connection'),
    };
    if (config.plugin_name === '') throw badRequest('empty plugin name');
    pluginType(config.plugin_name);
    if (config.password_policy !== '' && passwords.raw(config.password_policy) === undefined) {
      throw badRequest(`password policy "${config.password_policy}" does not exist`);
    }

    // Call the database first; only a connection that opened is stored.
    const plugin = pluginFor(config);
    try {
      await plugin.initialize(config.verify_connection);
    } catch (error) {
      await plugin.close().catch(() => undefined);
      throw driverError('error creating database object: ', error);
    }
    storage.put(keys.connection(name), config);
    pools.replace(request.mount.uuid, name, plugin);
    const url = typeof details['connection_url'] === 'string' ? details['connection_url'] : '';
    if (literalPassword(url) !== undefined) {
      return {
        warnings: [
          'Password found in connection_url, use a templated url to enable root rotation and prevent read access to password information.',
        ],
      };
    }
    return undefined;
  };

  const existing = (request: HandlerRequest) => {
    const config = readConnection(request.storage, nameOf(request));
    if (!config) throw badRequest(`failed to find entry for connection with name: ${JSON.stringify(nameOf(request))}`);
    return config;
  };

  return [
    {
      pattern: 'config',
      summary: 'Names of the configured connections.',
      operations: {
        list: (request) => {
          const names = listing(request.storage, 'config/');
          if (names.length === 0) throw notFound();
          return { data: { keys: names } };
        },
      },
    },
    {
      pattern: 'config/:name',
      summary: 'Configure, read or delete a connection to a database.',
      fields: CONNECTION_FIELDS,
      existenceCheck: (request) => readConnection(request.storage, nameOf(request)) !== undefined,
      operations: {
        create: write,
        update: write,
        read: (request) => {
          const config = readConnection(request.storage, nameOf(request));
          if (!config) throw notFound();
          return { data: connectionView(config) };
        },
        delete: async (request) => {
          request.storage.delete(keys.connection(nameOf(request)));
          await pools.close(request.mount.uuid, nameOf(request));
          return undefined;
        },
      },
    },
    {
      pattern: 'reset/:name',
      summary: 'Close the connection and open it again from the stored configuration.',
      operations: {
        update: async (request) => {
          const config = existing(request);
          await pools.close(request.mount.uuid, nameOf(request));
          const plugin = pluginFor(config);
          try {
            await plugin.initialize(true);
          } catch (error) {
            await plugin.close().catch(() => undefined);
            throw driverError('error creating database object: ', error);
          }
          pools.replace(request.mount.uuid, nameOf(request), plugin);
          return undefined;
        },
      },
    },
    {
      pattern: 'rotate-root/:name',
      summary: "Change the root user's password in the database and in storage; the new one is never shown.",
      operations: {
        update: async (request) => {
          const name = nameOf(request);
          const config = existing(request);
          const username = config.connection_details['username'];
          if (typeof username !== 'string' || username === '')
            throw upstream500(badRequest('unable to rotate root credentials: no username in configuration'));
          const password = passwords.generate(config.password_policy);
          try {
            const plugin = await pools.get(request.mount.uuid, name, config);
            await plugin.changePassword({ statements: config.root_rotation_statements, username, password });
          } catch (error) {
            throw upstream500(driverError('failed to update user: ', error));
          }
          // Re-read: the stored connection may have been written while the database was busy.
          const current = readConnection(request.storage, name) ?? config;
          request.storage.put(keys.connection(name), { ...current, connection_details: { ...current.connection_details, password } });
          // Pooled connections logged in with the old password; new ones must use the new one.
          await pools.close(request.mount.uuid, name);
          return undefined;
        },
      },
    },
  ];
}
