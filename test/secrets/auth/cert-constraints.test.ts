import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_TOKEN, startServer, type TestServer } from '../../helpers/app.js';
import { certCurl } from './cert-curl.js';
import { hvacInterpreter, missingHvacReason, runPython } from '../../helpers/python.js';

/**
 * `auth/cert` constraints a PKI role cannot express: `required_extensions` (`oid:glob`, the value
 * read as an ASN.1 string) and `allowed_organizational_units` globs, checked against client
 * certificates openssl issues with a custom extension and OUs; and a role quota on the method.
 */
const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'understudy-cert-constraints-'));
const AGENT_OID = '1.3.6.1.4.1.55555.1';
let server: TestServer;
let https: string;

const curl = certCurl(dir, () => https);

const openssl = (args: string[]) => run('openssl', args, { cwd: dir });

/** A client certificate from the test CA: its subject and extra extension lines. */
async function clientCertificate(name: string, subject: string, extensions: string[]) {
  writeFileSync(join(dir, `${name}.ext`), ['extendedKeyUsage=clientAuth', ...extensions].join('\n'));
  await openssl(
    ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'].concat([
      '-keyout',
      `${name}-key.pem`,
      '-out',
      `${name}.csr`,
      '-subj',
      subject,
    ]),
  );
  await openssl(
    ['x509', '-req', '-in', `${name}.csr`, '-CA', 'test-ca.pem', '-CAkey', 'test-ca-key.pem', '-CAcreateserial'].concat([
      '-days',
      '30',
      '-out',
      `${name}.pem`,
      '-extfile',
      `${name}.ext`,
    ]),
  );
}

beforeAll(async () => {
  server = await startServer({ UNDERSTUDY_TLS: 'auto', UNDERSTUDY_TLS_DIR: join(dir, 'tls') });
  https = server.baseUrl.replace('http://', 'https://');
  await openssl(
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'test-ca-key.pem'].concat([
      '-out',
      'test-ca.pem',
      '-subj',
      '/CN=constraints test CA',
      '-days',
      '30',
    ]),
  );
  await clientCertificate('agent', '/CN=agent-1/OU=engineering', [`${AGENT_OID}=ASN1:UTF8String:build-agent`]);
  await clientCertificate('laptop', '/CN=laptop-1/OU=sales', []);
  await clientCertificate('numbered', '/CN=numbered-1/OU=Engineering', [`${AGENT_OID}=ASN1:INTEGER:7`]);
  expect((await curl('POST', 'sys/auth/cert', { token: ROOT_TOKEN, body: { type: 'cert' } })).status).toBe(204);
});
afterAll(() => server.close());

const entry = (name: string, body: Record<string, unknown>) =>
  curl('POST', `auth/cert/certs/${name}`, {
    token: ROOT_TOKEN,
    body: { certificate: readFileSync(join(dir, 'test-ca.pem'), 'utf8'), ...body },
  });
const login = (cert: string, name: string) => curl('POST', 'auth/cert/login', { cert, body: { name } });
const NO_MATCH = ['no chain matching all constraints could be found for this login certificate'];

