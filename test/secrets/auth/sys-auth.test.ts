import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { createToken, POLICY_DENIED, putPolicy, v1 } from '../core/client.js';

describe('sys/auth', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('lists token/ from the start, with the real entry shape', async () => {
    const reply = await v1(server, 'GET', 'sys/auth');
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body.data)).toEqual(['token/']);
    expect(reply.body.data['token/']).toMatchObject({
      type: 'token',
      description: 'token based credentials',
      config: { default_lease_ttl: 0, max_lease_ttl: 0, force_no_cache: false, token_type: 'default-service' },
      local: false,
      seal_wrap: false,
      options: null,
    });
    expect(reply.body.data['token/'].accessor).toMatch(/^auth_token_[0-9a-z]{8}$/);
    // Also at the top level, as the real service (and the clients reading it there) has it.
    expect(reply.body['token/'].type).toBe('token');
  });

  it('enables, reads, tunes and disables a method', async () => {
    const enabled = await v1(server, 'POST', 'sys/auth/people', {
      body: { type: 'userpass', description: 'humans', config: { default_lease_ttl: '1h', listing_visibility: 'unauth' } },
    });
    expect(enabled.status).toBe(204);
    const listed = (await v1(server, 'GET', 'sys/auth')).body.data['people/'];
    expect(listed).toMatchObject({
      type: 'userpass',
      description: 'humans',
      config: { default_lease_ttl: 3600, listing_visibility: 'unauth' },
    });
    expect(listed.accessor).toMatch(/^auth_userpass_/);

    const tune = await v1(server, 'GET', 'sys/auth/people/tune');
    expect(tune.body.data).toEqual({
      description: 'humans',
      default_lease_ttl: 3600,
      max_lease_ttl: 2_764_800,
      force_no_cache: false,
      token_type: 'default-service',
      listing_visibility: 'unauth',
    });
    expect(
      (await v1(server, 'POST', 'sys/auth/people/tune', { body: { max_lease_ttl: '2h', listing_visibility: 'hidden', description: 'h' } }))
        .status,
    ).toBe(204);
    const tuned = (await v1(server, 'GET', 'sys/auth/people/tune')).body.data;
    expect(tuned).toMatchObject({ max_lease_ttl: 7200, default_lease_ttl: 3600, listing_visibility: 'hidden', description: 'h' });

    expect((await v1(server, 'DELETE', 'sys/auth/people')).status).toBe(204);
    expect(Object.keys((await v1(server, 'GET', 'sys/auth')).body.data)).toEqual(['token/']);
    const after = await v1(server, 'POST', 'auth/people/login/x', { body: { password: 'y' } });
    expect(after.status).toBe(404);
    expect(after.body.errors).toEqual(['no handler for route "auth/people/login/x". route entry not found.']);
  });

  it('takes the body the official CLI sends with `auth enable`', async () => {
    const body = {
      type: 'approle',
      description: '',
      config: {
        default_lease_ttl: '',
        max_lease_ttl: '',
        force_no_cache: false,
        audit_non_hmac_request_keys: null,
        listing_visibility: '',
        token_type: '',
        plugin_version: '',
      },
      local: false,
      seal_wrap: false,
      external_entropy_access: false,
      options: {},
    };
    expect((await v1(server, 'POST', 'sys/auth/cli', { body })).status).toBe(204);
    expect((await v1(server, 'GET', 'sys/auth/cli')).body.data).toMatchObject({
      type: 'approle',
      config: { default_lease_ttl: 0, max_lease_ttl: 0 },
    });
    expect((await v1(server, 'DELETE', 'sys/auth/cli')).status).toBe(204);
  });

  it('refuses bad enables and tunes with the real errors', async () => {
    const cases: [string, string, Record<string, unknown>, string][] = [
      ['POST', 'sys/auth/k', { type: 'kv' }, 'plugin not found in the catalog: kv'],
      ['POST', 'sys/auth/tok', { type: 'token' }, 'token credential backend cannot be instantiated'],
      ['POST', 'sys/auth/token', { type: 'userpass' }, 'path is already in use at token/'],
      [
        'POST',
        'sys/auth/bad',
        { type: 'userpass', config: { default_lease_ttl: 'soon' } },
        'Field validation failed: error converting input "soon" for field "default_lease_ttl": expected a duration',
      ],
      ['POST', 'sys/auth/bad', { type: 'userpass', config: { listing_visibility: 'public' } }, 'invalid listing_visibility public'],
      ['POST', 'sys/auth/ghost/tune', { max_lease_ttl: '1h' }, 'cannot fetch sysview for path "auth/ghost/"'],
      ['GET', 'sys/auth/ghost/tune', {}, 'cannot fetch sysview for path "auth/ghost/"'],
      ['DELETE', 'sys/auth/token', {}, 'token credential backend cannot be disabled'],
      ['GET', 'sys/auth/ghost', {}, 'No auth engine at auth/ghost/'],
    ];
    for (const [method, path, body, error] of cases) {
      const reply = await v1(server, method, path, method === 'POST' ? { body } : {});
      expect(reply.status, path).toBe(400);
      expect(reply.body.errors, path).toEqual([error]);
    }
    await v1(server, 'POST', 'sys/auth/nested', { body: { type: 'approle' } });
    expect((await v1(server, 'POST', 'sys/auth/nested/deeper', { body: { type: 'approle' } })).body.errors).toEqual([
      'path is already in use at nested/',
    ]);
    const bigDefault = await v1(server, 'POST', 'sys/auth/nested/tune', { body: { default_lease_ttl: '2h', max_lease_ttl: '1h' } });
    expect(bigDefault.status).toBe(400);
    expect(Object.keys((await v1(server, 'GET', 'sys/auth')).body.data).sort()).toEqual(['nested/', 'token/']);
    expect((await v1(server, 'DELETE', 'sys/auth/never-there')).status).toBe(204);
  });

  it('lists under policy, and needs sudo below sys/auth/ as the real service does', async () => {
    await putPolicy(
      server,
      'auth-admin',
      'path "sys/auth" { capabilities = ["read"] }\npath "sys/auth/*" { capabilities = ["create", "update", "read", "delete"] }',
    );
    await putPolicy(server, 'auth-sudo', 'path "sys/auth/*" { capabilities = ["create", "update", "read", "delete", "sudo"] }');
    const { client_token: token } = await createToken(server, { policies: ['auth-admin'] });
    expect((await v1(server, 'GET', 'sys/auth', { token })).status).toBe(200);
    const denied = await v1(server, 'POST', 'sys/auth/mine', { token, body: { type: 'userpass' } });
    expect(denied.status).toBe(403);
    expect(denied.body.errors).toEqual(POLICY_DENIED);
    expect((await v1(server, 'GET', 'sys/auth/token/tune', { token })).status).toBe(403);
    const { client_token: sudo } = await createToken(server, { policies: ['auth-sudo'] });
    expect((await v1(server, 'POST', 'sys/auth/mine', { token: sudo, body: { type: 'userpass' } })).status).toBe(204);
    expect((await v1(server, 'GET', 'sys/auth/mine/tune', { token: sudo })).status).toBe(200);
    expect((await v1(server, 'DELETE', 'sys/auth/mine', { token: sudo })).status).toBe(204);
  });
});

describe('the auth mount table is stored', () => {
  it('survives a restart and returns to the seed on reset', async () => {
    const store = join(mkdtempSync(join(tmpdir(), 'understudy-auth-')), 'store.sqlite');
    const first = await startServer({ UNDERSTUDY_STORE: store });
    await v1(first, 'POST', 'sys/auth/people', { body: { type: 'userpass' } });
    await v1(first, 'POST', 'auth/people/users/ann', { body: { password: 'pw' } });
    await first.close();

    const second = await startServer({ UNDERSTUDY_STORE: store });
    try {
      expect(Object.keys((await v1(second, 'GET', 'sys/auth')).body.data)).toEqual(['people/', 'token/']);
      expect((await v1(second, 'POST', 'auth/people/login/ann', { token: null, body: { password: 'pw' } })).status).toBe(200);
      const reset = await fetch(`${second.baseUrl}/_emulator/reset`, { method: 'POST' });
      expect(reset.status).toBe(200);
      expect(Object.keys((await v1(second, 'GET', 'sys/auth')).body.data)).toEqual(['token/']);
    } finally {
      await second.close();
    }
  });
});
