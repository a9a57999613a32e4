import type mysql from 'mysql2/promise';
import {
  connectionUrlOf,
  renderStatements,
  type ConnectionSettings,
  type SqlPlugin,
  type SqlPluginType,
  type UsernameShape,
} from './plugin.js';

const DEFAULT_CHANGE_PASSWORD = ["ALTER USER '{{name}}'@'%' IDENTIFIED BY '{{password}}';"];

/**
 * Reads the Go driver's DSN the real plugin takes (`user:pass@tcp(host:port)/db?opts`), or a
 * `mysql://` URL. Credentials may be percent-escaped (the default when templated).
 */
export function parseMysqlDsn(dsn: string): mysql.PoolOptions {
  const decode = (value: string) => {
    try {
      return decodeURIComponent(value);
    } catch {
      return value;
    }
  };
  if (/^mysql:\/\//i.test(dsn)) {
    const url = new URL(dsn);
    return {
      host: url.hostname,
      port: Number(url.port || 3306),
      user: decode(url.username),
      password: decode(url.password),
      database: decode(url.pathname.slice(1)) || undefined,
    };
  }
  const slash = dsn.lastIndexOf('/');
  if (slash === -1) throw new Error(`invalid DSN: missing the slash separating the database name`);
  const head = dsn.slice(0, slash);
  const database = dsn.slice(slash + 1).split('?')[0] ?? '';
  const at = head.lastIndexOf('@');
  const credentials = at === -1 ? '' : head.slice(0, at);
  const address = at === -1 ? head : head.slice(at + 1);
  const colon = credentials.indexOf(':');
  const user = colon === -1 ? credentials : credentials.slice(0, colon);
  const password = colon === -1 ? '' : credentials.slice(colon + 1);
  const network = /^(\w+)\(([^)]*)\)$/.exec(address);
  if (address !== '' && !network) throw new Error(`invalid DSN: network address not terminated (missing closing brace)`);
  const options: mysql.PoolOptions = { user: decode(user), password: decode(password), database: decode(database) || undefined };
  if (network?.[1] === 'unix') return { ...options, socketPath: network[2] };
  const [host, port] = (network?.[2] || '127.0.0.1:3306').split(':');
  return { ...options, host: host || '127.0.0.1', port: tcpPort(port || '3306') };
}

/**
 * A DSN's port as Go's dialer reads it: a decimal number up to 65535. The driver would read
 * anything else as NaN and quietly dial the default port, so it is refused with Go's text instead.
 */
function tcpPort(port: string): number {
  if (!/^\d+$/.test(port)) throw new Error(`dial tcp: lookup tcp/${port}: unknown port`);
  const value = Number(port);
  if (value > 65535) throw new Error(`dial tcp: address ${port}: invalid port`);
  return value;
}

class MysqlPlugin implements SqlPlugin {
  private pool: Promise<mysql.Pool> | undefined;

  constructor(private readonly settings: ConnectionSettings) {}

  /** The pool, created on first use; the driver too is loaded then, so start-up never pays for it. */
  private open(): Promise<mysql.Pool> {
    this.pool ??= import('mysql2/promise').then(({ default: driver }) => this.createPool(driver));
    return this.pool;
  }

  private createPool(driver: typeof mysql): mysql.Pool {
    const options = parseMysqlDsn(connectionUrlOf(this.settings));
    const pool = driver.createPool({
      ...options,
      user: options.user || this.settings.username,
      password: options.password || this.settings.password,
      connectionLimit: this.settings.maxOpenConnections,
      maxIdle: 0,
      idleTimeout: 10_000,
      connectTimeout: 10_000,
      // Statements are split at `;` and sent one by one (account DDL cannot be server-side prepared).
      multipleStatements: false,
    });
    return pool;
  }

  async initialize(verify: boolean): Promise<void> {
    const pool = await this.open();
    if (verify) await pool.query('SELECT 1');
  }

  /** MySQL commits account DDL at once, so statements run in order on one connection. */
  private async run(queries: string[]): Promise<void> {
    const connection = await (await this.open()).getConnection();
    try {
      for (const query of queries) await connection.query(query);
    } finally {
      connection.release();
    }
  }

  /** Every host entry of `username` (creation statements choose the host). */
  private async dropEverywhere(username: string): Promise<void> {
    const pool = await this.open();
    const [rows] = await pool.query<mysql.RowDataPacket[]>('SELECT Host AS host FROM mysql.user WHERE User = ?', [username]);
    for (const row of rows) await pool.query('DROP USER IF EXISTS ?@?', [username, String(row['host'])]);
  }

  async newUser(input: { statements: string[]; username: string; password: string; expiration: string }): Promise<void> {
    try {
      await this.run(renderStatements(input.statements, input.username, { password: input.password, expiration: input.expiration }));
    } catch (error) {
      // DDL is not transactional here: undo a CREATE USER that ran before the failing statement.
      await this.dropEverywhere(input.username).catch(() => undefined);
      throw error;
    }
  }

  async changePassword(input: { statements: string[]; username: string; password: string }): Promise<void> {
    const statements = input.statements.length > 0 ? input.statements : DEFAULT_CHANGE_PASSWORD;
    await this.run(renderStatements(statements, input.username, { password: input.password }));
  }

  /** MySQL and MariaDB have no `VALID UNTIL`: expiry is enforced by dropping the user at lease end. */
  async renewUser(input: { statements: string[]; username: string; expiration: string }): Promise<void> {
    if (input.statements.length === 0) return;
    await this.run(renderStatements(input.statements, input.username, { expiration: input.expiration }));
  }

  async deleteUser(input: { statements: string[]; username: string }): Promise<void> {
    if (input.statements.length > 0) {
      await this.run(renderStatements(input.statements, input.username));
      return;
    }
    // DROP USER also removes the user's privileges; every host entry goes.
    await this.dropEverywhere(input.username);
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    await (await pool)?.end();
  }
}

const mysqlType = (name: string, username: UsernameShape): SqlPluginType => ({
  name,
  username,
  credentialTypes: ['password'],
  create: (settings) => new MysqlPlugin(settings),
});

/** The legacy, RDS and Aurora names keep the old 16-character limit of MySQL before 5.7. */
const SHORT_NAMES: UsernameShape = { displayName: 0, role: 4, unixTime: false, maxLength: 16 };

export const mysqlPlugins: SqlPluginType[] = [
  mysqlType('mysql-database-plugin', { displayName: 10, role: 10, unixTime: true, maxLength: 32 }),
  mysqlType('mysql-legacy-database-plugin', SHORT_NAMES),
  mysqlType('mysql-rds-database-plugin', SHORT_NAMES),
  mysqlType('mysql-aurora-database-plugin', SHORT_NAMES),
];
