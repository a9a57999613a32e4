import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicKey } from 'node:crypto';
import { platform, startServer, type TestServer } from '../../helpers/app.js';

interface Jwks {
  keys: { kid: string; kty: string; n: string; e: string; use: string; alg: string }[];
}

describe('signing keys for dynamic provider credentials', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  const jwks = async (): Promise<Jwks> => (await (await fetch(`${server.baseUrl}/.well-known/jwks`)).json()) as Jwks;
  const kids = async () => (await jwks()).keys.map((key) => key.kid);
  const advance = async (by: string) => {
    const response = await fetch(`${server.baseUrl}/_emulator/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ advance: by }),
    });
    return (await response.json()) as { ran: { kind: string }[] };
  };

  it('publishes one RSA key with a kid, usable as a public key, and an OpenID configuration pointing at it', async () => {
    const set = await jwks();
    expect(set.keys).toHaveLength(1);
    const [key] = set.keys;
    expect(key).toMatchObject({ kty: 'RSA', use: 'sig', alg: 'RS256', e: 'AQAB' });
    expect(key?.kid).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(createPublicKey({ key: key as never, format: 'jwk' }).asymmetricKeyDetails?.modulusLength).toBe(2048);
    const discovery = (await (await fetch(`${server.baseUrl}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(discovery).toMatchObject({
      issuer: server.baseUrl,
      jwks_uri: `${server.baseUrl}/.well-known/jwks`,
      id_token_signing_alg_values_supported: ['RS256'],
    });
  });

  it('rotate adds exactly one current key and keeps the old one; trim leaves only the new one; trim with nothing to trim is 422', async () => {
    const before = await kids();
    const rotated = await platform(server, 'POST', '/admin/oidc-settings/actions/rotate-key');
    expect(rotated.status).toBe(204);
    expect(rotated.body).toBeUndefined();
    const after = await kids();
    expect(after).toHaveLength(before.length + 1);
    const added = after.find((kid) => !before.includes(kid));
    const trimmed = await platform(server, 'POST', '/admin/oidc-settings/actions/trim-key');
    expect(trimmed.status).toBe(204);
    expect(await kids()).toEqual([added]);
    const nothing = await platform(server, 'POST', '/admin/oidc-settings/actions/trim-key');
    expect(nothing.status).toBe(422);
    expect(await kids()).toEqual([added]);
  });

  it('rotates by itself 90 days after the last rotation and trims 30 days after it, as the clock advances', async () => {
    const start = await kids();
    expect(start).toHaveLength(1);
    // The last rotation was just now (the previous test): nothing is due for 89 days.
    expect((await advance('2136h')).ran.filter((work) => work.kind.startsWith('signing-key'))).toEqual([]);
    expect(await kids()).toEqual(start);
    const rotation = await advance('48h');
    expect(rotation.ran.map((work) => work.kind)).toContain('signing-key-rotation');
    const rotated = await kids();
    expect(rotated).toHaveLength(2);
    expect(rotated[0]).toBe(start[0]);
    // The rotation ran on day 90 (the clock now stands at day 91): on day 119 the old key is still published; on day 120 it goes.
    await advance('672h');
    expect(await kids()).toHaveLength(2);
    const trim = await advance('25h');
    expect(trim.ran.map((work) => work.kind)).toContain('signing-key-trim');
    expect(await kids()).toEqual([rotated[1]]);
  });

  it('a manual rotation restarts the rotation timer but does not move a pending trim', async () => {
    await platform(server, 'POST', '/admin/oidc-settings/actions/rotate-key');
    await advance('240h');
    // Ten days on, rotating again keeps the trim 20 days away (30 after the first rotation).
    await platform(server, 'POST', '/admin/oidc-settings/actions/rotate-key');
    expect(await kids()).toHaveLength(3);
    const trim = await advance('481h');
    expect(trim.ran.map((work) => work.kind)).toContain('signing-key-trim');
    expect(await kids()).toHaveLength(1);
    // The rotation timer restarted with the second rotation: 90 days from it, not from the first.
    const early = await advance(`${(90 - 20) * 24 - 2}h`);
    expect(early.ran.map((work) => work.kind)).not.toContain('signing-key-rotation');
    const due = await advance('3h');
    expect(due.ran.map((work) => work.kind)).toContain('signing-key-rotation');
  });
});
