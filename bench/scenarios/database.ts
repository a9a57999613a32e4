import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import type { BenchTarget, Scenario } from '../scenario.js';

/**
 * `GET /v1/database/creds/:role` on the machine's PostgreSQL, next to the same CREATE ROLE +
 * GRANT issued directly with pg behind a bare HTTP server. The ratio shows what understudy adds
 * on top of the database's own work. Users and the database are named for this run and dropped.
 */

const id = `b${randomBytes(3).toString('hex')}`;
const admin = `${id}_admin`;
const adminPassword = `bench-${id}-Pw1`;
const database = `${id}_db`;
const POOL_SIZE = 4;
const readers = `${id}_readers`;
// Membership in a group role, not a table grant: concurrent GRANTs on one table collide in
// PostgreSQL ("tuple concurrently updated"), which would measure the collision, not the work.
const creation = (name: string, password: string, expiration: string) => [
  `CREATE ROLE "${name}" WITH LOGIN PASSWORD '${password}' VALID UNTIL '${expiration}'`,
  `GRANT "${readers}" TO "${name}"`,
];

async function asPostgres(database: string | undefined, queries: string[]): Promise<void> {
  const client = new pg.Client({ host: '127.0.0.1', port: 5432, user: 'postgres', database });
  await client.connect();
  try {
    for (const query of queries) await client.query(query);
  } finally {
    await client.end();
  }
}

let prepared = false;
async function prepareDatabase(): Promise<void> {
  if (prepared) return;
  await asPostgres(undefined, [
    `CREATE ROLE "${admin}" WITH LOGIN CREATEROLE PASSWORD '${adminPassword}'`,
    `CREATE DATABASE "${database}" OWNER "${admin}"`,
  ]);
  await asPostgres(database, [
    `SET ROLE "${admin}"`,
    'CREATE TABLE widgets (id int primary key, name text)',
    `CREATE ROLE "${readers}" NOLOGIN`,
    `GRANT SELECT ON widgets TO "${readers}"`,
  ]);
  prepared = true;
}

/** Kept so teardown can close understudy's pool before the database goes. */
let understudy: BenchTarget | undefined;

async function setup(target: BenchTarget) {
  await prepareDatabase();
  understudy = target;
  const headers = { 'x-vault-token': target.rootToken, 'content-type': 'application/json' };
  const write = async (path: string, body: unknown) => {
    const response = await fetch(`${target.baseUrl}/v1/${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    if (!response.ok) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
  };
  await write('database/config/bench', {
    plugin_name: 'postgresql-database-plugin',
    connection_url: `postgresql://{{username}}:{{password}}@127.0.0.1:5432/${database}?sslmode=disable`,
    username: admin,
    password: adminPassword,
    max_open_connections: POOL_SIZE,
    allowed_roles: '*',
  });
  await write(`database/roles/${id}`, {
    db_name: 'bench',
    creation_statements: creation('{{name}}', '{{password}}', '{{expiration}}'),
    default_ttl: '1h',
  });
  return { path: `/v1/database/creds/${id}`, headers: { 'x-vault-token': target.rootToken } };
}

/** The yardstick: one transaction of the same two statements per request, on a pool of the same size. */
async function startDirect() {
  await prepareDatabase();
  const pool = new pg.Pool({ host: '127.0.0.1', port: 5432, user: admin, password: adminPassword, database, max: POOL_SIZE });
  let count = 0;
  const server = createServer((request, response) => {
    const name = `${id}-direct-${(count += 1)}-${randomBytes(4).toString('hex')}`;
    const password = randomBytes(15).toString('base64url');
    const expiration = new Date(Date.now() + 3_600_000).toISOString();
    void (async () => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        for (const query of creation(name, password, expiration)) await client.query(query);
        await client.query('COMMIT');
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ username: name, password }));
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        response.writeHead(500).end((error as Error).message);
      } finally {
        client.release();
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    request: { path: '/creds' },
    stop: async () => {
      await new Promise((resolve) => server.close(resolve));
      await pool.end();
    },
  };
}

/** Drops the run's database (and with it every grant), then its roles. */
async function teardown(): Promise<void> {
  if (!prepared) return;
  if (understudy) {
    await fetch(`${understudy.baseUrl}/v1/database/config/bench`, { method: 'DELETE', headers: { 'x-vault-token': understudy.rootToken } });
    understudy = undefined;
  }
  await asPostgres(undefined, [`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`]);
  const client = new pg.Client({ host: '127.0.0.1', port: 5432, user: 'postgres' });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>('SELECT rolname AS name FROM pg_roles WHERE rolname LIKE $1', [`%${id}%`]);
    for (const { name } of rows) await client.query(`DROP ROLE IF EXISTS ${client.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
  prepared = false;
}

export const scenarios: Scenario[] = [
  {
    name: 'GET /v1/database/creds/:role (PostgreSQL)',
    baseline: { name: 'CREATE ROLE + GRANT with pg', start: startDirect },
    setup,
    teardown,
  },
];
