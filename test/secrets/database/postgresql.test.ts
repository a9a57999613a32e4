import vault from 'node-vault';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_TOKEN, startServer, type TestServer } from '../../helpers/app.js';
import { advance, list, v1 } from '../core/client.js';
import { pgQuery, pgTry, reachable, runId } from './peers.js';

const up = await reachable('PostgreSQL', () => pgQuery({}, 'SELECT 1'));

/** The sessions PostgreSQL lists for a connection's `application_name`. */
const sessionsOf = async (application: string) =>
  Number(
    (await pgQuery<{ n: string }>({}, 'SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1', [application])).rows[0]?.n,
  );

/**
 * Waits until PostgreSQL lists `want` sessions for `application`; answers the count last seen. A
 * poll, on purpose: the server closes a pool without telling the caller (a reset or restore answers
 * first), and even a closed client's backend leaves pg_stat_activity a moment later, in another
 * process no event of ours reaches. The bound is generous (a loaded machine), not a pacing: a count
 * that is right returns at once.
 */
async function untilSessions(application: string, want: number, boundMs = 20_000): Promise<number> {
  const deadline = Date.now() + boundMs;
  for (;;) {
    const count = await sessionsOf(application);
    if (count === want || Date.now() > deadline) return count;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.skipIf(!up)('database engine on real PostgreSQL', () => {
  const id = runId();
  const admin = `${id}_admin`;
  const adminPassword = `pw-${id}-Admin1`;
  const database = `${id}_db`;
  const url = `postgresql://{{username}}:{{password}}@127.0.0.1:5432/${database}?sslmode=disable`;
  const readOnly = [
    `CREATE ROLE "{{name}}" WITH LOGIN PASSWORD '{{password}}' VALID UNTIL '{{expiration}}';`,
    `GRANT SELECT ON widgets TO "{{name}}";`,
  ];
  let server: TestServer;

  /** Roles this run created in PostgreSQL (dynamic usernames start with `v-root-<role>`). */
  const rolesLike = async (pattern: string) =>
    (await pgQuery<{ rolname: string }>({}, 'SELECT rolname FROM pg_roles WHERE rolname LIKE $1', [pattern])).rows.map(
      (row) => row.rolname,
    );

  const configure = (name: string, body: Record<string, unknown> = {}) =>
    v1(server, 'POST', `database/config/${name}`, {
      body: {
        plugin_name: 'postgresql-database-plugin',
        connection_url: url,
        username: admin,
        password: adminPassword,
        allowed_roles: '*',
        ...body,
      },
    });

  beforeAll(async () => {
    await pgQuery({}, `CREATE ROLE "${admin}" WITH LOGIN CREATEROLE PASSWORD '${adminPassword}'`);
    await pgQuery({}, `CREATE DATABASE "${database}" OWNER "${admin}"`);
    await pgQuery({ user: admin, password: adminPassword, database }, 'CREATE TABLE widgets (id int primary key, name text)');
    await pgQuery({ user: admin, password: adminPassword, database }, "INSERT INTO widgets VALUES (1, 'sprocket')");
    server = await startServer();
  });

  afterAll(async () => {
    await server?.close();
    await pgQuery({}, `DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    for (const role of await rolesLike(`%${id}%`)) await pgQuery({}, `DROP ROLE IF EXISTS "${role}"`);
  });

  it('stores a verified connection and never reads the password back', async () => {
    expect((await configure('main')).status).toBe(204);
    const read = await v1(server, 'GET', 'database/config/main');
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({
      plugin_name: 'postgresql-database-plugin',
      allowed_roles: ['*'],
      root_credentials_rotate_statements: [],
      password_policy: '',
      connection_details: { connection_url: url, username: admin },
    });
    expect(read.text).not.toContain(adminPassword);
    expect((await list(server, 'database/config')).body.data.keys).toEqual(['main']);
  });

  it('hands out a real user with the grants of the creation statements, dropped on revoke', async () => {
    const role = `${id}r`;
    expect(
      (
        await v1(server, 'POST', `database/roles/${role}`, {
          body: { db_name: 'main', creation_statements: readOnly, default_ttl: '1h', max_ttl: '24h' },
        })
      ).status,
    ).toBe(204);
    const read = await v1(server, 'GET', `database/roles/${role}`);
    expect(read.body.data).toMatchObject({
      db_name: 'main',
      default_ttl: 3600,
      max_ttl: 86400,
      credential_type: 'password',
      creation_statements: readOnly,
      revocation_statements: [],
    });

    const creds = await v1(server, 'GET', `database/creds/${role}`);
    expect(creds.status).toBe(200);
    expect(creds.body.lease_id).toMatch(new RegExp(`^database/creds/${role}/[0-9A-Za-z]{24}$`));
    expect(creds.body).toMatchObject({ lease_duration: 3600, renewable: true });
    const { username, password } = creds.body.data as { username: string; password: string };
    expect(username).toMatch(new RegExp(`^v-root-${role}-[0-9A-Za-z]{20}-\\d+$`));
    expect(password).toMatch(/^[A-Za-z0-9-]{20}$/);
    expect(password).toMatch(/[a-z]/);
    expect(password).toMatch(/[A-Z]/);
    expect(password).toMatch(/\d/);
    expect(password).toMatch(/-/);

    expect(await pgTry(username, password, database, 'SELECT name FROM widgets')).toBe('ok');
    expect(await pgTry(username, password, database, "INSERT INTO widgets VALUES (2, 'nope')")).toContain('permission denied');

    const revoke = await v1(server, 'PUT', 'sys/leases/revoke', { body: { lease_id: creds.body.lease_id } });
    expect(revoke.status).toBe(204);
    expect(await pgTry(username, password, database)).toBe(`role "${username}" does not exist`);
    expect(await rolesLike(username)).toEqual([]);
  });

  it('stops handing out credentials once the role is deleted, and follows a changed role at once', async () => {
    const role = `${id}d`;
    const write = (statements: string[]) =>
      v1(server, 'POST', `database/roles/${role}`, { body: { db_name: 'main', creation_statements: statements } });
    expect((await write(readOnly)).status).toBe(204);
    expect((await v1(server, 'GET', `database/creds/${role}`)).status).toBe(200);

    // The role's statements are read on every request: a broken one fails the very next creds.
    expect(
      (await write([`CREATE ROLE "{{name}}" WITH LOGIN PASSWORD '{{password}}';`, 'GRANT SELEKT ON widgets TO "{{name}}";'])).status,
    ).toBe(204);
    const broken = await v1(server, 'GET', `database/creds/${role}`);
    expect(broken.status).toBe(400);
    expect(broken.body.errors[0]).toBe('failed to create user: unrecognized privilege type "selekt"');

    expect((await v1(server, 'DELETE', `database/roles/${role}`)).status).toBe(204);
    const gone = await v1(server, 'GET', `database/creds/${role}`);
    expect(gone.status).toBe(400);
    expect(gone.body.errors[0]).toBe(`unknown role: ${role}`);
    // Only the first request made a user; the failed one left none behind.
    expect(await rolesLike(`v-root-${role}-%`)).toHaveLength(1);
  });

  it('renews with VALID UNTIL and drops the user when the lease expires on the clock', async () => {
    const role = `${id}e`;
    await v1(server, 'POST', `database/roles/${role}`, {
      body: { db_name: 'main', creation_statements: readOnly, default_ttl: 3600, max_ttl: 7200 },
    });
    const creds = await v1(server, 'GET', `database/creds/${role}`);
    const { username, password } = creds.body.data as { username: string; password: string };
    const before = (await pgQuery<{ until: Date }>({}, 'SELECT rolvaliduntil AS until FROM pg_roles WHERE rolname = $1', [username]))
      .rows[0]?.until;

    const renew = await v1(server, 'PUT', 'sys/leases/renew', { body: { lease_id: creds.body.lease_id, increment: 5400 } });
    expect(renew.status).toBe(200);
    expect(renew.body.lease_duration).toBe(5400);
    const after = (await pgQuery<{ until: Date }>({}, 'SELECT rolvaliduntil AS until FROM pg_roles WHERE rolname = $1', [username])).rows[0]
      ?.until;
    expect(after!.getTime() - before!.getTime()).toBeGreaterThanOrEqual(1790_000);

    const ran = await advance(server, '2h');
    expect(ran).toContainEqual(expect.objectContaining({ kind: 'lease-revocation', subject: creds.body.lease_id, outcome: 'done' }));
    expect(await pgTry(username, password, database)).toBe(`role "${username}" does not exist`);
    expect(await rolesLike(username)).toEqual([]);
  });

  it('refuses bad inputs with the driver message and leaves nothing half-created', async () => {
    const unreachable = await configure('down', {
      connection_url: 'postgresql://{{username}}:{{password}}@127.0.0.1:1/postgres?sslmode=disable',
    });
    expect(unreachable.status).toBe(400);
    expect(unreachable.body.errors[0]).toMatch(/^error creating database object: .*ECONNREFUSED/);
    expect((await v1(server, 'GET', 'database/config/down')).status).toBe(404);

    // The machines' PostgreSQL trusts 127.0.0.1, so a wrong password passes there; a wrong user does not.
    const wrong = await configure('wrong', { username: `${id}_nobody` });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors[0]).toContain(`role "${id}_nobody" does not exist`);
    expect((await v1(server, 'GET', 'database/config/wrong')).status).toBe(404);

    const bad = `${id}x`;
    await v1(server, 'POST', `database/roles/${bad}`, {
      body: {
        db_name: 'main',
        creation_statements: [`CREATE ROLE "{{name}}" WITH LOGIN PASSWORD '{{password}}';`, 'GRANT SELEKT ON widgets TO "{{name}}";'],
      },
    });
    const failed = await v1(server, 'GET', `database/creds/${bad}`);
    expect(failed.status).toBe(400);
    expect(failed.body.errors[0]).toBe('failed to create user: unrecognized privilege type "selekt"');
    expect(await rolesLike(`v-root-${bad}-%`)).toEqual([]);
    expect((await list(server, 'sys/leases/lookup/database/creds')).body?.data?.keys ?? []).not.toContain(`${bad}/`);

    const orphan = `${id}o`;
    await v1(server, 'POST', `database/roles/${orphan}`, { body: { db_name: 'nowhere', creation_statements: readOnly } });
    const unknown = await v1(server, 'GET', `database/creds/${orphan}`);
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0]).toBe('failed to find entry for connection with name: "nowhere"');

    expect((await configure('narrow', { allowed_roles: ['only-this'] })).status).toBe(204);
    const outside = `${id}n`;
    await v1(server, 'POST', `database/roles/${outside}`, { body: { db_name: 'narrow', creation_statements: readOnly } });
    const denied = await v1(server, 'GET', `database/creds/${outside}`);
    expect(denied.status).toBe(400);
    expect(denied.body.errors[0]).toBe(`"${outside}" is not an allowed role`);
    expect(await rolesLike(`v-root-${outside}-%`)).toEqual([]);

    expect((await v1(server, 'GET', `database/creds/${id}missing`)).body.errors[0]).toBe(`unknown role: ${id}missing`);
    const plugin = await configure('odd', { plugin_name: 'oracle-database-plugin' });
    expect(plugin.status).toBe(400);
    expect(plugin.body.errors[0]).toContain('postgresql-database-plugin');
    const rsa = await v1(server, 'POST', `database/roles/${id}k`, {
      body: { db_name: 'main', creation_statements: readOnly, credential_type: 'rsa_private_key' },
    });
    expect(rsa.status).toBe(400);
    expect(rsa.body.errors[0]).toContain('not supported by the plugin');
  });

  it('rotates a static role at creation, on the clock and on demand, keeping the old password after a failure', async () => {
    const user = `${id}_static`;
    await pgQuery({}, `CREATE ROLE "${user}" WITH LOGIN PASSWORD 'initial-Pw-1'`);
    const name = `${id}s`;
    const create = await v1(server, 'POST', `database/static-roles/${name}`, {
      body: { db_name: 'main', username: user, rotation_period: '1h' },
    });
    expect(create.status).toBe(204);
    expect(await pgTry(user, 'initial-Pw-1', database)).toContain('password authentication failed');

    const first = await v1(server, 'GET', `database/static-creds/${name}`);
    expect(first.body.data).toMatchObject({ username: user, rotation_period: 3600 });
    expect(first.body.data.ttl).toBeGreaterThan(3590);
    expect(first.body.data.last_store_rotation).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(await pgTry(user, first.body.data.password, database)).toBe('ok');
    const read = await v1(server, 'GET', `database/static-roles/${name}`);
    expect(read.body.data).toMatchObject({
      db_name: 'main',
      username: user,
      rotation_period: 3600,
      rotation_statements: [],
      credential_type: 'password',
    });

    const ran = await advance(server, '61m');
    expect(ran).toContainEqual(expect.objectContaining({ kind: 'static-role-rotation', subject: name, outcome: 'done' }));
    const second = await v1(server, 'GET', `database/static-creds/${name}`);
    expect(second.body.data.password).not.toBe(first.body.data.password);
    expect(await pgTry(user, first.body.data.password, database)).toContain('password authentication failed');
    expect(await pgTry(user, second.body.data.password, database)).toBe('ok');

    expect((await v1(server, 'POST', `database/rotate-role/${name}`)).status).toBe(204);
    const third = await v1(server, 'GET', `database/static-creds/${name}`);
    expect(third.body.data.password).not.toBe(second.body.data.password);
    expect(third.body.data.ttl).toBeGreaterThan(3590);
    expect(await pgTry(user, third.body.data.password, database)).toBe('ok');

    // A rotation that fails keeps the current password and is retried.
    await v1(server, 'POST', `database/static-roles/${name}`, {
      body: { rotation_statements: ['ALTER ROLE "{{name}}" WITH PASSWORT \'{{password}}\''] },
    });
    const failed = await advance(server, '61m');
    expect(failed).toContainEqual(expect.objectContaining({ kind: 'static-role-rotation', subject: name, outcome: 'failed' }));
    expect(await pgTry(user, third.body.data.password, database)).toBe('ok');
    expect((await v1(server, 'GET', `database/static-creds/${name}`)).body.data.password).toBe(third.body.data.password);
    await v1(server, 'POST', `database/static-roles/${name}`, { body: { rotation_statements: [] } });
    const retried = await advance(server, '11s');
    expect(retried).toContainEqual(expect.objectContaining({ kind: 'static-role-rotation', subject: name, outcome: 'done' }));
    const fourth = await v1(server, 'GET', `database/static-creds/${name}`);
    expect(await pgTry(user, fourth.body.data.password, database)).toBe('ok');

    expect(
      (await v1(server, 'POST', `database/static-roles/${id}t`, { body: { db_name: 'main', username: user, rotation_period: 4 } })).body
        .errors[0],
    ).toBe('rotation_period must be 5 seconds or more');
    expect((await v1(server, 'DELETE', `database/static-roles/${name}`)).status).toBe(204);
    expect(await rolesLike(user)).toEqual([user]);

    // A static role whose connection was deleted fails its rotations and retries every 10 s.
    expect((await configure('gone')).status).toBe(204);
    expect(
      (await v1(server, 'POST', `database/static-roles/${name}`, { body: { db_name: 'gone', username: user, rotation_period: 60 } }))
        .status,
    ).toBe(204);
    expect((await v1(server, 'DELETE', 'database/config/gone')).status).toBe(204);
    const orphaned = (await advance(server, '85s')).filter((work) => work.subject === name);
    expect(orphaned.map((work) => work.outcome)).toEqual(['failed', 'failed', 'failed']);
    expect(orphaned[0]!.detail).toContain('failed to find entry for connection with name: "gone"');
    await v1(server, 'DELETE', `database/static-roles/${name}`);
  });

  it('generates passwords from a named policy', async () => {
    const policy =
      'length = 32\nrule "charset" {\n  charset = "abcdef"\n  min-chars = 1\n}\n' +
      'rule "charset" {\n  charset = "0123456789"\n  min-chars = 2\n}\n';
    expect((await v1(server, 'PUT', `sys/policies/password/${id}`, { body: { policy } })).status).toBe(204);
    expect((await v1(server, 'GET', `sys/policies/password/${id}`)).body.data.policy).toBe(policy);
    const generated = await v1(server, 'GET', `sys/policies/password/${id}/generate`);
    expect(generated.body.data.password).toMatch(/^[a-f0-9]{32}$/);
    expect(
      (await v1(server, 'PUT', 'sys/policies/password/bad', { body: { policy: 'length = 2\nrule "charset" { charset = "a" }' } })).status,
    ).toBe(400);

    const role = `${id}p`;
    await v1(server, 'POST', `database/roles/${role}`, {
      body: { db_name: 'main', creation_statements: readOnly, credential_config: { password_policy: id } },
    });
    const creds = await v1(server, 'GET', `database/creds/${role}`);
    expect(creds.body.data.password).toMatch(/^[a-f0-9]{32}$/);
    expect(await pgTry(creds.body.data.username, creds.body.data.password, database)).toBe('ok');
    expect((await v1(server, 'PUT', 'sys/leases/revoke', { body: { lease_id: creds.body.lease_id } })).status).toBe(204);
  });

  it('answers static creds with the real field name in the upstream dialect', async () => {
    const upstream = await startServer({ UNDERSTUDY_DIALECT: 'upstream' });
    try {
      const user = `${id}_dialect`;
      await pgQuery({}, `CREATE ROLE "${user}" WITH LOGIN PASSWORD 'initial-Pw-1'`);
      const body = {
        plugin_name: 'postgresql-database-plugin',
        connection_url: url,
        username: admin,
        password: adminPassword,
        allowed_roles: '*',
      };
      expect((await v1(upstream, 'POST', 'database/config/main', { body })).status).toBe(204);
      expect(
        (await v1(upstream, 'POST', `database/static-roles/${id}d`, { body: { db_name: 'main', username: user, rotation_period: 60 } }))
          .status,
      ).toBe(204);
      const creds = await v1(upstream, 'GET', `database/static-creds/${id}d`);
      expect(Object.keys(creds.body.data).sort()).toEqual(['last_vault_rotation', 'password', 'rotation_period', 'ttl', 'username']);
      expect(await pgTry(user, creds.body.data.password, database)).toBe('ok');
      expect((await v1(upstream, 'GET', `database/static-roles/${id}d`)).body.data.last_vault_rotation).toBe(
        creds.body.data.last_vault_rotation,
      );
    } finally {
      await upstream.close();
    }
  });

  it('closes the connection pools of a mount when the mount is disabled', async () => {
    const application = `${id}unmount`;
    const sessions = () => sessionsOf(application);
    expect((await v1(server, 'POST', 'sys/mounts/db-unmount', { body: { type: 'database' } })).status).toBe(204);
    const body = {
      plugin_name: 'postgresql-database-plugin',
      connection_url: `${url}&application_name=${application}`,
      username: admin,
      password: adminPassword,
    };
    expect((await v1(server, 'POST', 'db-unmount/config/pool', { body })).status).toBe(204);
    expect(await sessions()).toBeGreaterThan(0);
    expect((await v1(server, 'DELETE', 'sys/mounts/db-unmount')).status).toBe(204);
    expect(await untilSessions(application, 0)).toBe(0);
  });

  it('closes the connection pool on /_emulator/reset and when the server closes', async () => {
    const other = await startServer();
    const application = `${id}pool`;
    const sessions = () => sessionsOf(application);
    const settle = (want: number) => untilSessions(application, want);
    try {
      const body = {
        plugin_name: 'postgresql-database-plugin',
        connection_url: `${url}&application_name=${application}`,
        username: admin,
        password: adminPassword,
      };
      const baseline = 0;
      expect((await v1(other, 'POST', 'database/config/pool', { body })).status).toBe(204);
      expect(await sessions()).toBeGreaterThan(baseline);
      await fetch(`${other.baseUrl}/_emulator/reset`, { method: 'POST' });
      expect(await settle(baseline)).toBe(baseline);
      expect((await v1(other, 'GET', 'database/config/pool')).status).toBe(404);
      expect((await v1(other, 'POST', 'database/config/pool', { body })).status).toBe(204);
      expect(await sessions()).toBeGreaterThan(baseline);
      await other.close();
      expect(await settle(baseline)).toBe(baseline);
    } finally {
      await other.close().catch(() => undefined);
    }
  });

  it('closes the connection pools when a snapshot is restored, whether or not the snapshot has the connection', async () => {
    const other = await startServer();
    const application = `${id}restore`;
    const sessions = () => sessionsOf(application);
    const settle = () => untilSessions(application, 0);
    const snapshot = async (name: string) =>
      (await fetch(`${other.baseUrl}/_emulator/snapshots`, { method: 'POST', body: JSON.stringify({ name }) })).status;
    const restore = async (name: string) =>
      (await fetch(`${other.baseUrl}/_emulator/snapshots/${name}/restore`, { method: 'POST' })).status;
    const body = {
      plugin_name: 'postgresql-database-plugin',
      connection_url: `${url}&application_name=${application}`,
      username: admin,
      password: adminPassword,
      allowed_roles: '*',
    };
    try {
      expect(await snapshot('no-connection')).toBe(201);
      expect((await v1(other, 'POST', 'database/config/pool', { body })).status).toBe(204);
      expect(await snapshot('with-connection')).toBe(201);
      expect(await sessions()).toBeGreaterThan(0);

      // The snapshot has the connection: the old pool still goes, and a new one opens when used.
      expect(await restore('with-connection')).toBe(200);
      expect(await settle()).toBe(0);
      expect(
        (await v1(other, 'POST', `database/roles/${id}restored`, { body: { db_name: 'pool', creation_statements: readOnly } })).status,
      ).toBe(204);
      const creds = await v1(other, 'GET', `database/creds/${id}restored`);
      expect(creds.status).toBe(200);
      expect(await pgTry(creds.body.data.username, creds.body.data.password, database)).toBe('ok');
      expect(await sessions()).toBeGreaterThan(0);

      // The snapshot predates the connection: its pool goes with it.
      expect(await restore('no-connection')).toBe(200);
      expect(await settle()).toBe(0);
      expect((await v1(other, 'GET', 'database/config/pool')).status).toBe(404);
    } finally {
      await other.close();
    }
  });

  it('serves node-vault: configure, LIST roles, creds under a token display name, revoke', async () => {
    const client = vault({ endpoint: server.baseUrl, token: ROOT_TOKEN });
    await client.write('database/config/nv', {
      plugin_name: 'postgresql-database-plugin',
      connection_url: url,
      username: admin,
      password: adminPassword,
      allowed_roles: `${id}n*`,
    });
    const role = `${id}nv`;
    await client.write(`database/roles/${role}`, { db_name: 'nv', creation_statements: readOnly, default_ttl: '10m' });
    expect((await client.list('database/roles')).data.keys).toContain(role);
    const created = await vault({ endpoint: server.baseUrl, token: ROOT_TOKEN }).tokenCreate({ policies: ['root'], display_name: 'app' });
    const creds = await vault({ endpoint: server.baseUrl, token: created.auth.client_token as string }).read(`database/creds/${role}`);
    expect(creds.lease_duration).toBe(600);
    expect(creds.data.username).toMatch(new RegExp(`^v-token-ap-${role.slice(0, 8)}-`));
    expect(await pgTry(creds.data.username, creds.data.password, database, 'SELECT name FROM widgets')).toBe('ok');
    await client.revoke({ lease_id: creds.lease_id });
    expect(await rolesLike(creds.data.username)).toEqual([]);
  });

  it('rotates the root password so the old one stops working, and keeps working itself', async () => {
    expect((await configure('root')).status).toBe(204);
    expect((await v1(server, 'POST', 'database/reset/root')).status).toBe(204);
    expect((await v1(server, 'POST', 'database/rotate-root/root')).status).toBe(204);
    expect(await pgTry(admin, adminPassword, database)).toContain('password authentication failed');
    const read = await v1(server, 'GET', 'database/config/root');
    expect(read.text).not.toMatch(/"password"/);

    const role = `${id}z`;
    await v1(server, 'POST', `database/roles/${role}`, { body: { db_name: 'root', creation_statements: readOnly } });
    const creds = await v1(server, 'GET', `database/creds/${role}`);
    expect(creds.status).toBe(200);
    expect(await pgTry(creds.body.data.username, creds.body.data.password, database, 'SELECT name FROM widgets')).toBe('ok');
    expect((await v1(server, 'PUT', 'sys/leases/revoke', { body: { lease_id: creds.body.lease_id } })).status).toBe(204);
    expect((await v1(server, 'DELETE', 'database/config/root')).status).toBe(204);
    expect((await v1(server, 'GET', 'database/config/root')).status).toBe(404);
  });
});
