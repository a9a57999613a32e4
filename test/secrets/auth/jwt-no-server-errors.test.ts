import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { v1 } from '../core/client.js';
import { KeyServer, rsaKey, signJwt } from './jwt-helpers.js';

/** A small fuzz over the JWT method's paths: malformed configs, roles and tokens; nothing may answer 5xx. */

const PATHS = [
  'auth/jwt/config',
  'auth/jwt/role',
  'auth/jwt/role/r',
  'auth/jwt/role/bad%20name',
  'auth/jwt/login',
  'auth/jwt/oidc/auth_url',
];
const part = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

const BODIES: unknown[] = [
  undefined,
  {},
  { jwks_url: 5, jwt_validation_pubkeys: { a: 1 }, bound_issuer: [], oidc_response_types: 7, provider_config: 'x' },
  { oidc_discovery_url: 'not a url', oidc_discovery_ca_pem: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----' },
  { jwks_url: 'ftp://127.0.0.1/keys' },
  { jwks_url: 'http://[::1', jwks_pairs: [{ jwks_url: 1 }] },
  { jwt_validation_pubkeys: ['-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----'], jwt_supported_algs: [null] },
  { role_type: 'jwt', user_claim: 'sub', bound_claims: [1, 2], claim_mappings: { a: { b: 1 } }, bound_audiences: { x: 1 } },
  { role_type: 'jwt', user_claim: 'sub', bound_subject: 's', clock_skew_leeway: 'soon', expiration_leeway: {}, not_before_leeway: [1] },
  { role_type: 'jwt', user_claim: 'sub', bound_subject: 's', clock_skew_leeway: -1e308, max_age: -5, token_period: '1e308h' },
  { role_type: ['jwt'], user_claim: { a: 1 }, bound_claims_type: 5, allowed_redirect_uris: 'http://[::1' },
  { role: { a: 1 }, jwt: ['x'] },
  { role: 'r', jwt: 'a.b.c' },
  { role: 'r', jwt: '...' },
  { role: 'r', jwt: `${part('not json')}.${part({})}.sig` },
  { role: 'r', jwt: `${part([1])}.${part({})}.sig` },
  { role: 'r', jwt: `${part({ alg: 'none' })}.${part({})}.` },
  { role: 'r', jwt: `${part({ alg: 'RS256', kid: 5 })}.${part([1, 2])}.${'A'.repeat(342)}` },
  { role: 'r', redirect_uri: 'http://localhost/cb', client_nonce: { a: 1 } },
];

describe('the jwt method never answers 5xx', () => {
  let server: TestServer;
  let idp: KeyServer;
  const key = rsaKey('k');
  beforeAll(async () => {
    idp = await new KeyServer().start();
    idp.keys = [key];
    server = await startServer();
  });
  afterAll(async () => {
    await server.close();
    await idp.close();
  });
  const prepare = async () => {
    await v1(server, 'POST', 'sys/auth/jwt', { body: { type: 'jwt' } });
    await v1(server, 'POST', 'auth/jwt/config', { body: { jwks_url: `${idp.baseUrl}/keys` } });
    await v1(server, 'POST', 'auth/jwt/role/r', {
      body: { role_type: 'jwt', user_claim: '/a/b', user_claim_json_pointer: true, bound_audiences: 'x' },
    });
  };

  it('answers every path, method and body with a status below 500', async () => {
    const failures: string[] = [];
    for (const path of PATHS) {
      await prepare();
      for (const method of ['GET', 'POST', 'DELETE', 'LIST_QUERY']) {
        for (const body of method === 'POST' ? BODIES : [undefined]) {
          const listing = method === 'LIST_QUERY';
          const reply = await v1(server, listing ? 'GET' : method, listing ? `${path}?list=true` : path, { body });
          if (reply.status >= 500) failures.push(`${method} ${path} ${JSON.stringify(body)} -> ${reply.status} ${reply.text}`);
        }
      }
    }
    // Signed tokens with claims of every wrong type.
    const now = Math.floor(Date.now() / 1000);
    for (const claims of [
      { aud: { a: 1 }, exp: now + 60 },
      { aud: 'x', iss: 5, exp: now + 60 },
      { aud: 'x', exp: 'tomorrow' },
      { aud: 'x', exp: now + 60, a: { b: 7 } },
      { aud: ['x', 3], exp: now + 60 },
      { aud: 'x', exp: 1e308, a: { b: 'ana' } },
    ]) {
      const reply = await v1(server, 'POST', 'auth/jwt/login', { token: null, body: { role: 'r', jwt: signJwt(key, claims) } });
      if (reply.status >= 500) failures.push(`login ${JSON.stringify(claims)} -> ${reply.status} ${reply.text}`);
    }
    expect(failures).toEqual([]);
  }, 120_000);
});
