import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { createToken, list, POLICY_DENIED, putPolicy, v1 } from '../core/client.js';

/**
 * What the engine decides before it calls a database: validation, defaults, field names,
 * create-vs-update capabilities, password policies. A connection saved with
 * `verify_connection: false` needs no server, so these run everywhere.
 */
describe('database engine without a database', () => {
  let server: TestServer;
  const offline = {
    plugin_name: 'postgresql-database-plugin',
    connection_url: 'postgresql://{{username}}:{{password}}@127.0.0.1:1/app',
    username: 'admin',
    password: 'secret-Root-pw',
    verify_connection: false,
  };

  beforeAll(async () => {
    server = await startServer();
    expect((await v1(server, 'POST', 'database/config/offline', { body: { ...offline, allowed_roles: 'web,api-*' } })).status).toBe(204);
  });
  afterAll(() => server.close());

  it('reads a connection back with the real field names and no password', async () => {
    const read = await v1(server, 'GET', 'database/config/offline');
    expect(read.body.data).toEqual({
      plugin_name: 'postgresql-database-plugin',
      connection_details: { connection_url: offline.connection_url, username: 'admin' },
      allowed_roles: ['web', 'api-*'],
      root_credentials_rotate_statements: [],
      password_policy: '',
      verify_connection: false,
    });
    // An update merges connection details and keeps what it does not name.
    expect(
      (await v1(server, 'POST', 'database/config/offline', { body: { max_open_connections: 2, verify_connection: false } })).status,
    ).toBe(204);
    const merged = await v1(server, 'GET', 'database/config/offline');
    expect(merged.body.data.connection_details).toEqual({
      connection_url: offline.connection_url,
      username: 'admin',
      max_open_connections: 2,
    });
    expect(merged.body.data.allowed_roles).toEqual(['web', 'api-*']);
  });

  it('warns about a literal password in the URL and redacts it on read', async () => {
    const body = { ...offline, connection_url: 'postgresql://admin:hunter2@127.0.0.1:1/app' };
    const write = await v1(server, 'POST', 'database/config/literal', { body });
    expect(write.status).toBe(200);
    expect(write.body.warnings[0]).toMatch(/^Password found in connection_url/);
    const read = await v1(server, 'GET', 'database/config/literal');
    expect(read.body.data.connection_details.connection_url).toBe('postgresql://admin:xxxxx@127.0.0.1:1/app');
    expect(read.text).not.toContain('hunter2');
  });

  it('refuses a missing or unknown plugin, naming the supported ones', async () => {
    expect((await v1(server, 'POST', 'database/config/none', { body: { connection_url: 'x' } })).body.errors).toEqual([
      'empty plugin name',
    ]);
    const unknown = await v1(server, 'POST', 'database/config/none', {
      body: { plugin_name: 'mongodb-database-plugin', verify_connection: false },
    });
    expect(unknown.status).toBe(400);
    for (const name of [
      'postgresql-database-plugin',
      'mysql-database-plugin',
      'mysql-legacy-database-plugin',
      'mysql-rds-database-plugin',
      'mysql-aurora-database-plugin',
    ]) {
      expect(unknown.body.errors[0]).toContain(name);
    }
    expect((await v1(server, 'GET', 'database/config/none')).status).toBe(404);
  });

  it('refuses a MySQL address whose port the driver would misread, storing nothing', async () => {
    for (const [address, message] of [
      ['127.0.0.1:abc', 'dial tcp: lookup tcp/abc: unknown port'],
      ['127.0.0.1:70000', 'dial tcp: address 70000: invalid port'],
    ]) {
      const refused = await v1(server, 'POST', 'database/config/my-bad-port', {
        body: {
          plugin_name: 'mysql-database-plugin',
          connection_url: `{{username}}:{{password}}@tcp(${address})/`,
          verify_connection: false,
        },
      });
      expect(refused).toMatchObject({ status: 400, body: { errors: [`error creating database object: ${message}`] } });
    }
    expect((await v1(server, 'GET', 'database/config/my-bad-port')).status).toBe(404);
  });

  it('stores roles with their defaults and validates them', async () => {
    expect(
      (
        await v1(server, 'POST', 'database/roles/web', {
          body: { db_name: 'offline', creation_statements: 'CREATE ROLE "{{name}}";', max_ttl: 7200 },
        })
      ).status,
    ).toBe(204);
    expect((await v1(server, 'GET', 'database/roles/web')).body.data).toEqual({
      db_name: 'offline',
      creation_statements: ['CREATE ROLE "{{name}}";'],
      revocation_statements: [],
      rollback_statements: [],
      renew_statements: [],
      default_ttl: 0,
      max_ttl: 7200,
      credential_type: 'password',
    });
    const bad = (body: Record<string, unknown>) => v1(server, 'POST', 'database/roles/bad', { body });
    expect((await bad({ creation_statements: ['x'] })).body.errors).toEqual(['database name is required']);
    expect((await bad({ db_name: 'offline' })).body.errors).toEqual(['empty creation statements']);
    expect((await bad({ db_name: 'offline', creation_statements: ['x'], credential_type: 'magic' })).body.errors).toEqual([
      'invalid credential_type "magic"',
    ]);
    expect((await bad({ db_name: 'offline', creation_statements: ['x'], default_ttl: 'soon' })).status).toBe(400);
    expect((await bad({ db_name: 'offline', creation_statements: ['x'], credential_config: { password_policy: 'nope' } })).status).toBe(
      400,
    );
    expect((await v1(server, 'GET', 'database/roles/bad')).status).toBe(404);
    expect((await list(server, 'database/roles')).body.data.keys).toEqual(['web']);
    expect((await list(server, 'database/static-roles')).status).toBe(404);
  });

  it('validates static roles before touching the database', async () => {
    const bad = (body: Record<string, unknown>) => v1(server, 'POST', 'database/static-roles/app', { body });
    expect((await bad({ username: 'app', rotation_period: 60 })).body.errors).toEqual(['database name is a required field']);
    expect((await bad({ db_name: 'offline', rotation_period: 60 })).body.errors).toEqual([
      'username is a required field to create a static account',
    ]);
    expect((await bad({ db_name: 'offline', username: 'app' })).body.errors).toEqual([
      'rotation_period is required to create static accounts',
    ]);
    expect((await bad({ db_name: 'offline', username: 'app', rotation_period: '4s' })).body.errors).toEqual([
      'rotation_period must be 5 seconds or more',
    ]);
    expect(
      (await v1(server, 'POST', 'database/static-roles/web', { body: { db_name: 'offline', username: 'app', rotation_period: 60 } })).body
        .errors,
    ).toEqual(['Role and Static Role names must be unique']);
    // Creation rotates the password at once; with the database down it fails and stores nothing.
    const down = await bad({ db_name: 'offline', username: 'app', rotation_period: 60 });
    expect(down.status).toBe(400);
    expect(down.body.errors[0]).toContain('ECONNREFUSED');
    expect((await v1(server, 'GET', 'database/static-roles/app')).status).toBe(404);
    expect((await v1(server, 'POST', 'database/rotate-role/app')).body.errors).toEqual(['no static role found for role name']);
  });

  it('answers creds for a disallowed role and a down database with 400s, leasing nothing', async () => {
    expect((await v1(server, 'POST', 'database/roles/other', { body: { db_name: 'offline', creation_statements: ['x'] } })).status).toBe(
      204,
    );
    expect((await v1(server, 'GET', 'database/creds/other')).body.errors).toEqual(['"other" is not an allowed role']);
    expect((await v1(server, 'POST', 'database/roles/api-1', { body: { db_name: 'offline', creation_statements: ['x'] } })).status).toBe(
      204,
    );
    const down = await v1(server, 'GET', 'database/creds/api-1');
    expect(down.status).toBe(400);
    expect(down.body.errors[0]).toContain('ECONNREFUSED');
    expect((await list(server, 'sys/leases/lookup/database/creds')).status).toBe(404);
  });

  it('answers rotate-root and reset with 400s: no username, a database that is down, an unknown connection', async () => {
    const noUser = { ...offline, username: '' };
    expect((await v1(server, 'POST', 'database/config/nouser', { body: noUser })).status).toBe(204);
    expect((await v1(server, 'POST', 'database/rotate-root/nouser')).body.errors).toEqual([
      'unable to rotate root credentials: no username in configuration',
    ]);
    const down = await v1(server, 'POST', 'database/rotate-root/offline');
    expect(down.status).toBe(400);
    expect(down.body.errors[0]).toMatch(/^failed to update user: .*ECONNREFUSED/);
    const badDsn = {
      plugin_name: 'mysql-database-plugin',
      connection_url: 'not a dsn',
      username: 'u',
      password: 'p',
      verify_connection: false,
    };
    // Even unverified, a connection string the driver cannot read is refused at once.
    const unreadable = await v1(server, 'POST', 'database/config/baddsn', { body: badDsn });
    expect(unreadable.status).toBe(400);
    expect(unreadable.body.errors[0]).toContain('error creating database object: invalid DSN');
    expect((await v1(server, 'POST', 'database/rotate-root/missing')).body.errors).toEqual([
      'failed to find entry for connection with name: "missing"',
    ]);
    expect((await v1(server, 'POST', 'database/reset/offline')).status).toBe(400);
  });

  it('decides create versus update by existence for connections and roles', async () => {
    await putPolicy(server, 'db-update', 'path "database/*" { capabilities = ["update", "read"] }');
    const { client_token: token } = await createToken(server, { policies: ['db-update'] });
    const created = await v1(server, 'POST', 'database/roles/fresh', { token, body: { db_name: 'offline', creation_statements: ['x'] } });
    expect(created.status).toBe(403);
    expect(created.body.errors).toEqual(POLICY_DENIED);
    expect((await v1(server, 'POST', 'database/roles/web', { token, body: { default_ttl: 60 } })).status).toBe(204);
    expect((await v1(server, 'GET', 'database/roles/web')).body.data.default_ttl).toBe(60);
    expect((await v1(server, 'POST', 'database/config/fresh', { token, body: offline })).status).toBe(403);
    expect((await v1(server, 'POST', 'database/config/offline', { token, body: { verify_connection: false } })).status).toBe(204);
  });

  it('keeps named password policies and generates from them', async () => {
    const policy = 'length = 12\nrule "charset" { charset = "XYZ" min-chars = 12 }';
    expect((await v1(server, 'PUT', 'sys/policies/password/xyz', { body: { policy } })).status).toBe(204);
    expect((await v1(server, 'GET', 'sys/policies/password/xyz/generate')).body.data.password).toMatch(/^[XYZ]{12}$/);
    expect((await list(server, 'sys/policies/password')).body.data.keys).toEqual(['xyz']);
    for (const [text, message] of [
      ['length = 3\nrule "charset" { charset = "a" }', 'length must be >= 4'],
      ['length = 8', 'no rules specified'],
      ['length = 8\nrule "charset" { charset = "a" min-chars = 9 }', 'less than the sum'],
      ['length = 8\nrule "charset" { charset = "" }', 'charset cannot be empty'],
      ['length = = 8', 'unable to parse policy'],
    ] as const) {
      const reply = await v1(server, 'PUT', 'sys/policies/password/broken', { body: { policy: text } });
      expect(reply.status).toBe(400);
      expect(reply.body.errors[0]).toContain(message);
    }
    expect((await v1(server, 'GET', 'sys/policies/password/broken')).status).toBe(404);
    expect((await v1(server, 'GET', 'sys/policies/password/broken/generate')).status).toBe(404);
    expect((await v1(server, 'DELETE', 'sys/policies/password/xyz')).status).toBe(204);
    expect((await v1(server, 'GET', 'sys/policies/password/xyz')).status).toBe(404);
  });
});
