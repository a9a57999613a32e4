import { badRequest } from '../../../core/errors.js';
import type { ConnectionSettings, SqlPlugin, SqlPluginType } from '../../../adapters/sql/plugin.js';
import { SQL_PLUGINS } from '../../../adapters/sql/registry.js';
import type { ConnectionConfig } from './store.js';
import { textOf } from '../../../core/json.js';

/** The plugin type of `name`, or the 400 that names the supported ones. */
export function pluginType(name: string): SqlPluginType {
  const found = SQL_PLUGINS.get(name);
  if (!found) throw badRequest(`unsupported plugin_name ${JSON.stringify(name)}; supported: ${[...SQL_PLUGINS.keys()].join(', ')}`);
  return found;
}

const text = (value: unknown): string => textOf(value);

function settingsOf(details: Record<string, unknown>): ConnectionSettings {
  const max = Number(details['max_open_connections']);
  const escaping = details['disable_escaping'];
  return {
    connectionUrl: text(details['connection_url'] ?? details['url']),
    username: text(details['username']),
    password: text(details['password']),
    disableEscaping: escaping === true || escaping === 'true',
    maxOpenConnections: Number.isInteger(max) && max > 0 ? max : 4,
  };
}

/** A plugin instance for `config`, not yet connected. */
export function pluginFor(config: ConnectionConfig): SqlPlugin {
  return pluginType(config.plugin_name).create(settingsOf(config.connection_details));
}

/**
 * One open plugin (and so one pool) per configured connection, per mount. Replaced when the
 * connection is written, closed on delete, reset, root rotation and when its mount is disabled, and all
 * closed with the server.
 */
export class ConnectionPools {
  private readonly open = new Map<string, Promise<SqlPlugin>>();

  private static key(mountUuid: string, name: string): string {
    return `${mountUuid}/${name}`;
  }

  /** The open plugin of a connection, opened (without a round trip) on first use. */
  get(mountUuid: string, name: string, config: ConnectionConfig): Promise<SqlPlugin> {
    const key = ConnectionPools.key(mountUuid, name);
    let plugin = this.open.get(key);
    if (!plugin) {
      const created = pluginFor(config);
      plugin = created.initialize(false).then(() => created);
      this.open.set(key, plugin);
      // A failed open is not kept: the next request tries again.
      plugin.catch(() => this.open.get(key) === plugin && this.open.delete(key));
    }
    return plugin;
  }

  /** Puts a freshly verified plugin in place, closing the one it replaces. */
  replace(mountUuid: string, name: string, plugin: SqlPlugin): void {
    const key = ConnectionPools.key(mountUuid, name);
    const previous = this.open.get(key);
    this.open.set(key, Promise.resolve(plugin));
    void previous?.then((old) => old.close()).catch(() => undefined);
  }

  async close(mountUuid: string, name: string): Promise<void> {
    const key = ConnectionPools.key(mountUuid, name);
    const previous = this.open.get(key);
    this.open.delete(key);
    await previous?.then((old) => old.close()).catch(() => undefined);
  }

  /** Every pool of one mount, once the mount is disabled. */
  async closeMount(mountUuid: string): Promise<void> {
    await this.closeWhere((key) => key.startsWith(`${mountUuid}/`));
  }

  async closeAll(): Promise<void> {
    await this.closeWhere(() => true);
  }

  private async closeWhere(matches: (key: string) => boolean): Promise<void> {
    const closing = [...this.open].filter(([key]) => matches(key));
    for (const [key] of closing) this.open.delete(key);
    await Promise.all(closing.map(([, plugin]) => plugin.then((old) => old.close()).catch(() => undefined)));
  }
}
