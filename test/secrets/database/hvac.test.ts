import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_TOKEN, startServer, type TestServer } from '../../helpers/app.js';
import { hvacInterpreter, missingHvacReason, runPython } from '../../helpers/python.js';
import { pgQuery, pgTry, reachable, runId } from './peers.js';

/** hvac's database helpers against real PostgreSQL: what a Python user of the engine writes. */
const up = await reachable('PostgreSQL', () => pgQuery({}, 'SELECT 1'));
if (!hvacInterpreter && !process.env.CI) console.warn(`skipping the hvac database test: ${missingHvacReason}`);

const SCRIPT = `
import json, os, hvac

client = hvac.Client(url=os.environ["VAULT_ADDR"], token=os.environ["VAULT_TOKEN"])
db = client.secrets.database
role, user = os.environ["ROLE"], os.environ["STATIC_USER"]
db.configure(name="pg", plugin_name="postgresql-database-plugin", allowed_roles=["*"],
             connection_url=os.environ["URL"], username=os.environ["ADMIN"], password=os.environ["ADMIN_PASSWORD"])
db.create_role(name=role, db_name="pg", default_ttl="5m", max_ttl="1h",
               creation_statements=["CREATE ROLE \\"{{name}}\\" WITH LOGIN PASSWORD '{{password}}' VALID UNTIL '{{expiration}}'; GRANT SELECT ON widgets TO \\"{{name}}\\";"])
creds = db.generate_credentials(name=role)
db.create_static_role(name=role + "s", db_name="pg", username=user, rotation_statements=[], rotation_period=3600)
static = db.get_static_credentials(name=role + "s")["data"]
print(json.dumps({
    "connection": db.read_connection(name="pg")["data"],
    "roles": db.list_roles()["data"]["keys"],
    "static_roles": db.list_static_roles()["data"]["keys"],
    "role": db.read_role(name=role)["data"],
    "lease_id": creds["lease_id"],
    "lease_duration": creds["lease_duration"],
    "creds": creds["data"],
    "static": static,
}))
client.sys.revoke_lease(lease_id=creds["lease_id"])
`;

describe.skipIf(!up || (!hvacInterpreter && !process.env.CI))('a real client: hvac on the database engine', () => {
  const id = runId();
  const admin = `${id}_admin`;
  const adminPassword = `pw-${id}-Admin1`;
  const database = `${id}_db`;
  const staticUser = `${id}_static`;
  let server: TestServer;

  beforeAll(async () => {
    await pgQuery({}, `CREATE ROLE "${admin}" WITH LOGIN CREATEROLE PASSWORD '${adminPassword}'`);
    await pgQuery({}, `CREATE ROLE "${staticUser}" WITH LOGIN PASSWORD 'initial-Pw-1'`);
    await pgQuery({}, `CREATE DATABASE "${database}" OWNER "${admin}"`);
    await pgQuery({ user: admin, password: adminPassword, database }, 'CREATE TABLE widgets (id int primary key)');
    server = await startServer();
  });

  afterAll(async () => {
    await server?.close();
    await pgQuery({}, `DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    const { rows } = await pgQuery<{ rolname: string }>({}, 'SELECT rolname FROM pg_roles WHERE rolname LIKE $1', [`%${id}%`]);
    for (const { rolname } of rows) await pgQuery({}, `DROP ROLE IF EXISTS "${rolname}"`);
  });

  it('configures, creates roles, hands out dynamic and static credentials that log in, and revokes', async () => {
    if (!hvacInterpreter) throw new Error(`CI is set but ${missingHvacReason}`);
    const run = await runPython(hvacInterpreter, SCRIPT, {
      VAULT_ADDR: server.baseUrl,
      VAULT_TOKEN: ROOT_TOKEN,
      URL: `postgresql://{{username}}:{{password}}@127.0.0.1:5432/${database}?sslmode=disable`,
      ADMIN: admin,
      ADMIN_PASSWORD: adminPassword,
      ROLE: id,
      STATIC_USER: staticUser,
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.connection).toMatchObject({
      plugin_name: 'postgresql-database-plugin',
      allowed_roles: ['*'],
      connection_details: { username: admin },
    });
    expect(result.connection.connection_details.password).toBeUndefined();
    expect(result.roles).toEqual([id]);
    expect(result.static_roles).toEqual([`${id}s`]);
    expect(result.role).toMatchObject({ db_name: 'pg', default_ttl: 300, max_ttl: 3600 });
    expect(result.lease_duration).toBe(300);
    expect(result.lease_id).toMatch(new RegExp(`^database/creds/${id}/`));
    expect(result.static).toMatchObject({ username: staticUser, rotation_period: 3600 });
    expect(await pgTry(staticUser, result.static.password, database)).toBe('ok');
    // The script revoked the dynamic lease last: the user is gone.
    expect(await pgTry(result.creds.username, result.creds.password, database)).toBe(`role "${result.creds.username}" does not exist`);
  });
});
