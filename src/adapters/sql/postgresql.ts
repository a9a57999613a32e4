import type pg from 'pg';
import { connectionUrlOf, renderStatements, type ConnectionSettings, type SqlPlugin, type SqlPluginType } from './plugin.js';

const DEFAULT_CHANGE_PASSWORD = ['ALTER ROLE "{{name}}" WITH PASSWORD \'{{password}}\';'];
const DEFAULT_RENEW = ['ALTER ROLE "{{name}}" VALID UNTIL \'{{expiration}}\';'];

/** Schemas in this database where the user holds something a `DROP ROLE` would trip over. */
const SCHEMAS_WITH_GRANTS = `
  SELECT DISTINCT table_schema AS schema FROM information_schema.role_table_grants WHERE grantee = $1
  UNION SELECT DISTINCT table_schema FROM information_schema.role_column_grants WHERE grantee = $1
  UNION SELECT n.nspname FROM pg_namespace n, pg_roles r
    WHERE r.rolname = $1 AND n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'
      AND (has_schema_privilege(r.oid, n.oid, 'USAGE') OR has_schema_privilege(r.oid, n.oid, 'CREATE'))`;

class PostgresPlugin implements SqlPlugin {
  private pool: Promise<pg.Pool> | undefined;

  constructor(private readonly settings: ConnectionSettings) {}

  /** The pool, created on first use; the driver too is loaded then, so start-up never pays for it. */
  private open(): Promise<pg.Pool> {
    this.pool ??= import('pg').then(({ default: driver }) => this.createPool(driver));
    return this.pool;
  }

  private createPool(driver: typeof pg): pg.Pool {
    const pool = new driver.Pool({
      connectionString: connectionUrlOf(this.settings),
      // Used when the URL names no user (a URL without templates).
      user: this.settings.username || undefined,
      password: this.settings.password || undefined,
      max: this.settings.maxOpenConnections,
      connectionTimeoutMillis: 10_000,
      idleTimeoutMillis: 10_000,
      // Idle connections never keep the process (or a test runner) alive.
      allowExitOnIdle: true,
    });
    // A server-side disconnect of an idle client is reported here; the next query reconnects.
    pool.on('error', () => undefined);
    return pool;
  }

  async initialize(verify: boolean): Promise<void> {
    const pool = await this.open();
    if (verify) await pool.query('SELECT 1');
  }

  /**
   * The statements in one transaction: all of them or none. Known up front, they go as one
   * simple-protocol message (one round trip instead of one per statement): the server runs them
   * in order and skips the rest after a failure, which leaves the transaction aborted for the
   * ROLLBACK below.
   */
  private async transaction(queries: string[], extra?: (client: pg.PoolClient) => Promise<string[]>): Promise<void> {
    const client = await (await this.open()).connect();
    try {
      if (extra) {
        await client.query('BEGIN');
        for (const query of [...(await extra(client)), ...queries]) await client.query(query);
        await client.query('COMMIT');
      } else {
        await client.query(['BEGIN', ...queries, 'COMMIT'].join(';\n'));
      }
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async newUser(input: { statements: string[]; username: string; password: string; expiration: string }): Promise<void> {
    await this.transaction(renderStatements(input.statements, input.username, { password: input.password, expiration: input.expiration }));
  }

  async changePassword(input: { statements: string[]; username: string; password: string }): Promise<void> {
    const statements = input.statements.length > 0 ? input.statements : DEFAULT_CHANGE_PASSWORD;
    await this.transaction(renderStatements(statements, input.username, { password: input.password }));
  }

  async renewUser(input: { statements: string[]; username: string; expiration: string }): Promise<void> {
    const statements = input.statements.length > 0 ? input.statements : DEFAULT_RENEW;
    await this.transaction(renderStatements(statements, input.username, { expiration: input.expiration }));
  }

  async deleteUser(input: { statements: string[]; username: string }): Promise<void> {
    if (input.statements.length > 0) {
      await this.transaction(renderStatements(input.statements, input.username));
      return;
    }
    // PostgreSQL refuses DROP ROLE while grants exist, so revoke them first, as the real plugin does.
    await this.transaction([], async (client) => {
      const exists = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [input.username]);
      if (exists.rowCount === 0) return [];
      const role = client.escapeIdentifier(input.username);
      const schemas = await client.query<{ schema: string }>(SCHEMAS_WITH_GRANTS, [input.username]);
      const database = await client.query<{ name: string }>('SELECT current_database() AS name');
      const queries: string[] = [];
      for (const { schema } of schemas.rows) {
        const quoted = client.escapeIdentifier(schema);
        queries.push(
          `REVOKE ALL PRIVILEGES ON ALL TABLES IN SCHEMA ${quoted} FROM ${role}`,
          `REVOKE ALL PRIVILEGES ON ALL SEQUENCES IN SCHEMA ${quoted} FROM ${role}`,
          `REVOKE ALL PRIVILEGES ON ALL FUNCTIONS IN SCHEMA ${quoted} FROM ${role}`,
          `REVOKE ALL PRIVILEGES ON SCHEMA ${quoted} FROM ${role}`,
        );
      }
      queries.push(`REVOKE ALL PRIVILEGES ON DATABASE ${client.escapeIdentifier(database.rows[0]?.name ?? '')} FROM ${role}`);
      queries.push(`DROP ROLE IF EXISTS ${role}`);
      return queries;
    });
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    await (await pool)?.end();
  }
}

export const postgresqlPlugin: SqlPluginType = {
  name: 'postgresql-database-plugin',
  username: { displayName: 8, role: 8, unixTime: true, maxLength: 63 },
  credentialTypes: ['password'],
  create: (settings) => new PostgresPlugin(settings),
};
