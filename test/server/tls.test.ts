import { execFile, spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { get as httpsGet } from 'node:https';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUnderstudy, type Understudy } from '../../src/index.js';
import { hvacInterpreter, missingHvacReason, runPython } from '../helpers/python.js';
import { startProcess } from '../ops/process.js';

/** Runs a tool asynchronously (the server answering it runs in this process). */
function run(command: string, args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(command, args, { timeout: 60_000 }, (error, stdout, stderr) => {
      done({ status: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
    });
  });
}

const has = (tool: string) => spawnSync(tool, ['--version'], { stdio: 'ignore' }).status === 0;
/** Skips with a printed reason when absent; in CI a missing tool fails instead. */
function requireTool(tool: string): boolean {
  if (has(tool)) return true;
  if (process.env.CI) throw new Error(`${tool} is required in CI (the HTTPS tests)`);
  console.warn(`skipping the HTTPS checks that use ${tool}: it is not installed`);
  return false;
}
const hasCurl = requireTool('curl');
const hasOpenssl = spawnSync('openssl', ['version'], { stdio: 'ignore' }).status === 0 || requireTool('openssl');
if (!hvacInterpreter && process.env.CI) throw new Error(`CI is set but ${missingHvacReason}`);
if (!hvacInterpreter) console.warn(`skipping the hvac HTTPS check: ${missingHvacReason}`);

