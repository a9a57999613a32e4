import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { advance, v1 } from '../core/client.js';
import { KeyServer, rsaKey, signJwt } from './jwt-helpers.js';

const REDIRECT = 'http://localhost:8250/oidc/callback';

/** The OIDC browser flow against a tiny provider this test runs on a real socket. */
describe('the oidc auth method: browser flow', () => {
  let server: TestServer;
  let idp: KeyServer;
  const key = rsaKey('idp-key');
  /** What the provider's token endpoint saw, and how it answers the next exchange. */
  const seen: { authorization?: string; form?: URLSearchParams } = {};
  let answerWith: (form: URLSearchParams) => { status: number; body: unknown } = () => ({ status: 500, body: {} });
  const now = () => Math.floor(server.app.runtime.clock.nowMs() / 1000);

  beforeAll(async () => {
    idp = await new KeyServer().start();
    idp.keys = [key];
    idp.routes.set('/token', (request, body, response) => {
      seen.authorization = request.headers.authorization;
      seen.form = new URLSearchParams(body);
      const answer = answerWith(seen.form);
      response.writeHead(answer.status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answer.body));
    });
    server = await startServer();
    expect((await v1(server, 'POST', 'sys/auth/oidc', { body: { type: 'oidc' } })).status).toBe(204);
    const configured = await v1(server, 'POST', 'auth/oidc/config', {
      body: { oidc_discovery_url: idp.baseUrl, oidc_client_id: 'understudy', oidc_client_secret: 'pa:ss' },
    });
    expect(configured.status).toBe(204);
    const role = await v1(server, 'POST', 'auth/oidc/role/web', {
      body: {
        user_claim: 'email',
        allowed_redirect_uris: [REDIRECT],
        bound_audiences: 'understudy',
        claim_mappings: { email: 'email' },
        oidc_scopes: 'profile',
        token_policies: 'people',
      },
    });
    expect(role.status).toBe(204);
  });
  afterAll(async () => {
    await server.close();
    await idp.close();
  });

  const authUrl = (body: Record<string, unknown>) => v1(server, 'POST', 'auth/oidc/oidc/auth_url', { token: null, body });
  const callback = (query: Record<string, string>) =>
    v1(server, 'GET', `auth/oidc/oidc/callback?${new URLSearchParams(query).toString()}`, { token: null });
  const start = async (extra: Record<string, unknown> = {}) => {
    const answer = await authUrl({ role: 'web', redirect_uri: REDIRECT, ...extra });
    expect(answer.status).toBe(200);
    return new URL(answer.body.data.auth_url as string);
  };
  /** The provider answers the code exchange with an ID token for this nonce (and these claims). */
  const provide = (nonce: string, claims: Record<string, unknown> = {}) => {
    answerWith = (form) => ({
      status: form.get('code') === 'good-code' ? 200 : 400,
      body:
        form.get('code') === 'good-code'
          ? {
              access_token: 'at',
              token_type: 'Bearer',
              id_token: signJwt(key, {
                iss: idp.baseUrl,
                sub: 'user-1',
                aud: 'understudy',
                email: 'ana@example.com',
                nonce,
                iat: now(),
                exp: now() + 300,
                ...claims,
              }),
            }
          : { error: 'invalid_grant' },
    });
  };

  it("answers the provider's authorize URL with state, nonce and PKCE", async () => {
    const url = await start();
    expect(`${url.origin}${url.pathname}`).toBe(`${idp.baseUrl}/authorize`);
    expect(url.searchParams.get('client_id')).toBe('understudy');
    expect(url.searchParams.get('redirect_uri')).toBe(REDIRECT);
    expect(url.searchParams.get('response_type')).toBe('code');
    expect(url.searchParams.get('scope')).toBe('openid profile');
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('state')).toMatch(/^[0-9a-f]{40}$/);
    expect(url.searchParams.get('nonce')).not.toBe(url.searchParams.get('state'));
  });

  it('logs in through the callback: the code is exchanged with the client secret and the PKCE verifier', async () => {
    const url = await start();
    provide(url.searchParams.get('nonce') ?? '');
    const answer = await callback({ state: url.searchParams.get('state') ?? '', code: 'good-code' });
    expect(answer.status).toBe(200);
    expect(answer.body.auth).toMatchObject({ policies: ['default', 'people'], metadata: { role: 'web', email: 'ana@example.com' } });
    expect(seen.authorization).toBe(`Basic ${Buffer.from('understudy:pa%3Ass').toString('base64')}`);
    expect(seen.form?.get('grant_type')).toBe('authorization_code');
    expect(seen.form?.get('redirect_uri')).toBe(REDIRECT);
    const verifier = seen.form?.get('code_verifier') ?? '';
    expect(createHash('sha256').update(verifier).digest('base64url')).toBe(url.searchParams.get('code_challenge'));
    const me = await v1(server, 'GET', 'auth/token/lookup-self', { token: answer.body.auth.client_token });
    expect(me.body.data).toMatchObject({ path: 'auth/oidc/oidc/callback', meta: { role: 'web', email: 'ana@example.com' } });
    // A state is good for one callback.
    expect((await callback({ state: url.searchParams.get('state') ?? '', code: 'good-code' })).body.errors).toEqual([
      'Vault login failed. Expired or missing OAuth state.',
    ]);
  });

  it('refuses an ID token with another nonce, a refused code, and a state that expired on the clock', async () => {
    let url = await start();
    provide('some-other-nonce');
    const wrongNonce = await callback({ state: url.searchParams.get('state') ?? '', code: 'good-code' });
    expect(wrongNonce.status).toBe(400);
    expect(wrongNonce.body.errors[0]).toMatch(
      /^Vault login failed\. Error exchanging oidc code: ".*invalid id_token nonce: invalid nonce"\.$/,
    );

    url = await start();
    const refused = await callback({ state: url.searchParams.get('state') ?? '', code: 'bad-code' });
    expect(refused.body.errors[0]).toContain('oauth2: cannot fetch token: 400 Bad Request');

    url = await start();
    provide(url.searchParams.get('nonce') ?? '');
    await advance(server, '11m');
    expect((await callback({ state: url.searchParams.get('state') ?? '', code: 'good-code' })).body.errors).toEqual([
      'Vault login failed. Expired or missing OAuth state.',
    ]);
  });

  it('checks client_nonce, audiences and the issuer of the ID token', async () => {
    let url = await start({ client_nonce: 'abc' });
    provide(url.searchParams.get('nonce') ?? '');
    expect((await callback({ state: url.searchParams.get('state') ?? '', code: 'good-code' })).body.errors).toEqual([
      'invalid client_nonce',
    ]);

    url = await start();
    provide(url.searchParams.get('nonce') ?? '', { aud: 'someone-else' });
    expect((await callback({ state: url.searchParams.get('state') ?? '', code: 'good-code' })).body.errors[0]).toContain(
      'invalid audience',
    );

    url = await start();
    provide(url.searchParams.get('nonce') ?? '', { iss: 'https://impostor' });
    expect((await callback({ state: url.searchParams.get('state') ?? '', code: 'good-code' })).body.errors[0]).toContain('invalid issuer');
  });

  it('answers auth_url errors with the real texts, and an empty URL for a redirect the role does not allow', async () => {
    expect((await authUrl({ redirect_uri: REDIRECT })).body.errors).toEqual(['missing role']);
    expect((await authUrl({ role: 'web' })).body.errors).toEqual(['missing redirect_uri']);
    expect((await authUrl({ role: 'ghost', redirect_uri: REDIRECT })).body.errors).toEqual(['role "ghost" could not be found']);
    const elsewhere = await authUrl({ role: 'web', redirect_uri: 'https://evil.example/cb' });
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body.data).toEqual({ auth_url: '' });
    // A loopback redirect matches on any port, as for real.
    expect((await authUrl({ role: 'web', redirect_uri: 'http://localhost:9999/oidc/callback' })).body.data.auth_url).not.toBe('');
    // A direct JWT login is refused on a browser-flow configuration.
    const login = await v1(server, 'POST', 'auth/oidc/login', { token: null, body: { role: 'web', jwt: 'x' } });
    expect(login.body.errors).toEqual(['role with oidc role_type is not allowed']);
    expect((await callback({ state: 'nope', code: 'x' })).body.errors).toEqual(['Vault login failed. Expired or missing OAuth state.']);
  });

  it('says the flow is not configured on a mount without a client', async () => {
    await v1(server, 'POST', 'sys/auth/plain', { body: { type: 'jwt' } });
    await v1(server, 'POST', 'auth/plain/config', { body: { jwks_url: `${idp.baseUrl}/keys` } });
    const answer = await v1(server, 'POST', 'auth/plain/oidc/auth_url', { token: null, body: { role: 'x', redirect_uri: REDIRECT } });
    expect(answer.body.errors).toEqual(['OIDC login is not configured for this mount']);
  });
});
