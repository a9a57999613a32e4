import { createPublicKey, verify, type JsonWebKey } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDENTITY_MOUNT_UUID } from '../../../src/secrets/identity/identity-store.js';
import { MountStorage } from '../../../src/secrets/storage/mount-storage.js';
import { control, startServer, type TestServer } from '../../helpers/app.js';
import { v1 } from '../core/client.js';
import { hasOpenssl, ok, openssl, requireOpenssl, scratch } from '../pki/support.js';

/**
 * The identity store as an OIDC provider over raw HTTP: tokens are checked here with node:crypto
 * against the published key set, never through the server's own verification code.
 */
let server: TestServer;
let userToken: string;
let entityId: string;

interface Jwks {
  keys: (JsonWebKey & { kid: string; alg: string; use: string })[];
}

function decode(token: string): { header: Record<string, unknown>; claims: Record<string, unknown>; input: Buffer; signature: Buffer } {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const json = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
  return {
    header: json(header),
    claims: json(payload),
    input: Buffer.from(`${header}.${payload}`),
    signature: Buffer.from(signature, 'base64url'),
  };
}

/** Verifies a compact JWS with the published key its `kid` names, as any relying party would. */
function verifiesWith(jwks: Jwks, token: string): boolean {
  const { header, input, signature } = decode(token);
  const jwk = jwks.keys.find((key) => key.kid === header['kid']);
  if (!jwk) return false;
  const key = createPublicKey({ key: jwk, format: 'jwk' });
  const alg = String(header['alg']);
  if (alg === 'EdDSA') return verify(null, input, key, signature);
  const digest = `sha${alg.slice(2)}`;
  return verify(digest, input, alg.startsWith('ES') ? { key, dsaEncoding: 'ieee-p1363' } : key, signature);
}

async function publicKeys(): Promise<Jwks> {
  const reply = await v1(server, 'GET', 'identity/oidc/.well-known/keys', { token: null });
  expect(reply.status).toBe(200);
  return reply.body as Jwks;
}

async function mint(role: string): Promise<string> {
  const reply = await v1(server, 'GET', `identity/oidc/token/${role}`, { token: userToken });
  expect(reply.status, reply.text).toBe(200);
  return reply.body.data.token as string;
}

async function fails(method: string, path: string, body: unknown, status: number, message: string, token?: string) {
  const reply = await v1(server, method, path, { ...(body === undefined ? {} : { body }), ...(token ? { token } : {}) });
  expect({ status: reply.status, errors: reply.body?.errors }, `${method} ${path}`).toEqual({ status, errors: [message] });
}

beforeAll(async () => {
  server = await startServer();
  await ok(server, 'POST', 'sys/auth/userpass', { type: 'userpass' });
  await ok(server, 'POST', 'sys/policies/acl/minter', { policy: 'path "identity/oidc/token/*" { capabilities = ["read"] }' });
  await ok(server, 'POST', 'auth/userpass/users/ana', { password: 'pw', policies: ['minter'] });
  const login = await v1(server, 'POST', 'auth/userpass/login/ana', { token: null, body: { password: 'pw' } });
  userToken = login.body.auth.client_token;
  entityId = login.body.auth.entity_id;
  await ok(server, 'POST', `identity/entity/id/${entityId}`, { metadata: { team: 'core' } });
});
afterAll(() => server.close());

