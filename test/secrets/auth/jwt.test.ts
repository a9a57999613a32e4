import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { advance, list, v1 } from '../core/client.js';
import { ecKey, edKey, KeyServer, publicPem, rsaKey, signJwt, type TestKey } from './jwt-helpers.js';

const SIGNATURE = 'error validating token: error verifying token signature:';

describe('the jwt auth method', () => {
  let server: TestServer;
  let idp: KeyServer;
  const primary = rsaKey('primary');
  const now = () => Math.floor(server.app.runtime.clock.nowMs() / 1000);
  const claims = (extra: Record<string, unknown> = {}) => ({
    iss: idp.baseUrl,
    sub: 'organization:acme:project:Default Project:workspace:web:run_phase:plan',
    aud: 'vault.workload.identity',
    iat: now(),
    nbf: now(),
    exp: now() + 300,
    terraform_full_workspace: 'organization:acme:project:Default Project:workspace:web',
    terraform_workspace_name: 'web',
    terraform_organization_name: 'acme',
    ...extra,
  });
  const login = (body: Record<string, unknown>, mount = 'jwt') => v1(server, 'POST', `auth/${mount}/login`, { token: null, body });
  const config = (body: Record<string, unknown>, mount = 'jwt') => v1(server, 'POST', `auth/${mount}/config`, { body });
  const role = (name: string, body: Record<string, unknown>, mount = 'jwt') => v1(server, 'POST', `auth/${mount}/role/${name}`, { body });
  const errors = async (reply: Promise<{ status: number; body: { errors?: string[] } }>) => {
    const answer = await reply;
    return { status: answer.status, errors: answer.body?.errors };
  };
  const RUN_ROLE = {
    role_type: 'jwt',
    user_claim: 'terraform_full_workspace',
    bound_audiences: ['vault.workload.identity'],
    bound_claims_type: 'glob',
    bound_claims: { sub: 'organization:acme:project:*:workspace:web:run_phase:*' },
    claim_mappings: { terraform_workspace_name: 'workspace', terraform_organization_name: 'organization' },
    token_policies: ['runs'],
    token_ttl: '20m',
  };

  beforeAll(async () => {
    idp = await new KeyServer().start();
    idp.keys = [primary];
    server = await startServer();
    expect((await v1(server, 'POST', 'sys/auth/jwt', { body: { type: 'jwt' } })).status).toBe(204);
  });
  afterAll(async () => {
    await server.close();
    await idp.close();
  });

  describe('config', () => {
    it('needs exactly one key source and checks it live, as the real method does', async () => {
      expect(await errors(config({}))).toEqual({
        status: 400,
        errors: ["exactly one of 'jwt_validation_pubkeys', 'jwks_url', 'jwks_pairs' or 'oidc_discovery_url' must be set"],
      });
      expect((await errors(config({ jwks_url: `${idp.baseUrl}/keys`, oidc_discovery_url: idp.baseUrl }))).errors?.[0]).toMatch(
        /^exactly one of/,
      );
      expect((await errors(config({ oidc_discovery_url: idp.baseUrl, oidc_client_id: 'c' }))).errors).toEqual([
        "both 'oidc_client_id' and 'oidc_client_secret' must be set for OIDC",
      ]);
      expect((await errors(config({ oidc_discovery_url: 'http://127.0.0.1:1' }))).errors).toEqual(['error checking oidc discovery URL']);
      // The document's issuer must equal the configured URL byte for byte.
      expect((await errors(config({ oidc_discovery_url: `${idp.baseUrl}/` }))).errors).toEqual(['error checking oidc discovery URL']);
      expect((await errors(config({ jwks_url: `${idp.baseUrl}/missing` }))).errors).toEqual([
        `error checking jwks URL ${idp.baseUrl}/missing`,
      ]);
      expect((await errors(config({ jwks_url: `${idp.baseUrl}/keys`, jwks_ca_pem: 'not a pem' }))).errors).toEqual([
        'error checking jwks_ca_pem',
      ]);
      expect((await errors(config({ jwt_validation_pubkeys: ['nope'] }))).errors).toEqual([
        'error parsing public key: data does not contain any valid public keys',
      ]);
      expect((await errors(config({ jwks_url: `${idp.baseUrl}/keys`, jwt_supported_algs: ['HS256'] }))).errors).toEqual([
        'invalid jwt_supported_algs: unsupported signing algorithm "HS256"',
      ]);
      expect((await errors(config({ jwks_url: `${idp.baseUrl}/keys`, oidc_response_types: ['token'] }))).errors).toEqual([
        "invalid response_types [token]. 'code' and 'id_token' are allowed",
      ]);
      expect((await errors(config({ jwks_url: `${idp.baseUrl}/keys`, oidc_response_types: 'id_token' }))).errors).toEqual([
        'query response_mode may not be used with an id_token response_type',
      ]);
      expect((await errors(config({ jwks_url: `${idp.baseUrl}/keys`, oidc_response_mode: 'fragment' }))).errors).toEqual([
        'invalid response_mode: "fragment"',
      ]);
      // Nothing was stored by the refused writes.
      expect((await v1(server, 'GET', 'auth/jwt/config')).status).toBe(404);
    });

    it('stores a configuration and reads it back without the client secret', async () => {
      expect(
        (await config({ oidc_discovery_url: idp.baseUrl, oidc_client_id: 'client', oidc_client_secret: 's3cret', default_role: 'Dev' }))
          .status,
      ).toBe(204);
      const read = await v1(server, 'GET', 'auth/jwt/config');
      expect(read.body.data).toMatchObject({
        oidc_discovery_url: idp.baseUrl,
        oidc_client_id: 'client',
        default_role: 'dev',
        namespace_in_state: true,
        jwks_url: '',
        jwt_validation_pubkeys: [],
        bound_issuer: '',
      });
      expect(read.text).not.toContain('s3cret');
      expect(read.body.data).not.toHaveProperty('oidc_client_secret');
    });
  });

  describe('roles', () => {
    it('defaults role_type to oidc on every write, as the real method does', async () => {
      expect((await errors(role('r1', { user_claim: 'sub' }))).errors).toEqual([
        "'allowed_redirect_uris' must be set if 'role_type' is 'oidc' or unspecified.",
      ]);
      expect((await role('r1', { role_type: 'jwt', user_claim: 'sub', bound_subject: 'x' })).status).toBe(204);
      // An update without role_type turns the role into an oidc role again.
      expect((await errors(role('r1', { bound_subject: 'y' }))).errors).toEqual([
        "'allowed_redirect_uris' must be set if 'role_type' is 'oidc' or unspecified.",
      ]);
      expect((await v1(server, 'GET', 'auth/jwt/role/r1')).body.data).toMatchObject({ role_type: 'jwt', bound_subject: 'x' });
    });

    it('refuses bad roles with the real texts', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ role_type: 'saml', user_claim: 'sub' }, "invalid 'role_type': saml"],
        [{ role_type: 'jwt' }, 'a user claim must be defined on the role'],
        [{ role_type: 'jwt', user_claim: 'sub' }, 'must have at least one bound constraint when creating/updating a role'],
        [{ role_type: 'jwt', user_claim: 'sub', bound_subject: 's', bound_claims_type: 'regex' }, "invalid 'bound_claims_type': regex"],
        [
          { role_type: 'jwt', user_claim: 'sub', bound_claims_type: 'glob', bound_claims: { a: { b: 1 } } },
          'claim is not a string or list: map[b:1]',
        ],
        [{ role_type: 'jwt', user_claim: 'sub', bound_claims_type: 'glob', bound_claims: { a: 5 } }, 'claim is not a string: 5'],
        [
          { role_type: 'jwt', user_claim: 'sub', bound_claims_type: 'glob', bound_claims: { a: ['x', true] } },
          'claim is not a string: true',
        ],
        [
          { role_type: 'jwt', user_claim: 'sub', bound_subject: 's', claim_mappings: { a: 'role' } },
          'metadata key "role" is reserved and may not be a mapping destination',
        ],
        [
          { role_type: 'jwt', user_claim: 'sub', bound_subject: 's', claim_mappings: { a: 'x', b: 'x' } },
          'multiple keys are mapped to metadata key "x"',
        ],
        [
          { role_type: 'jwt', user_claim: 'sub', bound_subject: 's', token_ttl: '2h', token_max_ttl: '1h' },
          "'token_ttl' cannot be greater than 'token_max_ttl'",
        ],
      ];
      for (const [body, message] of cases) expect(await errors(role('bad', body))).toEqual({ status: 400, errors: [message] });
      expect((await v1(server, 'GET', 'auth/jwt/role/bad')).status).toBe(404);
    });

    it('reads every field back, lists and deletes, and warns where the real method does', async () => {
      expect((await role('Full', { ...RUN_ROLE, clock_skew_leeway: '-1', expiration_leeway: 30, groups_claim: '/groups' })).status).toBe(
        204,
      );
      const read = await v1(server, 'GET', 'auth/jwt/role/full');
      expect(read.body.data).toEqual({
        role_type: 'jwt',
        expiration_leeway: 30,
        not_before_leeway: 0,
        clock_skew_leeway: -1,
        bound_audiences: ['vault.workload.identity'],
        bound_subject: '',
        bound_claims_type: 'glob',
        bound_claims: { sub: 'organization:acme:project:*:workspace:web:run_phase:*' },
        claim_mappings: { terraform_workspace_name: 'workspace', terraform_organization_name: 'organization' },
        user_claim: 'terraform_full_workspace',
        user_claim_json_pointer: false,
        groups_claim: '/groups',
        allowed_redirect_uris: [],
        oidc_scopes: [],
        verbose_oidc_logging: false,
        max_age: 0,
        token_bound_cidrs: [],
        token_explicit_max_ttl: 0,
        token_max_ttl: 0,
        token_no_default_policy: false,
        token_num_uses: 0,
        token_period: 0,
        token_policies: ['runs'],
        token_ttl: 1200,
        token_type: 'default',
      });
      const warned = await role('loud', { ...RUN_ROLE, verbose_oidc_logging: true, token_max_ttl: '10000h' });
      expect(warned.status).toBe(200);
      expect(warned.body.warnings).toEqual([
        "token max ttl is greater than the system or backend mount's maximum TTL value; issued tokens' max TTL value will be truncated",
        'verbose_oidc_logging has been enabled for this role. This is not recommended in production since sensitive information ' +
          'may be present in OIDC responses.',
      ]);
      expect((await list(server, 'auth/jwt/role')).body.data.keys).toEqual(expect.arrayContaining(['full', 'loud', 'r1']));
      expect((await v1(server, 'DELETE', 'auth/jwt/role/loud')).status).toBe(204);
      expect((await v1(server, 'GET', 'auth/jwt/role/loud')).status).toBe(404);
    });
  });

  describe('login', () => {
    beforeAll(async () => {
      expect((await config({ jwks_url: `${idp.baseUrl}/keys`, bound_issuer: idp.baseUrl, default_role: 'run' })).status).toBe(204);
      expect((await role('run', RUN_ROLE)).status).toBe(204);
      expect((await role('browser', { user_claim: 'sub', allowed_redirect_uris: ['http://localhost/cb'] })).status).toBe(204);
    });

    it('trades a valid token for a renewable token carrying the role and the claim mappings', async () => {
      const answer = await login({ role: 'RUN', jwt: signJwt(primary, claims()) });
      expect(answer.status).toBe(200);
      expect(answer.body.auth).toMatchObject({
        policies: ['default', 'runs'],
        token_policies: ['default', 'runs'],
        metadata: { role: 'run', workspace: 'web', organization: 'acme' },
        lease_duration: 1200,
        renewable: true,
        orphan: true,
        token_type: 'service',
      });
      // The alias (the user claim's value) links an identity entity; a second login finds the same one.
      expect(answer.body.auth.entity_id).toMatch(/^[0-9a-f-]{36}$/);
      expect((await login({ role: 'run', jwt: signJwt(primary, claims()) })).body.auth.entity_id).toBe(answer.body.auth.entity_id);
      const token = answer.body.auth.client_token as string;
      const me = await v1(server, 'GET', 'auth/token/lookup-self', { token });
      expect(me.body.data).toMatchObject({ path: 'auth/jwt/login', meta: { role: 'run', workspace: 'web' }, renewable: true });
      // Named after the mount and the user claim (understudy's token store turns other characters into `-`).
      // The user claim as it is: logins keep ':' and spaces (only token/create's display names are sanitised).
      expect(me.body.data.display_name).toBe('jwt-organization:acme:project:Default Project:workspace:web');
      expect((await v1(server, 'POST', 'auth/token/renew-self', { token, body: { increment: '10m' } })).status).toBe(200);
      // The default role answers when the login names none.
      expect((await login({ jwt: signJwt(primary, claims()) })).status).toBe(200);
      expect((await v1(server, 'POST', 'auth/token/revoke-self', { token })).status).toBe(204);
      expect((await v1(server, 'GET', 'auth/token/lookup-self', { token })).status).toBe(403);
    });

    it('checks in the real order with the real texts', async () => {
      const other = rsaKey('primary');
      const cases: [Record<string, unknown>, number, string][] = [
        [{ role: 'ghost', jwt: 'x' }, 400, 'role "ghost" could not be found'],
        [{ role: 'browser', jwt: 'x' }, 400, 'role with oidc role_type is not allowed'],
        [{ role: 'run' }, 400, 'missing token'],
        [{ role: 'run', jwt: 'a.b' }, 400, `${SIGNATURE} oidc: malformed jwt: go-jose/go-jose: compact JWS format must have three parts`],
        [
          { role: 'run', jwt: signJwt(other, claims()) },
          400,
          'error validating token: error verifying token signature: failed to verify id token signature',
        ],
        [
          { role: 'run', jwt: signJwt(primary, claims({ iss: 'https://elsewhere' })) },
          400,
          'error validating token: invalid issuer (iss) claim',
        ],
        [
          { role: 'run', jwt: signJwt(primary, claims({ aud: ['other'] })) },
          400,
          'error validating token: invalid audience (aud) claim: audience claim does not match any expected audience',
        ],
        [
          { role: 'run', jwt: signJwt(primary, claims({ iat: undefined, nbf: undefined, exp: undefined })) },
          400,
          'error validating token: no issued at (iat), not before (nbf), or expiration time (exp) claims in token',
        ],
        [
          { role: 'run', jwt: signJwt(primary, claims({ nbf: now() + 600 })) },
          400,
          'error validating token: invalid not before (nbf) claim: token not yet valid',
        ],
        [
          { role: 'run', jwt: signJwt(primary, claims({ exp: now() - 600 })) },
          400,
          'error validating token: invalid expiration time (exp) claim: token is expired',
        ],
        [
          { role: 'run', jwt: signJwt(primary, claims({ iat: now() + 600 })) },
          400,
          'error validating token: invalid issued at (iat) claim: token issued in the future',
        ],
        [
          { role: 'run', jwt: signJwt(primary, claims({ terraform_full_workspace: undefined })) },
          400,
          'claim "terraform_full_workspace" not found in token',
        ],
        [
          { role: 'run', jwt: signJwt(primary, claims({ terraform_full_workspace: 7 })) },
          400,
          'claim "terraform_full_workspace" could not be converted to string',
        ],
        [
          { role: 'run', jwt: signJwt(primary, claims({ terraform_workspace_name: 7 })) },
          400,
          "error converting claim 'terraform_workspace_name' to string",
        ],
        [
          { role: 'run', jwt: signJwt(primary, claims({ sub: 'organization:evil:project:x:workspace:web:run_phase:plan' })) },
          400,
          'error validating claims: claim "sub" does not match any associated bound claim values',
        ],
      ];
      for (const [body, status, message] of cases) expect(await errors(login(body)), message).toEqual({ status, errors: [message] });
      // The user claim is checked before the bound claims, as for real.
      expect(
        (await errors(login({ role: 'run', jwt: signJwt(primary, claims({ sub: 'nope', terraform_full_workspace: undefined })) }))).errors,
      ).toEqual(['claim "terraform_full_workspace" not found in token']);
    });

    it('refuses an audience the role does not bind, an algorithm the config does not allow, and a bound subject', async () => {
      await role('noaud', { role_type: 'jwt', user_claim: 'sub', bound_subject: 'wanted' });
      expect((await errors(login({ role: 'noaud', jwt: signJwt(primary, claims({ sub: 'other' })) }))).errors).toEqual([
        'error validating token: invalid subject (sub) claim',
      ]);
      expect((await errors(login({ role: 'noaud', jwt: signJwt(primary, claims({ sub: 'wanted' })) }))).errors).toEqual([
        'audience claim found in JWT but no audiences bound to the role',
      ]);
      expect((await login({ role: 'noaud', jwt: signJwt(primary, claims({ sub: 'wanted', aud: undefined })) })).status).toBe(200);
      await config({ jwks_url: `${idp.baseUrl}/keys`, bound_issuer: idp.baseUrl, jwt_supported_algs: ['ES256'] });
      expect((await errors(login({ role: 'run', jwt: signJwt(primary, claims()) }))).errors).toEqual([
        'error validating token: invalid algorithm (alg) header parameter: token signed with unexpected algorithm',
      ]);
      await config({ jwks_url: `${idp.baseUrl}/keys`, bound_issuer: idp.baseUrl, default_role: 'run' });
    });

    it('keeps the JWT and the issued token out of the request journal', async () => {
      const jwt = signJwt(primary, claims());
      const answer = await login({ role: 'run', jwt });
      expect(answer.status).toBe(200);
      const journal = await fetch(`${server.baseUrl}/_emulator/requests?path=/v1/auth/jwt/login`);
      const text = await journal.text();
      expect(text).toContain('[redacted]');
      expect(text).not.toContain(jwt.split('.')[2]);
      expect(text).not.toContain(answer.body.auth.client_token);
    });

    it('refuses a login from outside token_bound_cidrs with 403', async () => {
      await role('fenced', { ...RUN_ROLE, token_bound_cidrs: ['10.0.0.0/8'] });
      expect(await errors(login({ role: 'fenced', jwt: signJwt(primary, claims()) }))).toEqual({
        status: 403,
        errors: ['permission denied'],
      });
    });

    it('matches bound claims as strings, numbers, booleans, lists and JSON pointers', async () => {
      await role('typed', {
        role_type: 'jwt',
        user_claim: '/user/name',
        user_claim_json_pointer: true,
        bound_claims: { count: 5, admin: true, '/user/teams': ['blue', 'red'] },
        bound_audiences: 'vault.workload.identity',
        groups_claim: 'groups',
      });
      const good = claims({ count: 5.7, admin: true, user: { name: 'ana', teams: ['green', 'red'] }, groups: ['g1'] });
      expect((await login({ role: 'typed', jwt: signJwt(primary, good) })).status).toBe(200);
      expect((await errors(login({ role: 'typed', jwt: signJwt(primary, { ...good, admin: 'true' }) }))).errors).toEqual([
        'error validating claims: claim "admin" does not match any associated bound claim values',
      ]);
      expect((await errors(login({ role: 'typed', jwt: signJwt(primary, { ...good, count: undefined }) }))).errors).toEqual([
        'error validating claims: claim "count" is missing',
      ]);
      expect((await errors(login({ role: 'typed', jwt: signJwt(primary, { ...good, groups: undefined }) }))).errors).toEqual([
        'failed to fetch groups: "groups" claim not found in token',
      ]);
      expect((await errors(login({ role: 'typed', jwt: signJwt(primary, { ...good, groups: { a: 1 } }) }))).errors).toEqual([
        '"groups" claim could not be converted to string list',
      ]);
    });

    it('verifies ES256, ES384, EdDSA and PS256 keys from the JWKS', async () => {
      const keys: TestKey[] = [ecKey('ec256'), ecKey('ec384', 'ES384'), edKey('ed'), { ...rsaKey('pss'), alg: 'PS256' }];
      idp.keys = [primary, ...keys];
      for (const key of keys) expect((await login({ role: 'run', jwt: signJwt(key, claims()) })).status, key.alg).toBe(200);
      idp.keys = [primary];
    });

    it('renews with the role current settings and stops renewing once the role is gone', async () => {
      await role('brief', { ...RUN_ROLE, token_ttl: '5m' });
      const token = (await login({ role: 'brief', jwt: signJwt(primary, claims()) })).body.auth.client_token as string;
      const renewed = await v1(server, 'POST', 'auth/token/renew-self', { token, body: {} });
      expect(renewed.body.auth.lease_duration).toBe(300);
      await v1(server, 'DELETE', 'auth/jwt/role/brief');
      expect((await errors(v1(server, 'POST', 'auth/token/renew-self', { token, body: {} }))).errors).toEqual([
        'role brief does not exist during renewal',
      ]);
    });

    it("a periodic role's token renews to the full period each time, past any TTL, on the virtual clock", async () => {
      await role('periodic', { ...RUN_ROLE, token_period: '10m', token_ttl: '1m' });
      const issued = (await login({ role: 'periodic', jwt: signJwt(primary, claims()) })).body.auth;
      expect(issued).toMatchObject({ lease_duration: 600, renewable: true });
      for (let round = 0; round < 3; round++) {
        await advance(server, '8m');
        const renewed = await v1(server, 'POST', 'auth/token/renew-self', { token: issued.client_token, body: {} });
        expect(renewed.body.auth.lease_duration).toBe(600);
        const self = await v1(server, 'GET', 'auth/token/lookup-self', { token: issued.client_token });
        expect(self.body.data).toMatchObject({ period: 600, renewable: true });
        // The clock also runs in real time: a second may pass between the renewal and the lookup.
        expect(self.body.data.ttl).toBeGreaterThan(590);
        expect(self.body.data.ttl).toBeLessThanOrEqual(600);
      }
    });
  });

  describe('time on the virtual clock', () => {
    beforeEach(async () => {
      await config({ jwks_url: `${idp.baseUrl}/keys`, bound_issuer: idp.baseUrl });
    });

    it('applies 60 s of clock skew by default, none with -1, and the given leeway otherwise', async () => {
      await role('skew', RUN_ROLE);
      const jwt = signJwt(primary, claims({ exp: now() + 10 }));
      expect((await login({ role: 'skew', jwt })).status).toBe(200);
      await advance(server, '50s');
      expect((await login({ role: 'skew', jwt })).status).toBe(200);
      await advance(server, '30s');
      expect((await errors(login({ role: 'skew', jwt }))).errors).toEqual([
        'error validating token: invalid expiration time (exp) claim: token is expired',
      ]);
      await role('skew', { ...RUN_ROLE, clock_skew_leeway: '5m' });
      expect((await login({ role: 'skew', jwt })).status).toBe(200);
      await role('skew', { ...RUN_ROLE, clock_skew_leeway: -1 });
      const fresh = signJwt(primary, claims({ exp: now() + 10 }));
      expect((await login({ role: 'skew', jwt: fresh })).status).toBe(200);
      await advance(server, '11s');
      expect((await login({ role: 'skew', jwt: fresh })).status).toBe(400);
    });

    it('makes up a missing exp from expiration_leeway (150 s by default)', async () => {
      await role('noexp', RUN_ROLE);
      const jwt = signJwt(primary, claims({ exp: undefined, nbf: undefined }));
      await advance(server, '200s');
      expect((await login({ role: 'noexp', jwt })).status).toBe(200); // 150 s + 60 s of skew
      await advance(server, '20s');
      expect((await login({ role: 'noexp', jwt })).status).toBe(400);
      await role('noexp', { ...RUN_ROLE, expiration_leeway: '1h' });
      expect((await login({ role: 'noexp', jwt })).status).toBe(200);
    });
  });

  describe('key sets', () => {
    it('fetches the JWKS once, keeps it, and fetches again only for a token no cached key verifies', async () => {
      await config({ jwks_url: `${idp.baseUrl}/keys`, bound_issuer: idp.baseUrl });
      await role('cache', RUN_ROLE);
      const before = idp.jwksRequests;
      expect((await login({ role: 'cache', jwt: signJwt(primary, claims()) })).status).toBe(200);
      expect(idp.jwksRequests).toBe(before + 1);
      await Promise.all([1, 2, 3].map(() => login({ role: 'cache', jwt: signJwt(primary, claims()) })));
      expect(idp.jwksRequests).toBe(before + 1);
      // A rotated-in key: one refetch finds it.
      const next = rsaKey('next');
      idp.keys = [primary, next];
      expect((await login({ role: 'cache', jwt: signJwt(next, claims()) })).status).toBe(200);
      expect(idp.jwksRequests).toBe(before + 2);
      expect((await login({ role: 'cache', jwt: signJwt(next, claims()) })).status).toBe(200);
      expect(idp.jwksRequests).toBe(before + 2);
      // An unknown kid: one refetch, then the signature error.
      expect((await errors(login({ role: 'cache', jwt: signJwt(rsaKey('stranger'), claims()) }))).errors).toEqual([
        'error validating token: error verifying token signature: failed to verify id token signature',
      ]);
      expect(idp.jwksRequests).toBe(before + 3);
      // A configuration write drops the cached set.
      await config({ jwks_url: `${idp.baseUrl}/keys`, bound_issuer: idp.baseUrl });
      const afterWrite = idp.jwksRequests;
      expect((await login({ role: 'cache', jwt: signJwt(primary, claims()) })).status).toBe(200);
      expect(idp.jwksRequests).toBe(afterWrite + 1);
      idp.keys = [primary];
    });

    it('refuses a token it verified before once its key has left the JWKS', async () => {
      await config({ jwks_url: `${idp.baseUrl}/keys`, bound_issuer: idp.baseUrl });
      await role('cache', RUN_ROLE);
      const retiring = rsaKey('retiring');
      idp.keys = [primary, retiring];
      const jwt = signJwt(retiring, claims());
      expect((await login({ role: 'cache', jwt })).status).toBe(200);
      expect((await login({ role: 'cache', jwt })).status).toBe(200);
      // The key is rotated out; a token of an unknown kid makes the method fetch the set again.
      idp.keys = [primary];
      expect((await login({ role: 'cache', jwt: signJwt(rsaKey('stranger'), claims()) })).status).toBe(400);
      const refetches = idp.jwksRequests;
      expect((await errors(login({ role: 'cache', jwt }))).errors).toEqual([
        'error validating token: error verifying token signature: failed to verify id token signature',
      ]);
      expect(idp.jwksRequests).toBe(refetches + 1);
    });

    it('refuses a token it verified before once the local key that signed it is configured away', async () => {
      const retiring = ecKey('retiring');
      expect((await config({ jwt_validation_pubkeys: [publicPem(retiring)] })).status).toBe(204);
      await role('cache', RUN_ROLE);
      const jwt = signJwt(retiring, claims());
      expect((await login({ role: 'cache', jwt })).status).toBe(200);
      expect((await login({ role: 'cache', jwt })).status).toBe(200);
      expect((await config({ jwt_validation_pubkeys: [publicPem(primary)] })).status).toBe(204);
      expect((await errors(login({ role: 'cache', jwt }))).errors).toEqual([
        'error validating token: error verifying token signature: no known key successfully validated the token signature',
      ]);
    });

    it('reports a failing JWKS endpoint with the real text', async () => {
      await config({ jwks_url: `${idp.baseUrl}/keys`, bound_issuer: idp.baseUrl });
      idp.jwksStatus = 503;
      try {
        expect((await errors(login({ role: 'cache', jwt: signJwt(primary, claims()) }))).errors).toEqual([
          `${SIGNATURE} fetching keys oidc: get keys failed: 503 Service Unavailable {"error":"nope"}`,
        ]);
      } finally {
        idp.jwksStatus = 200;
      }
    });

    it('uses the discovery document and its jwks_uri, and refuses logins on a browser-flow configuration', async () => {
      expect((await config({ oidc_discovery_url: idp.baseUrl, bound_issuer: idp.baseUrl })).status).toBe(204);
      const discoveries = idp.discoveryRequests;
      expect((await login({ role: 'cache', jwt: signJwt(primary, claims()) })).status).toBe(200);
      expect((await login({ role: 'cache', jwt: signJwt(primary, claims()) })).status).toBe(200);
      expect(idp.discoveryRequests).toBe(discoveries + 1);
      await config({ oidc_discovery_url: idp.baseUrl, oidc_client_id: 'c', oidc_client_secret: 's' });
      expect((await errors(login({ role: 'cache', jwt: signJwt(primary, claims()) }))).errors).toEqual([
        'error configuring token validator: unsupported config type',
      ]);
    });

    it('verifies with local public keys', async () => {
      const ec = ecKey('local');
      expect((await config({ jwt_validation_pubkeys: [publicPem(primary), publicPem(ec)] })).status).toBe(204);
      expect((await login({ role: 'cache', jwt: signJwt(ec, claims()) })).status).toBe(200);
      expect((await errors(login({ role: 'cache', jwt: signJwt(rsaKey('x'), claims()) }))).errors).toEqual([
        'error validating token: error verifying token signature: no known key successfully validated the token signature',
      ]);
    });

    it('answers without a configuration and on an oidc mount', async () => {
      expect((await v1(server, 'POST', 'sys/auth/sso', { body: { type: 'oidc' } })).status).toBe(204);
      expect((await errors(login({ role: 'x', jwt: 'y' }, 'sso'))).errors).toEqual(['could not load configuration']);
      const mounts = await v1(server, 'GET', 'sys/auth');
      expect(mounts.body.data['sso/']).toMatchObject({ type: 'oidc' });
    });
  });

  describe("understudy's own signing keys", () => {
    it('verifies a token signed with the platform key, fetching discovery and JWKS from this same server', async () => {
      await v1(server, 'POST', 'sys/auth/self', { body: { type: 'jwt' } });
      expect((await config({ oidc_discovery_url: server.baseUrl, bound_issuer: server.baseUrl }, 'self')).status).toBe(204);
      expect((await role('run', { ...RUN_ROLE }, 'self')).status).toBe(204);
      const jwks = (await (await fetch(`${server.baseUrl}/.well-known/jwks`)).json()) as { keys: { kid: string }[] };
      const { listSigningKeys } = await import('../../../src/platform/admin-settings/repo.js');
      const row = listSigningKeys(server.app.runtime.store.db).find((key) => key.current);
      expect(row && jwks.keys.map((key) => key.kid)).toContain(row?.kid);
      const { createPrivateKey, createPublicKey } = await import('node:crypto');
      const privateKey = createPrivateKey(row?.privateKeyPem ?? '');
      const key: TestKey = { kid: row?.kid ?? '', alg: 'RS256', privateKey, publicKey: createPublicKey(privateKey) };
      const answer = await login({ role: 'run', jwt: signJwt(key, claims({ iss: server.baseUrl })) }, 'self');
      expect(answer.status).toBe(200);
      expect(answer.body.auth.metadata).toMatchObject({ role: 'run', workspace: 'web' });
    });
  });
});