describe('UNDERSTUDY_TLS=auto', () => {
  const dir = mkdtempSync(join(tmpdir(), 'understudy-tls-'));
  const tlsDir = join(dir, 'tls');
  let server: Understudy;
  beforeAll(async () => {
    server = await startUnderstudy({ tls: 'auto', tlsDir, tlsHosts: 'understudy.test, 10.20.30.40' });
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves HTTPS and hands clients the CA and a bundle of the system roots plus it', () => {
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(server.env).toMatchObject({
      VAULT_ADDR: server.url,
      TFE_ADDRESS: server.url,
      VAULT_CACERT: join(tlsDir, 'ca.pem'),
      SSL_CERT_FILE: join(tlsDir, 'bundle.pem'),
    });
    const ca = readFileSync(join(tlsDir, 'ca.pem'), 'utf8');
    const bundle = readFileSync(join(tlsDir, 'bundle.pem'), 'utf8');
    expect(bundle.endsWith(ca)).toBe(true);
    // The system roots come first: the bundle replaces them for a program that reads SSL_CERT_FILE.
    expect(bundle.match(/BEGIN CERTIFICATE/g)?.length).toBeGreaterThan(20);
  });

  it('issues a server certificate for loopback and the extra hosts, dated in real time, that the CA verifies', async () => {
    const certificate = new X509Certificate(readFileSync(join(tlsDir, 'server.pem')));
    expect(certificate.subjectAltName).toBe(
      'DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, DNS:understudy.test, IP Address:10.20.30.40',
    );
    expect(certificate.verify(new X509Certificate(readFileSync(join(tlsDir, 'ca.pem'))).publicKey)).toBe(true);
    expect(Math.abs(new Date(certificate.validFrom).getTime() - Date.now())).toBeLessThan(2 * 60 * 60 * 1000);
    expect(readFileSync(join(tlsDir, 'ca-key.pem'), 'utf8')).toContain('PRIVATE KEY');
    if (hasOpenssl) {
      const verified = await run('openssl', ['verify', '-CAfile', join(tlsDir, 'ca.pem'), join(tlsDir, 'server.pem')]);
      expect(verified.stdout.trim()).toBe(`${join(tlsDir, 'server.pem')}: OK`);
    }
  });

  it.skipIf(!hasCurl)('answers curl --cacert on localhost, with LIST and https links', async () => {
    const port = new URL(server.url).port;
    const base = `https://localhost:${port}`;
    const ca = join(tlsDir, 'ca.pem');
    const health = await run('curl', ['-sS', '--fail', '--cacert', ca, `${base}/v1/sys/health`]);
    expect(health.stderr).toBe('');
    expect(JSON.parse(health.stdout)).toMatchObject({ initialized: true, sealed: false });

    const write = await run('curl', [
      '-sS',
      '--fail',
      '--cacert',
      ca,
      '-H',
      'X-Vault-Token: root',
      '-d',
      '{"data":{"a":"1"}}',
      `${base}/v1/secret/data/tls/one`,
    ]);
    expect(write.status).toBe(0);
    const listed = await run('curl', [
      '-sS',
      '--fail',
      '--cacert',
      ca,
      '-X',
      'LIST',
      '-H',
      'X-Vault-Token: root',
      `${base}/v1/secret/metadata/tls`,
    ]);
    expect(JSON.parse(listed.stdout).data.keys).toEqual(['one']);

    // Without the CA, curl refuses the certificate.
    const untrusted = await run('curl', ['-sS', `${base}/v1/sys/health`]);
    expect(untrusted.status).not.toBe(0);

    // Links the platform API builds carry https (the CLI uploads to them).
    const created = await run('curl', [
      ...['-sS', '--fail', '--cacert', ca, '-H', `Authorization: Bearer ${server.tokens.admin}`],
      ...['-H', 'Content-Type: application/vnd.api+json', '-d', '{"data":{"type":"configuration-versions"}}'],
      `${base}/api/v2/workspaces/${await workspaceId(base, ca)}/configuration-versions`,
    ]);
    expect(JSON.parse(created.stdout).data.attributes['upload-url']).toMatch(new RegExp(`^https://localhost:${port}/`));
    const discovery = await run('curl', ['-sS', '--fail', '--cacert', ca, `${base}/.well-known/terraform.json`]);
    expect(JSON.parse(discovery.stdout)['tfe.v2']).toBe('/api/v2/');
  });

  it('answers plain HTTP on the HTTPS port as the real server does: 400 and its sentence, then closes; TLS still works', async () => {
    const port = Number(new URL(server.url).port);
    const answer = await new Promise<string>((done, fail) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('GET /v1/sys/health HTTP/1.1\r\nHost: localhost\r\n\r\n'));
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (text += chunk));
      socket.on('error', fail);
      socket.on('close', () => done(text));
    });
    // Go's net/http writes exactly these bytes: a status line, no headers, the sentence.
    expect(answer).toBe('HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n');
    const health = await new Promise<number>((done, fail) => {
      httpsGet(`${server.url}/v1/sys/health`, { ca: readFileSync(join(tlsDir, 'ca.pem')) }, (response) => {
        response.resume();
        done(response.statusCode ?? 0);
      }).on('error', fail);
    });
    expect(health).toBe(200);
  });

  async function workspaceId(base: string, ca: string): Promise<string> {
    const made = await run('curl', [
      ...['-sS', '--fail', '--cacert', ca, '-H', `Authorization: Bearer ${server.tokens.admin}`],
      ...['-H', 'Content-Type: application/vnd.api+json', '-d', '{"data":{"type":"workspaces","attributes":{"name":"tls-links"}}}'],
      `${base}/api/v2/organizations/understudy/workspaces`,
    ]);
    return JSON.parse(made.stdout).data.id as string;
  }

  it.skipIf(!hvacInterpreter)('serves hvac with verify= the CA, LIST included', async () => {
    const script = `
import json, os, hvac
address = os.environ["VAULT_ADDR"].replace("127.0.0.1", "localhost")
client = hvac.Client(url=address, token=os.environ["VAULT_TOKEN"], verify=os.environ["VAULT_CACERT"])
client.secrets.kv.v2.create_or_update_secret(path="hvac/tls", secret={"over": "https"})
read = client.secrets.kv.v2.read_secret_version(path="hvac/tls")["data"]["data"]
listed = client.secrets.kv.v2.list_secrets(path="hvac")["data"]["keys"]
refused = None
try:
    hvac.Client(url=os.environ["VAULT_ADDR"], token="root", verify=True).sys.read_health_status(method="GET")
except Exception as error:
    refused = type(error).__name__
print(json.dumps({"read": read, "listed": listed, "refused": refused}))
`;
    const result = await runPython(hvacInterpreter as string, script, { ...server.env, REQUESTS_CA_BUNDLE: '', SSL_CERT_FILE: '' });
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({ read: { over: 'https' }, listed: ['tls'], refused: 'SSLError' });
    // The journal shows LIST as LIST, over TLS too.
    expect(server.requests({ method: 'LIST', path: '/v1/secret/metadata/hvac' })).toHaveLength(1);
  });

  it('keeps the CA across starts, and issues a new server certificate only when the hosts change', async () => {
    const ca = readFileSync(join(tlsDir, 'ca.pem'), 'utf8');
    const serverPem = readFileSync(join(tlsDir, 'server.pem'), 'utf8');
    const same = await startUnderstudy({ tls: 'auto', tlsDir, tlsHosts: 'understudy.test,10.20.30.40' });
    await same.stop();
    expect(readFileSync(join(tlsDir, 'server.pem'), 'utf8')).toBe(serverPem);
    const other = await startUnderstudy({ tls: 'auto', tlsDir, tlsHosts: 'other.test' });
    await other.stop();
    expect(readFileSync(join(tlsDir, 'ca.pem'), 'utf8')).toBe(ca);
    const reissued = new X509Certificate(readFileSync(join(tlsDir, 'server.pem')));
    expect(reissued.subjectAltName).toContain('DNS:other.test');
    expect(reissued.subjectAltName).not.toContain('understudy.test');
  });
});

