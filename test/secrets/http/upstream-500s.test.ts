import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { v1, type Reply } from '../core/client.js';

/**
 * Client mistakes the real service answers with a 500: the `upstream` dialect answers that 500 with
 * the same text (the real clients' own tests expect it); the default dialect keeps a 400.
 */
const one = (message: string) => [`1 error occurred:\n\t* ${message}\n\n`];

async function failures(server: TestServer): Promise<Record<string, Reply>> {
  const ok = async (method: string, path: string, body?: unknown) => {
    const reply = await v1(server, method, path, body === undefined ? {} : { body });
    expect(reply.status, `${method} ${path}: ${reply.text}`).toBeLessThan(300);
  };
  await ok('POST', 'sys/mounts/transit', { type: 'transit' });
  await ok('POST', 'transit/keys/locked', { exportable: true });
  const backup = (await v1(server, 'POST', 'transit/keys/open', { body: { exportable: true, allow_plaintext_backup: true } })).status;
  expect(backup).toBeLessThan(300);
  const saved = (await v1(server, 'GET', 'transit/backup/open')).body.data.backup as string;
  await ok('POST', 'database/config/pg', {
    plugin_name: 'postgresql-database-plugin',
    connection_url: 'postgresql://{{username}}:{{password}}@127.0.0.1:1/app',
    verify_connection: false,
    allowed_roles: ['other'],
  });
  await ok('POST', 'database/roles/app', { db_name: 'pg', creation_statements: ['SELECT 1'] });
  await ok('POST', 'pki/roles/web', { allow_any_name: true });
  return {
    issuerRead: await v1(server, 'GET', 'pki/issuer/nope'),
    issueWithoutCa: await v1(server, 'POST', 'pki/issue/web', { body: { common_name: 'a.test' } }),
    backupRefused: await v1(server, 'GET', 'transit/backup/locked'),
    restoreOverKey: await v1(server, 'POST', 'transit/restore/open', { body: { backup: saved } }),
    roleNotAllowed: await v1(server, 'GET', 'database/creds/app'),
    rotateRootWithoutUsername: await v1(server, 'POST', 'database/rotate-root/pg'),
  };
}

const EXPECTED: Record<string, string[]> = {
  issuerRead: one('unable to find PKI issuer for reference: nope'),
  issueWithoutCa: ['could not fetch the CA certificate (was one set?): backend must be configured with a CA certificate/key'],
  backupRefused: ['plaintext backup is disallowed on the policy'],
  restoreOverKey: ['key "open" already exists'],
  roleNotAllowed: ['"app" is not an allowed role'],
  rotateRootWithoutUsername: ['unable to rotate root credentials: no username in configuration'],
};

describe.each([
  ['spec', 400],
  ['upstream', 500],
])('failures the real service answers with a 500, in the %s dialect', (dialect, status) => {
  let server: TestServer;
  let replies: Record<string, Reply>;
  beforeAll(async () => {
    server = await startServer({ UNDERSTUDY_DIALECT: dialect });
    replies = await failures(server);
  });
  afterAll(() => server.close());

  it.each(Object.keys(EXPECTED))(`%s answers ${status} with the real text`, (name) => {
    const reply = replies[name] as Reply;
    expect(reply.status, reply.text).toBe(status);
    expect(reply.body.errors).toEqual(EXPECTED[name]);
  });

  it('changes nothing: the refused restore left the key as it was, and a missing body is still a 400', async () => {
    expect((await v1(server, 'GET', 'transit/keys/open')).status).toBe(200);
    expect((await v1(server, 'POST', 'transit/restore', { body: {} })).status).toBe(400);
  });
});
