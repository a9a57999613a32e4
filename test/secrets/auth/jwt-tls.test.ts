import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { v1 } from '../core/client.js';
import { KeyServer, rsaKey, signJwt } from './jwt-helpers.js';

const hasOpenssl = spawnSync('openssl', ['version'], { stdio: 'ignore' }).status === 0;
if (!hasOpenssl && !process.env.CI) console.warn('skipping the JWT-over-HTTPS test: openssl is not installed');

/** Key sets and discovery over HTTPS, trusted through the configured CA PEM only. */
describe.skipIf(!hasOpenssl && !process.env.CI)('the jwt auth method over HTTPS', () => {
  let server: TestServer;
  let idp: KeyServer;
  let caPem = '';
  let dir = '';
  const key = rsaKey('tls-key');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'understudy-jwt-tls-'));
    // A self-signed certificate for 127.0.0.1 is its own CA.
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
      '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
    ], { stdio: 'ignore' }); // prettier-ignore
    caPem = readFileSync(join(dir, 'cert.pem'), 'utf8');
    idp = await new KeyServer().start({ key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: caPem });
    idp.keys = [key];
    server = await startServer();
    await v1(server, 'POST', 'sys/auth/jwt', { body: { type: 'jwt' } });
  });
  afterAll(async () => {
    await server?.close();
    await idp?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const config = (body: Record<string, unknown>) => v1(server, 'POST', 'auth/jwt/config', { body });

  it('refuses a JWKS URL whose certificate the system roots do not trust, and accepts it with jwks_ca_pem', async () => {
    expect((await config({ jwks_url: `${idp.baseUrl}/keys` })).body.errors).toEqual([`error checking jwks URL ${idp.baseUrl}/keys`]);
    expect((await config({ jwks_url: `${idp.baseUrl}/keys`, jwks_ca_pem: caPem })).status).toBe(204);
    await v1(server, 'POST', 'auth/jwt/role/tls', { body: { role_type: 'jwt', user_claim: 'sub', bound_audiences: 'a' } });
    const now = Math.floor(server.app.runtime.clock.nowMs() / 1000);
    const login = await v1(server, 'POST', 'auth/jwt/login', {
      token: null,
      body: { role: 'tls', jwt: signJwt(key, { sub: 'ana', aud: 'a', iat: now, exp: now + 60 }) },
    });
    expect(login.status).toBe(200);
  });

  it('fetches the discovery document with oidc_discovery_ca_pem', async () => {
    expect((await config({ oidc_discovery_url: idp.baseUrl })).body.errors).toEqual(['error checking oidc discovery URL']);
    expect((await config({ oidc_discovery_url: idp.baseUrl, oidc_discovery_ca_pem: caPem })).status).toBe(204);
    expect((await v1(server, 'GET', 'auth/jwt/config')).body.data.oidc_discovery_ca_pem).toBe(caPem);
  });
});
