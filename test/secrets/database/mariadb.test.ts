import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { advance, v1 } from '../core/client.js';
import { myQuery, myTry, reachable, runId } from './peers.js';

const up = await reachable('MariaDB', () => myQuery({}, 'SELECT 1'));

describe.skipIf(!up)('database engine on real MariaDB', () => {
  const id = runId();
  const admin = `${id}_admin`;
  const adminPassword = `pw-${id}-Admin1`;
  const database = `${id}_db`;
  const url = '{{username}}:{{password}}@tcp(127.0.0.1:3306)/';
  const readOnly = [`CREATE USER '{{name}}'@'%' IDENTIFIED BY '{{password}}';GRANT SELECT ON ${database}.* TO '{{name}}'@'%';`];
  let server: TestServer;

  const usersLike = async (pattern: string) =>
    ((await myQuery({}, 'SELECT User AS user FROM mysql.user WHERE User LIKE ?', [pattern])) as { user: string }[]).map((row) => row.user);

  const configure = (name: string, body: Record<string, unknown> = {}) =>
    v1(server, 'POST', `database/config/${name}`, {
      body: {
        plugin_name: 'mysql-database-plugin',
        connection_url: url,
        username: admin,
        password: adminPassword,
        allowed_roles: ['*'],
        ...body,
      },
    });

  beforeAll(async () => {
    await myQuery({}, `CREATE USER '${admin}'@'%' IDENTIFIED BY '${adminPassword}'`);
    await myQuery({}, `GRANT ALL PRIVILEGES ON *.* TO '${admin}'@'%' WITH GRANT OPTION`);
    await myQuery({}, `CREATE DATABASE \`${database}\``);
    await myQuery({ database }, 'CREATE TABLE widgets (id int primary key, name text)');
    await myQuery({ database }, "INSERT INTO widgets VALUES (1, 'sprocket')");
    server = await startServer();
    expect((await configure('main')).status).toBe(204);
  });

  afterAll(async () => {
    await server?.close();
    await myQuery({}, `DROP DATABASE IF EXISTS \`${database}\``);
    for (const user of await usersLike(`%${id}%`)) await myQuery({}, 'DROP USER IF EXISTS ?@?', [user, '%']);
  });

  it('hands out a real user with its grants, dropped on revoke', async () => {
    const role = `${id}r`;
    expect(
      (await v1(server, 'POST', `database/roles/${role}`, { body: { db_name: 'main', creation_statements: readOnly, default_ttl: '1h' } }))
        .status,
    ).toBe(204);
    const creds = await v1(server, 'GET', `database/creds/${role}`);
    expect(creds.status).toBe(200);
    expect(creds.body).toMatchObject({ lease_duration: 3600, renewable: true });
    const { username, password } = creds.body.data as { username: string; password: string };
    expect(username.startsWith(`v-root-${role}-`)).toBe(true);
    expect(username.length).toBe(32);

    expect(await myTry(username, password, database, 'SELECT name FROM widgets')).toBe('ok');
    expect(await myTry(username, password, database, "INSERT INTO widgets VALUES (2, 'nope')")).toContain('command denied');
    // MariaDB has no VALID UNTIL: renewing only extends the lease, and expiry drops the user.
    expect((await v1(server, 'PUT', 'sys/leases/renew', { body: { lease_id: creds.body.lease_id } })).status).toBe(200);

    expect((await v1(server, 'PUT', 'sys/leases/revoke', { body: { lease_id: creds.body.lease_id } })).status).toBe(204);
    expect(await myTry(username, password, database)).toContain('Access denied');
    expect(await usersLike(username)).toEqual([]);
  });

  it('caps a role TTL at the mount maximum', async () => {
    const role = `${id}c`;
    await v1(server, 'POST', `database/roles/${role}`, { body: { db_name: 'main', creation_statements: readOnly, default_ttl: '1000h' } });
    const creds = await v1(server, 'GET', `database/creds/${role}`);
    expect(creds.body.lease_duration).toBe(768 * 3600);
    expect(creds.body.warnings).toEqual([
      'TTL of "1000h0m0s" exceeded the effective max_ttl of "768h0m0s"; TTL value is capped accordingly',
    ]);
    expect((await v1(server, 'POST', 'sys/mounts/database/tune', { body: { max_lease_ttl: '2h' } })).status).toBe(204);
    const tuned = await v1(server, 'GET', `database/creds/${role}`);
    expect(tuned.body.lease_duration).toBe(7200);
    expect((await v1(server, 'POST', 'sys/mounts/database/tune', { body: { max_lease_ttl: 0 } })).status).toBe(204);
    for (const lease of [creds, tuned])
      expect((await v1(server, 'PUT', 'sys/leases/revoke', { body: { lease_id: lease.body.lease_id } })).status).toBe(204);
    expect(await usersLike(`v-root-${role}-%`)).toEqual([]);
  });

  it('runs the role revocation statements when the lease expires on the clock', async () => {
    const role = `${id}e`;
    // The marker table proves these statements ran rather than the default drop.
    await myQuery({ database }, 'CREATE TABLE IF NOT EXISTS revoked (name varchar(64))');
    const revocation = [`INSERT INTO ${database}.revoked VALUES ('{{name}}'); DROP USER '{{name}}'@'%';`];
    await v1(server, 'POST', `database/roles/${role}`, {
      body: { db_name: 'main', creation_statements: readOnly, revocation_statements: revocation, default_ttl: 600 },
    });
    const creds = await v1(server, 'GET', `database/creds/${role}`);
    const { username, password } = creds.body.data as { username: string; password: string };
    expect(await myTry(username, password, database)).toBe('ok');
    const ran = await advance(server, '11m');
    expect(ran).toContainEqual(expect.objectContaining({ kind: 'lease-revocation', subject: creds.body.lease_id, outcome: 'done' }));
    expect(await myTry(username, password, database)).toContain('Access denied');
    expect(await myQuery({ database }, 'SELECT name FROM revoked')).toEqual([{ name: username }]);
  });

  it('keeps the 16-character usernames of the legacy plugin names', async () => {
    expect((await configure('legacy', { plugin_name: 'mysql-legacy-database-plugin' })).status).toBe(204);
    const role = `${id}l`;
    await v1(server, 'POST', `database/roles/${role}`, { body: { db_name: 'legacy', creation_statements: readOnly } });
    const creds = await v1(server, 'GET', `database/creds/${role}`);
    const { username, password } = creds.body.data as { username: string; password: string };
    expect(username).toMatch(new RegExp(`^v-${role.slice(0, 4)}-[0-9A-Za-z]{9}$`));
    expect(await myTry(username, password, database, 'SELECT name FROM widgets')).toBe('ok');
    expect((await v1(server, 'PUT', 'sys/leases/revoke', { body: { lease_id: creds.body.lease_id } })).status).toBe(204);
    expect(await usersLike(username)).toEqual([]);
  });

  it('escapes a root password with URL characters into the templated URL', async () => {
    const user = `${id}_esc`;
    const password = 'p@ss:w/rd?#%41&x';
    await myQuery({}, 'CREATE USER ?@? IDENTIFIED BY ?', [user, '%', password]);
    const reply = await v1(server, 'POST', 'database/config/escaped', {
      body: { plugin_name: 'mysql-database-plugin', connection_url: url, username: user, password },
    });
    expect(reply.status).toBe(204);
    expect((await v1(server, 'DELETE', 'database/config/escaped')).status).toBe(204);
  });

  it('refuses bad inputs with the driver message and leaves no user behind', async () => {
    const wrong = await configure('wrong', { password: 'not-the-password' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors[0]).toMatch(new RegExp(`^error creating database object: Access denied for user '${admin}'`));
    expect((await v1(server, 'GET', 'database/config/wrong')).status).toBe(404);

    const unreachable = await configure('down', { connection_url: '{{username}}:{{password}}@tcp(127.0.0.1:1)/' });
    expect(unreachable.status).toBe(400);
    expect(unreachable.body.errors[0]).toContain('ECONNREFUSED');

    // The CREATE USER commits before the GRANT fails; the engine must drop it again.
    const bad = `${id}x`;
    await v1(server, 'POST', `database/roles/${bad}`, {
      body: {
        db_name: 'main',
        creation_statements: [
          `CREATE USER '{{name}}'@'%' IDENTIFIED BY '{{password}}';`,
          `GRANT SELEKT ON ${database}.* TO '{{name}}'@'%';`,
        ],
      },
    });
    const failed = await v1(server, 'GET', `database/creds/${bad}`);
    expect(failed.status).toBe(400);
    expect(failed.body.errors[0]).toMatch(/^failed to create user: You have an error in your SQL syntax/);
    expect(await usersLike(`v-root-${bad}-%`)).toEqual([]);
  });

  it('rotates a static role on the clock and the root password on demand', async () => {
    const user = `${id}_static`;
    await myQuery({}, `CREATE USER '${user}'@'%' IDENTIFIED BY 'initial-Pw-1'`);
    await myQuery({}, `GRANT SELECT ON \`${database}\`.* TO '${user}'@'%'`);
    const name = `${id}s`;
    expect(
      (await v1(server, 'POST', `database/static-roles/${name}`, { body: { db_name: 'main', username: user, rotation_period: 30 } }))
        .status,
    ).toBe(204);
    expect(await myTry(user, 'initial-Pw-1', database)).toContain('Access denied');
    const first = await v1(server, 'GET', `database/static-creds/${name}`);
    expect(await myTry(user, first.body.data.password, database, 'SELECT name FROM widgets')).toBe('ok');

    await advance(server, '31s');
    const second = await v1(server, 'GET', `database/static-creds/${name}`);
    expect(second.body.data.password).not.toBe(first.body.data.password);
    expect(await myTry(user, first.body.data.password, database)).toContain('Access denied');
    expect(await myTry(user, second.body.data.password, database)).toBe('ok');
    expect((await v1(server, 'DELETE', `database/static-roles/${name}`)).status).toBe(204);
    expect(await usersLike(user)).toEqual([user]);

    expect((await configure('root')).status).toBe(204);
    expect((await v1(server, 'POST', 'database/rotate-root/root')).status).toBe(204);
    expect(await myTry(admin, adminPassword, database)).toContain('Access denied');
    const role = `${id}z`;
    await v1(server, 'POST', `database/roles/${role}`, { body: { db_name: 'root', creation_statements: readOnly } });
    const creds = await v1(server, 'GET', `database/creds/${role}`);
    expect(creds.status).toBe(200);
    expect(await myTry(creds.body.data.username, creds.body.data.password, database)).toBe('ok');
  });
});
