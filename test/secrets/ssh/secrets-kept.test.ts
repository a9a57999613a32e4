import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { userKey, vault } from './support.js';

/**
 * The SSH engine's secrets stay out of the request journal: issued private keys, an imported CA
 * private key, one-time passwords handed out by `creds` and handed back to `verify`.
 */
let server: TestServer;

async function journal(path: string): Promise<string> {
  const response = await fetch(`${server.baseUrl}/_emulator/requests?path=${encodeURIComponent(path)}`);
  expect(response.status).toBe(200);
  return response.text();
}

beforeAll(async () => {
  server = await startServer();
  expect((await vault(server, 'POST', 'sys/mounts/ssh', { type: 'ssh' })).status).toBe(204);
});
afterAll(() => server.close());

describe('ssh: secrets kept out of the journal', () => {
  it('an imported CA private key', async () => {
    const ca = userKey('ed25519');
    const privateKey = readFileSync(ca.path, 'utf8');
    const imported = await vault(server, 'POST', 'ssh/config/ca', { private_key: privateKey, public_key: ca.publicKey });
    expect(imported.status).toBe(204);
    const text = await journal('/v1/ssh/config/ca');
    expect(text).toContain('/v1/ssh/config/ca');
    const keyBody = privateKey.split('\n')[1] ?? '';
    expect(keyBody.length).toBeGreaterThan(20);
    expect(text).not.toContain(keyBody);
  });

  it('an issued private key', async () => {
    const role = { key_type: 'ca', allow_user_certificates: true, allowed_users: '*', default_user: 'dev', ttl: '1h' };
    expect((await vault(server, 'POST', 'ssh/roles/dev', role)).status).toBe(204);
    const issued = await vault(server, 'POST', 'ssh/issue/dev', { key_type: 'ed25519' });
    expect(issued.status).toBe(200);
    const text = await journal('/v1/ssh/issue/dev');
    expect(text).toContain('/v1/ssh/issue/dev');
    expect(text).not.toContain((issued.body.data.private_key as string).split('\n')[1]);
  });

  it('a one-time password, both when handed out and when verified', async () => {
    await vault(server, 'POST', 'ssh/roles/otp', { key_type: 'otp', default_user: 'ops', cidr_list: '10.0.0.0/8' });
    const creds = await vault(server, 'POST', 'ssh/creds/otp', { ip: '10.1.2.3' });
    const otp = creds.body.data.key as string;
    expect((await vault(server, 'POST', 'ssh/verify', { otp })).status).toBe(200);
    for (const path of ['/v1/ssh/creds/otp', '/v1/ssh/verify']) {
      const text = await journal(path);
      expect(text).toContain(path);
      expect(text).not.toContain(otp);
    }
  });
});