describe('auth/cert constraints', () => {
  it('required_extensions: every oid:glob must be carried, with a value the glob matches', async () => {
    expect((await entry('agents', { required_extensions: `${AGENT_OID}:build-*` })).status).toBe(204);
    expect((await entry('any-agent', { required_extensions: [`${AGENT_OID}:*`] })).status).toBe(204);
    expect((await entry('two', { required_extensions: `${AGENT_OID}:build-agent,1.3.6.1.4.1.55555.2:*` })).status).toBe(204);
    expect((await entry('exact', { required_extensions: `${AGENT_OID}:Build-Agent` })).status).toBe(204);

    const agent = await login('agent', 'agents');
    expect(agent.status).toBe(200);
    expect(agent.body.auth.metadata).toMatchObject({ cert_name: 'agents', common_name: 'agent-1' });
    // The issued token stays out of the request journal (curl resolves the `..` to /_emulator/requests).
    const journal = await curl('GET', '../_emulator/requests?path=/v1/auth/cert/login');
    expect(journal.status).toBe(200);
    expect(JSON.stringify(journal.body)).toContain('/v1/auth/cert/login');
    expect(JSON.stringify(journal.body)).not.toContain(agent.body.auth.client_token);
    expect((await login('agent', 'any-agent')).status).toBe(200);
    // Missing the second extension; globs are case-sensitive; no extension at all.
    expect((await login('agent', 'two')).body.errors).toEqual(NO_MATCH);
    expect((await login('agent', 'exact')).body.errors).toEqual(NO_MATCH);
    expect((await login('laptop', 'any-agent')).body.errors).toEqual(NO_MATCH);
    // A value that is no string reads as empty: `*` accepts it, `build-*` does not.
    expect((await login('numbered', 'any-agent')).status).toBe(200);
    expect((await login('numbered', 'agents')).body.errors).toEqual(NO_MATCH);
    const read = await curl('GET', 'auth/cert/certs/two', { token: ROOT_TOKEN });
    expect(read.body.data.required_extensions).toEqual([`${AGENT_OID}:build-agent`, '1.3.6.1.4.1.55555.2:*']);
  });

  it('allowed_organizational_units: a case-sensitive glob one OU must match', async () => {
    expect((await entry('engineers', { allowed_organizational_units: 'eng*,research' })).status).toBe(204);
    expect((await login('agent', 'engineers')).status).toBe(200);
    expect((await login('laptop', 'engineers')).body.errors).toEqual(NO_MATCH);
    expect((await login('numbered', 'engineers')).body.errors).toEqual(NO_MATCH);
  });

  it('without a name, logs in with an entry whose constraints the certificate meets', async () => {
    const any = await curl('POST', 'auth/cert/login', { cert: 'laptop', body: {} });
    expect(any.status).toBe(400);
    expect(any.body.errors).toEqual(NO_MATCH);
    expect((await entry('sales', { allowed_organizational_units: 'sales' })).status).toBe(204);
    const sales = await curl('POST', 'auth/cert/login', { cert: 'laptop', body: {} });
    expect(sales.body.auth.metadata.cert_name).toBe('sales');
  });

  it('a quota with a role limits the logins matching that entry only', async () => {
    const quota = await curl('POST', 'sys/quotas/rate-limit/agents', {
      token: ROOT_TOKEN,
      body: { path: 'auth/cert', role: 'agents', rate: 1, interval: '1h' },
    });
    expect(quota.status).toBe(204);
    expect((await login('agent', 'agents')).status).toBe(200);
    const refused = await login('agent', 'agents');
    expect(refused.status).toBe(429);
    expect(refused.body.errors).toEqual(['request path "auth/cert/login": rate limit quota exceeded']);
    expect((await login('agent', 'any-agent')).status).toBe(200);
    expect((await curl('DELETE', 'sys/quotas/rate-limit/agents', { token: ROOT_TOKEN })).status).toBe(204);
  });

  it.skipIf(!hvacInterpreter && !process.env.CI)("hvac's Cert methods write the constraints and log in", async () => {
    if (!hvacInterpreter) throw new Error(missingHvacReason);
    const script = `
import os, hvac
d = os.environ["CERT_DIR"]
client = hvac.Client(url=os.environ["VAULT_ADDR"], token=os.environ["VAULT_TOKEN"], verify=os.path.join(d, "tls", "ca.pem"))
# hvac 0.11.2 reads the CA from a file path.
ca = os.path.join(d, "test-ca.pem")
client.auth.cert.create_ca_certificate_role("hvac", ca, allowed_organizational_units="engineering",
    required_extensions="${AGENT_OID}:build-agent", token_policies=["default"])
role = client.auth.cert.read_ca_certificate_role("hvac")["data"]
print(role["allowed_organizational_units"], role["required_extensions"])
# Logins use fresh clients: requests reuses a pooled connection made without the client certificate.
fresh = lambda: hvac.Client(url=os.environ["VAULT_ADDR"], verify=os.path.join(d, "tls", "ca.pem"))
auth = fresh().auth.cert.login(name="hvac", cert_pem=os.path.join(d, "agent.pem"), key_pem=os.path.join(d, "agent-key.pem"))
print(auth["auth"]["metadata"]["cert_name"])
try:
    fresh().auth.cert.login(name="hvac", cert_pem=os.path.join(d, "laptop.pem"), key_pem=os.path.join(d, "laptop-key.pem"))
except hvac.exceptions.InvalidRequest as error:
    print(error)
`;
    const result = await runPython(hvacInterpreter ?? 'python3', script, { VAULT_ADDR: https, VAULT_TOKEN: ROOT_TOKEN, CERT_DIR: dir });
    expect(result.stderr).toBe('');
    expect(result.stdout.trim().split('\n')).toEqual([
      `['engineering'] ['${AGENT_OID}:build-agent']`,
      'hvac',
      `${NO_MATCH[0]}, on post ${https}/v1/auth/cert/login`,
    ]);
  });
});
