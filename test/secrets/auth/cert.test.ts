import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_TOKEN, startServer, type TestServer } from '../../helpers/app.js';
import { certCurl } from './cert-curl.js';
import { hvacInterpreter, runPython } from '../../helpers/python.js';

/**
 * `auth/cert` over HTTPS: a client certificate issued by understudy's own PKI engine logs in with
 * `curl --cert`; an untrusted, expired or mismatched certificate gets the real errors.
 */
const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'understudy-cert-auth-'));
let server: TestServer;
let https: string;

const curl = certCurl(dir, () => https);

/** Issues a client certificate from a PKI mount and writes it and its key to `<name>.pem` / `<name>-key.pem`. */
async function issue(mount: string, name: string, body: Record<string, unknown>) {
  const answer = await curl('POST', `${mount}/issue/client`, { token: ROOT_TOKEN, body });
  expect(answer.status).toBe(200);
  writeFileSync(join(dir, `${name}.pem`), answer.body.data.certificate);
  writeFileSync(join(dir, `${name}-key.pem`), answer.body.data.private_key);
}

async function pkiMount(mount: string): Promise<string> {
  await curl('POST', `sys/mounts/${mount}`, { token: ROOT_TOKEN, body: { type: 'pki' } });
  const root = await curl('POST', `${mount}/root/generate/internal`, {
    token: ROOT_TOKEN,
    body: { common_name: `${mount} CA`, key_type: 'ec', ttl: '8760h' },
  });
  await curl('POST', `${mount}/roles/client`, {
    token: ROOT_TOKEN,
    body: { allow_any_name: true, client_flag: true, server_flag: false, key_type: 'ec', max_ttl: '720h' },
  });
  return root.body.data.certificate;
}

beforeAll(async () => {
  server = await startServer({ UNDERSTUDY_TLS: 'auto', UNDERSTUDY_TLS_DIR: join(dir, 'tls') });
  https = server.baseUrl.replace('http://', 'https://');
  const ca = await pkiMount('pki');
  await pkiMount('other');
  await issue('pki', 'alice', { common_name: 'alice.example.com', ttl: '1h' });
  await issue('pki', 'mallory', { common_name: 'mallory.example.com', ttl: '1h' });
  await issue('other', 'stranger', { common_name: 'alice.example.com', ttl: '1h' });
  await curl('POST', 'sys/auth/cert', { token: ROOT_TOKEN, body: { type: 'cert' } });
  const entry = await curl('POST', 'auth/cert/certs/web', {
    token: ROOT_TOKEN,
    body: { certificate: ca, allowed_common_names: '*.example.com,!x', token_policies: 'default,web', display_name: 'web' },
  });
  expect(entry.status).toBe(204);
  await curl('POST', 'auth/cert/certs/alice-only', {
    token: ROOT_TOKEN,
    body: { certificate: ca, allowed_common_names: ['alice.example.com'] },
  });
});
afterAll(() => server.close());

describe('auth/cert', () => {
  it('logs in with a client certificate issued by the PKI engine', async () => {
    const login = await curl('POST', 'auth/cert/login', { cert: 'alice', body: { name: 'web' } });
    expect(login.status).toBe(200);
    expect(login.body.auth.policies).toEqual(['default', 'web']);
    expect(login.body.auth.metadata).toMatchObject({ cert_name: 'web', common_name: 'alice.example.com' });
    const self = await curl('GET', 'auth/token/lookup-self', { token: login.body.auth.client_token });
    expect(self.body.data.display_name).toBe('cert-web');
    const read = await curl('GET', 'auth/cert/certs/web', { token: ROOT_TOKEN });
    expect(read.body.data).toMatchObject({ allowed_common_names: ['*.example.com', '!x'], token_policies: ['default', 'web'] });
  });

  it.skipIf(!hvacInterpreter && !process.env.CI)("logs in with hvac's Cert login", async () => {
    const script = `
import os, hvac
d = os.environ["CERT_DIR"]
client = hvac.Client(url=os.environ["VAULT_ADDR"], verify=os.path.join(d, "tls", "ca.pem"))
auth = client.auth.cert.login(name="web", cert_pem=os.path.join(d, "alice.pem"), key_pem=os.path.join(d, "alice-key.pem"))
print(",".join(auth["auth"]["policies"]))
`;
    const result = await runPython(hvacInterpreter ?? 'python3', script, { VAULT_ADDR: https, CERT_DIR: dir });
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe('default,web');
  });

  it('refuses a login without a certificate, an untrusted one, a mismatched one and an expired one', async () => {
    expect((await curl('POST', 'auth/cert/login', { body: {} })).body.errors).toEqual(['client certificate must be supplied']);
    const untrusted = await curl('POST', 'auth/cert/login', { cert: 'stranger', body: {} });
    expect(untrusted).toMatchObject({ status: 400, body: { errors: ['invalid certificate or no client certificate supplied'] } });
    const mismatched = await curl('POST', 'auth/cert/login', { cert: 'mallory', body: { name: 'alice-only' } });
    expect(mismatched.body.errors).toEqual(['no chain matching all constraints could be found for this login certificate']);
    await run('curl', [
      '-sS',
      '--fail',
      '--cacert',
      join(dir, 'tls', 'ca.pem'),
      '-H',
      'content-type: application/json',
      '--data',
      '{"advance":"2h"}',
      `${https}/_emulator/clock`,
    ]);
    // The real verifier checks validity first, trusted or not; its text names both times (RFC 3339).
    for (const cert of ['alice', 'stranger']) {
      const expired = await curl('POST', 'auth/cert/login', { cert, body: {} });
      expect(expired.status).toBe(400);
      expect(expired.body.errors).toHaveLength(1);
      expect(expired.body.errors[0]).toMatch(
        /^failed to verify client's certificate: x509: certificate has expired or is not yet valid: current time \S+Z is after \S+Z$/,
      );
    }
  });

  it('refuses an entry without a parseable certificate and keeps nothing', async () => {
    expect((await curl('POST', 'auth/cert/certs/bad', { token: ROOT_TOKEN, body: {} })).body.errors).toEqual(['missing certificate']);
    expect((await curl('POST', 'auth/cert/certs/bad', { token: ROOT_TOKEN, body: { certificate: 'nope' } })).body.errors).toEqual([
      'failed to parse certificate',
    ]);
    expect((await curl('GET', 'auth/cert/certs/bad', { token: ROOT_TOKEN })).status).toBe(404);
  });
});
