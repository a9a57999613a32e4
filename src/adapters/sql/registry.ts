import { mysqlPlugins } from './mysql.js';
import type { SqlPluginType } from './plugin.js';
import { postgresqlPlugin } from './postgresql.js';

/** The database plugins understudy runs, by `plugin_name`. */
export const SQL_PLUGINS: ReadonlyMap<string, SqlPluginType> = new Map(
  [postgresqlPlugin, ...mysqlPlugins].map((plugin) => [plugin.name, plugin]),
);