describe('identity tokens', () => {
  it('publishes discovery and keys without a token, with the issuer the request came to', async () => {
    const reply = await v1(server, 'GET', 'identity/oidc/.well-known/openid-configuration', { token: null });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toContain('application/json');
    const issuer = `${server.baseUrl}/v1/identity/oidc`;
    expect(reply.body).toEqual({
      issuer,
      jwks_uri: `${issuer}/.well-known/keys`,
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'EdDSA'],
    });
    const keys = await publicKeys();
    expect(keys.keys).toEqual([expect.objectContaining({ kty: 'RSA', alg: 'RS256', use: 'sig' })]);
    expect(keys.keys[0]).not.toHaveProperty('d');
    expect((await ok(server, 'GET', 'identity/oidc/key/default')).body.data).toEqual({
      algorithm: 'RS256',
      allowed_client_ids: ['*'],
      rotation_period: 86400,
      verification_ttl: 86400,
    });
  });

  it.each(['RS256', 'ES384', 'EdDSA'])('mints a %s token for the caller entity that verifies against the published keys', async (alg) => {
    const name = `k-${alg.toLowerCase()}`;
    await ok(server, 'POST', `identity/oidc/key/${name}`, { algorithm: alg, allowed_client_ids: '*' });
    const template = '{"team": {{identity.entity.metadata.team}}, "who": {"name": {{identity.entity.name}}}}';
    await ok(server, 'POST', `identity/oidc/role/r-${alg}`, { key: name, template: Buffer.from(template).toString('base64'), ttl: '1h' });
    const role = (await ok(server, 'GET', `identity/oidc/role/r-${alg}`)).body.data;
    expect(role).toEqual({ client_id: expect.stringMatching(/^[A-Za-z0-9]{26}$/), key: name, template, ttl: 3600 });
    const reply = await v1(server, 'GET', `identity/oidc/token/r-${alg}`, { token: userToken });
    expect(reply.body.data).toEqual({ token: expect.any(String), client_id: role.client_id, ttl: 3600 });
    const { header, claims } = decode(reply.body.data.token);
    expect(header.alg).toBe(alg);
    const entity = (await ok(server, 'GET', `identity/entity/id/${entityId}`)).body.data;
    expect(claims).toEqual({
      iss: `${server.baseUrl}/v1/identity/oidc`,
      namespace: 'root',
      sub: entityId,
      aud: role.client_id,
      iat: expect.any(Number),
      exp: (claims.iat as number) + 3600,
      team: 'core',
      who: { name: entity.name },
    });
    expect(verifiesWith(await publicKeys(), reply.body.data.token)).toBe(true);
    const introspected = await v1(server, 'POST', 'identity/oidc/introspect', {
      body: { token: reply.body.data.token, client_id: role.client_id },
    });
    expect(introspected.body).toEqual({ active: true });
  });

  it.skipIf(!hasOpenssl && !process.env.CI)('mints RS256 tokens that openssl verifies with the published key', async () => {
    requireOpenssl();
    const token = await mint('r-RS256');
    const { header, input, signature } = decode(token);
    const jwk = (await publicKeys()).keys.find((key) => key.kid === header['kid']);
    const pem = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' })
      .export({ format: 'pem', type: 'spki' })
      .toString();
    const files = scratch();
    try {
      const [data, sig, tampered] = [files.path('input'), files.path('sig'), files.path('tampered')];
      writeFileSync(data, input);
      writeFileSync(sig, signature);
      writeFileSync(tampered, Buffer.concat([input, Buffer.from('x')]));
      const key = files.path('key.pem', pem);
      expect(openssl(['dgst', '-sha256', '-verify', key, '-signature', sig, data]).output).toContain('Verified OK');
      expect(openssl(['dgst', '-sha256', '-verify', key, '-signature', sig, tampered]).status).not.toBe(0);
    } finally {
      files.cleanup();
    }
  });

  it('refuses bad keys, roles and callers with the real texts, and changes nothing', async () => {
    await fails('POST', 'identity/oidc/key/bad', { algorithm: 'HS256' }, 400, 'unknown signing algorithm "HS256"');
    await fails('POST', 'identity/oidc/key/bad', { rotation_period: '30s' }, 400, 'rotation_period must be at least one minute');
    await fails(
      'POST',
      'identity/oidc/key/bad',
      { rotation_period: '1h', verification_ttl: '11h' },
      400,
      'verification_ttl cannot be longer than 10x rotation_period',
    );
    await fails('GET', 'identity/oidc/key/bad', undefined, 400, 'no named key found at "bad"');
    await fails('POST', 'identity/oidc/role/bad', { key: 'missing' }, 400, 'key "missing" does not exist');
    await fails(
      'POST',
      'identity/oidc/role/bad',
      { template: '{"sub": "x"}' },
      400,
      'top level key "sub" not allowed. Restricted keys: iat, aud, exp, iss, sub, namespace',
    );
    expect((await v1(server, 'GET', 'identity/oidc/role/bad')).status).toBe(404);
    await fails(
      'POST',
      'identity/oidc/config',
      { issuer: 'https://example.com/path' },
      400,
      'invalid issuer, which must include only a scheme, host, and optional port (e.g. https://example.com:8200)',
    );
    await ok(server, 'POST', 'identity/oidc/key/narrow', { allowed_client_ids: ['someone-else'] });
    await ok(server, 'POST', 'identity/oidc/role/narrow', { key: 'narrow' });
    await fails(
      'GET',
      'identity/oidc/token/narrow',
      undefined,
      400,
      'the key "narrow" does not list the client ID of the role "narrow" as an allowed client ID',
      userToken,
    );
    await fails(
      'DELETE',
      'identity/oidc/key/narrow',
      undefined,
      400,
      'unable to delete key "narrow" because it is currently referenced by these roles: narrow',
    );
    await ok(server, 'POST', 'identity/oidc/role/plain', {});
    await fails('GET', 'identity/oidc/token/plain', undefined, 400, "no entity associated with the request's token");
    await fails('GET', 'identity/oidc/token/nope', undefined, 400, 'role "nope" not found', userToken);
    const roles = (await v1(server, 'LIST', 'identity/oidc/role')).body.data.keys;
    expect(roles).toEqual(expect.arrayContaining(['narrow', 'plain']));
    expect(roles).not.toContain('bad');
    expect((await v1(server, 'LIST', 'identity/oidc/key')).body.data.keys).toEqual(expect.arrayContaining(['default', 'narrow']));
  });

  it('rotates on the clock, keeps the retired key published for verification_ttl, then drops it', async () => {
    await ok(server, 'POST', 'identity/oidc/key/timed', { rotation_period: '1h', verification_ttl: '2h', allowed_client_ids: '*' });
    await ok(server, 'POST', 'identity/oidc/role/timed', { key: 'timed', ttl: '30m' });
    const before = await mint('timed');
    const oldKid = decode(before).header.kid;
    const advanced = await control(server, 'POST', '/clock', { advance: '61m' });
    expect(advanced.body.ran).toEqual(
      expect.arrayContaining([expect.objectContaining({ kind: 'identity-oidc-key', subject: 'timed', detail: 'rotated' })]),
    );
    const after = await mint('timed');
    expect(decode(after).header.kid).not.toBe(oldKid);
    const keys = await publicKeys();
    expect(keys.keys.map((key) => key.kid)).toContain(oldKid);
    expect(verifiesWith(keys, before) && verifiesWith(keys, after)).toBe(true);
    // The old token has expired (30m + the one minute leeway) though its key is still published.
    const expired = await v1(server, 'POST', 'identity/oidc/introspect', { body: { token: before } });
    expect(expired.body).toEqual({
      active: false,
      error: 'error validating claims: go-jose/go-jose/jwt: validation failed, token is expired (exp)',
    });
    await control(server, 'POST', '/clock', { advance: '2h' });
    expect((await publicKeys()).keys.map((key) => key.kid)).not.toContain(oldKid);
    const unverifiable = await v1(server, 'POST', 'identity/oidc/introspect', { body: { token: before } });
    expect(unverifiable.body).toEqual({ active: false, error: 'unable to validate the token signature' });
  });

  it('rotates on request, with a verification_ttl of its own', async () => {
    await ok(server, 'POST', 'identity/oidc/key/manual', { allowed_client_ids: '*' });
    await ok(server, 'POST', 'identity/oidc/role/manual', { key: 'manual' });
    const kid = decode(await mint('manual')).header.kid;
    await ok(server, 'POST', 'identity/oidc/key/manual/rotate', { verification_ttl: 0 });
    expect(decode(await mint('manual')).header.kid).not.toBe(kid);
    expect((await publicKeys()).keys.map((key) => key.kid)).not.toContain(kid);
    await fails('POST', 'identity/oidc/key/missing/rotate', {}, 400, 'no named key found at "missing"');
  });

  it('reports inactive tokens: disabled entity, wrong audience, garbage', async () => {
    const token = await mint('r-RS256');
    const wrongAudience = await v1(server, 'POST', 'identity/oidc/introspect', { body: { token, client_id: 'other' } });
    expect(wrongAudience.body).toEqual({
      active: false,
      error: 'error validating claims: go-jose/go-jose/jwt: validation failed, invalid audience claim (aud)',
    });
    await ok(server, 'POST', `identity/entity/id/${entityId}`, { disabled: true });
    expect((await v1(server, 'POST', 'identity/oidc/introspect', { body: { token } })).body).toEqual({
      active: false,
      error: 'entity is disabled',
    });
    await ok(server, 'POST', `identity/entity/id/${entityId}`, { disabled: false });
    const garbage = await v1(server, 'POST', 'identity/oidc/introspect', { body: { token: 'not-a-token' } });
    expect(garbage.status).toBe(200);
    expect(garbage.body.active).toBe(false);
    expect(garbage.body.error).toMatch(/^error parsing token: /);
  });

  it('keeps private signing keys sealed at rest: no key material in any stored row', async () => {
    const rows = server.app.runtime.store.sqlite
      .prepare("SELECT key, value FROM secret_entries WHERE key LIKE 'oidc_tokens/named_keys/%'")
      .all() as { key: string; value: string }[];
    expect(rows.length).toBeGreaterThan(2);
    // The whole entry is sealed in the row; opened, its private key is sealed a second time.
    const storage = new MountStorage(server.app.runtime.store.db, IDENTITY_MOUNT_UUID);
    for (const row of rows) {
      expect(row.value).toMatch(/^"sealed:v1:[\w-]+\.[\w-]+\.[\w-]+"$/);
      const stored = storage.get(row.key) as { signingKeySealed: string; ring: { jwk: Record<string, unknown> }[] };
      expect(JSON.stringify(stored)).not.toContain('PRIVATE KEY');
      expect(stored.signingKeySealed).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
      for (const entry of stored.ring) expect(entry.jwk).not.toHaveProperty('d');
    }
  });

  it('answers malformed bodies with 400s, never a 5xx, and stores nothing', async () => {
    const bodies: [string, unknown][] = [
      ['identity/oidc/key/junk', { algorithm: 5 }],
      ['identity/oidc/key/junk', { rotation_period: 'soon' }],
      ['identity/oidc/key/junk', { allowed_client_ids: { a: 1 } }],
      ['identity/oidc/role/junk', { template: { a: 1 } }],
      ['identity/oidc/role/junk', { template: '{"a": }' }],
      ['identity/oidc/role/junk', { template: '["list"]' }],
      ['identity/oidc/role/junk', { ttl: [] }],
      ['identity/oidc/config', { issuer: ['x'] }],
      ['identity/oidc/introspect', { token: { a: 1 } }],
      ['identity/oidc/key/default/rotate', { verification_ttl: 'later' }],
    ];
    for (const [path, body] of bodies) {
      const reply = await v1(server, 'POST', path, { body });
      expect(reply.status, `${path} ${JSON.stringify(body)}: ${reply.text}`).toBe(400);
    }
    expect((await v1(server, 'GET', 'identity/oidc/key/junk')).status).toBe(400);
    expect((await v1(server, 'GET', 'identity/oidc/role/junk')).status).toBe(404);
    const template = await v1(server, 'POST', 'identity/oidc/role/junk', { body: { template: '{"a": }' } });
    expect(template.body.errors[0]).toMatch(/^error parsing template JSON: /);
  });

  it('uses the configured issuer', async () => {
    await ok(server, 'POST', 'identity/oidc/config', { issuer: 'https://idp.example:8200' });
    expect((await ok(server, 'GET', 'identity/oidc/config')).body.data).toEqual({ issuer: 'https://idp.example:8200' });
    expect(decode(await mint('manual')).claims.iss).toBe('https://idp.example:8200/v1/identity/oidc');
    await ok(server, 'POST', 'identity/oidc/config', { issuer: '' });
    expect(decode(await mint('manual')).claims.iss).toBe(`${server.baseUrl}/v1/identity/oidc`);
  });
});