describe('UNDERSTUDY_TLS_CERT and UNDERSTUDY_TLS_KEY', () => {
  const dir = mkdtempSync(join(tmpdir(), 'understudy-own-tls-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.skipIf(!hasOpenssl || !hasCurl)('serve your own certificate, and say nothing about a CA', async () => {
    const cert = join(dir, 'cert.pem');
    const key = join(dir, 'key.pem');
    const made = await run('openssl', [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2'],
      ...['-subj', '/CN=own.test', '-addext', 'subjectAltName=DNS:localhost', '-keyout', key, '-out', cert],
    ]);
    expect(made.status).toBe(0);
    const server = await startUnderstudy({ tlsCert: cert, tlsKey: key });
    try {
      expect(server.url).toMatch(/^https:/);
      expect(server.env).not.toHaveProperty('VAULT_CACERT');
      const port = new URL(server.url).port;
      const health = await run('curl', ['-sS', '--fail', '--cacert', cert, `https://localhost:${port}/v1/sys/health`]);
      expect(health.status).toBe(0);
    } finally {
      await server.stop();
    }
  });

  it('refuses one without the other, and a key that is not the certificate’s, naming the variable', async () => {
    await expect(startUnderstudy({ tlsCert: join(dir, 'cert.pem') })).rejects.toThrow(
      'UNDERSTUDY_TLS_CERT and UNDERSTUDY_TLS_KEY must be set together',
    );
    await expect(startUnderstudy({ tlsCert: join(dir, 'missing.pem'), tlsKey: join(dir, 'missing.pem') })).rejects.toThrow(
      /UNDERSTUDY_TLS_CERT=.*missing\.pem cannot be read/,
    );
  });
});

describe('the banner under UNDERSTUDY_TLS=auto', () => {
  const dir = mkdtempSync(join(tmpdir(), 'understudy-tls-banner-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('exports the https address, VAULT_CACERT and SSL_CERT_FILE, and keeps the CA in tls/ beside the store file', async () => {
    const store = join(dir, 'state', 'understudy.sqlite');
    const server = await startProcess({ env: { UNDERSTUDY_PORT: '0', UNDERSTUDY_STORE: store, UNDERSTUDY_TLS: 'auto' } });
    try {
      const { readyLine, exports } = server.banner;
      expect(readyLine).toMatch(/ready on https:\/\/127\.0\.0\.1:\d+ /);
      expect(Object.keys(exports)).toEqual(['TFE_ADDRESS', 'TFE_TOKEN', 'VAULT_ADDR', 'VAULT_CACERT', 'SSL_CERT_FILE', 'VAULT_TOKEN']);
      expect(exports.VAULT_CACERT).toBe(join(dir, 'state', 'tls', 'ca.pem'));
      expect(exports.SSL_CERT_FILE).toBe(join(dir, 'state', 'tls', 'bundle.pem'));
      expect(server.stdout()).toContain("from understudy's local CA");
      expect(server.stdout()).toContain('no host block');
      const health = await new Promise<number | undefined>((done, fail) => {
        httpsGet(`${exports.VAULT_ADDR}/v1/sys/health`, { ca: readFileSync(exports.VAULT_CACERT as string) }, (response) => {
          response.resume();
          done(response.statusCode);
        }).on('error', fail);
      });
      expect(health).toBe(200);
    } finally {
      await server.stop();
    }
  });
});
