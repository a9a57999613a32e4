import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';
import pg from 'pg';

/**
 * The two real databases the engine tests drive, reached as the machines provide them:
 * PostgreSQL on 127.0.0.1:5432 (postgres, trust) and MariaDB on 127.0.0.1:3306 (root, no
 * password). Each test file makes its own admin user and database, named for this run, and drops
 * them afterwards, so parallel runs never meet.
 */
export const PG = { host: '127.0.0.1', port: 5432, user: 'postgres' };
export const MY = { host: '127.0.0.1', port: 3306, user: 'root', password: '' };

/** A short lowercase id unique to this run (role names are cut to 8 characters in usernames). */
export const runId = () => `t${randomBytes(3).toString('hex')}`;

const HOW = 'start them with `docker compose up postgres mariadb`';

/** Whether `peer` answers; without it the file is skipped with one line, or fails under CI. */
export async function reachable(peer: 'PostgreSQL' | 'MariaDB', probe: () => Promise<unknown>): Promise<boolean> {
  try {
    await probe();
    return true;
  } catch (error) {
    const line = `${peer} is not reachable (${(error as Error).message}); ${HOW}`;
    if (process.env.CI) throw new Error(`CI is set: ${line}`);
    console.warn(`skipping the ${peer} database-engine tests: ${line}`);
    return false;
  }
}

export async function pgQuery<T extends pg.QueryResultRow = pg.QueryResultRow>(
  options: { user?: string; password?: string; database?: string },
  text: string,
  values: unknown[] = [],
): Promise<pg.QueryResult<T>> {
  const client = new pg.Client({ ...PG, ...options, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return await client.query<T>(text, values);
  } finally {
    await client.end();
  }
}

/**
 * Whether PostgreSQL would accept `password` for `user` under password authentication: the
 * SCRAM-SHA-256 verifier it stored is recomputed from the password. The machines' server trusts
 * every 127.0.0.1 connection (pg_hba `trust`), so a login alone proves nothing about the password.
 */
async function pgPasswordMatches(user: string, password: string): Promise<boolean> {
  const { rows } = await pgQuery<{ verifier: string | null }>({}, 'SELECT rolpassword AS verifier FROM pg_authid WHERE rolname = $1', [
    user,
  ]);
  const match = /^SCRAM-SHA-256\$(\d+):([^$]+)\$([^:]+):/.exec(rows[0]?.verifier ?? '');
  if (!match) return false;
  const salted = pbkdf2Sync(password.normalize('NFKC'), Buffer.from(match[2] as string, 'base64'), Number(match[1]), 32, 'sha256');
  const storedKey = createHash('sha256').update(createHmac('sha256', salted).update('Client Key').digest()).digest('base64');
  return storedKey === match[3];
}

/**
 * Logs in as `user` and runs one query, and checks the password against the stored verifier;
 * resolves to 'ok' or to why it would fail (the driver's message, or the server's wording for a
 * wrong password).
 */
export async function pgTry(user: string, password: string, database: string, text = 'SELECT 1'): Promise<string> {
  try {
    await pgQuery({ user, password, database }, text);
  } catch (error) {
    return (error as Error).message;
  }
  return (await pgPasswordMatches(user, password)) ? 'ok' : `password authentication failed for user "${user}"`;
}

export async function myQuery(
  options: { user?: string; password?: string; database?: string },
  text: string,
  values: unknown[] = [],
): Promise<unknown> {
  const connection = await mysql.createConnection({ ...MY, ...options, connectTimeout: 5000 });
  try {
    const [rows] = await connection.query(text, values);
    return rows;
  } finally {
    await connection.end();
  }
}

export async function myTry(user: string, password: string, database: string, text = 'SELECT 1'): Promise<string> {
  try {
    await myQuery({ user, password, database }, text);
    return 'ok';
  } catch (error) {
    return (error as Error).message;
  }
}
