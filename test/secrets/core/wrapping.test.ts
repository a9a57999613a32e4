import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_TOKEN, startServer, type TestServer } from '../../helpers/app.js';
import { advance, createToken, list, POLICY_DENIED, putPolicy, v1 } from '../core/client.js';

/** Response wrapping over HTTP: `X-Vault-Wrap-TTL` on any answer, and `sys/wrapping/*`. */
const wrapped = (ttl: string) => ({ 'x-vault-wrap-ttl': ttl });
const INVALID = ['wrapping token is not valid or does not exist'];

describe('response wrapping', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
    expect((await v1(server, 'POST', 'secret/data/app', { body: { data: { password: 'hunter2' } } })).status).toBe(200);
  });
  afterAll(() => server.close());

  const wrapRead = async (path: string, ttl = '60s', token: string = ROOT_TOKEN) => {
    const reply = await v1(server, 'GET', path, { token, headers: wrapped(ttl) });
    expect(reply.status, reply.text).toBe(200);
    return reply;
  };

  it('answers a read with wrap_info only: the secret is not in the answer', async () => {
    const reply = await wrapRead('secret/data/app');
    expect(reply.text).not.toContain('hunter2');
    expect(reply.body).toMatchObject({ lease_id: '', renewable: false, lease_duration: 0, data: null, auth: null, warnings: null });
    const info = reply.body.wrap_info;
    expect(info).toMatchObject({ ttl: 60, creation_path: 'secret/data/app' });
    expect(info.token).toMatch(/^hvs\.[A-Za-z0-9]{24}$/);
    expect(info.accessor).toMatch(/^[A-Za-z0-9]{24}$/);
    expect(Date.parse(info.creation_time)).toBeGreaterThan(0);
    expect(info.wrapped_accessor).toBeUndefined();
  });

  it('unwraps once with the wrapping token as the caller: the original answer, then 400', async () => {
    const { token } = (await wrapRead('secret/data/app')).body.wrap_info;
    const first = await v1(server, 'POST', 'sys/wrapping/unwrap', { token });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ data: { data: { password: 'hunter2' }, metadata: { version: 1 } }, wrap_info: null });
    expect(first.body.request_id).toMatch(/^[0-9a-f-]{36}$/);
    const again = await v1(server, 'POST', 'sys/wrapping/unwrap', { token });
    expect(again).toMatchObject({ status: 400, body: { errors: INVALID } });
  });

  it('unwraps for a third party with the token in the body, which uses it up', async () => {
    const { token } = (await wrapRead('secret/data/app')).body.wrap_info;
    const unwrapped = await v1(server, 'POST', 'sys/wrapping/unwrap', { body: { token } });
    expect(unwrapped.body.data.data).toEqual({ password: 'hunter2' });
    expect(await v1(server, 'POST', 'sys/wrapping/unwrap', { body: { token } })).toMatchObject({ status: 400, body: { errors: INVALID } });
    expect(await v1(server, 'POST', 'auth/token/lookup', { body: { token } })).toMatchObject({ status: 403 });
  });

  it('refuses tokens that are not wrapping tokens, and empty or malformed ones', async () => {
    const plain = await createToken(server, { policies: ['default'] });
    expect(await v1(server, 'POST', 'sys/wrapping/unwrap', { token: plain.client_token })).toMatchObject({
      status: 400,
      body: { errors: INVALID },
    });
    expect(await v1(server, 'POST', 'sys/wrapping/unwrap', { body: { token: 'hvs.nope' } })).toMatchObject({
      status: 400,
      body: { errors: INVALID },
    });
    expect(await v1(server, 'POST', 'sys/wrapping/unwrap', { body: { token: '' } })).toMatchObject({
      status: 403,
      body: { errors: ['error validating wrapping token: empty token in request body'] },
    });
    expect(await v1(server, 'POST', 'sys/wrapping/unwrap', { body: { token: 5 } })).toMatchObject({
      status: 403,
      body: { errors: ['error validating wrapping token: could not decode token in request body'] },
    });
    expect(await v1(server, 'POST', 'sys/wrapping/lookup', { token: null })).toMatchObject({
      status: 403,
      body: { errors: ['error validating wrapping token: token is empty'] },
    });
  });

  it("keeps the answer in the wrapping token's cubbyhole, readable with that token only once", async () => {
    const { token } = (await wrapRead('secret/data/app')).body.wrap_info;
    expect((await v1(server, 'GET', 'secret/data/app', { token })).body).toEqual({ errors: POLICY_DENIED });
    const kept = await v1(server, 'GET', 'cubbyhole/response', { token: (await wrapRead('secret/data/app')).body.wrap_info.token });
    expect(JSON.parse(kept.body.data.response).data.data).toEqual({ password: 'hunter2' });
    expect((await v1(server, 'GET', 'cubbyhole/response')).status).toBe(404);
  });

  it('looks a token up without a caller token and without using it', async () => {
    const { token } = (await wrapRead('secret/data/app', '5m')).body.wrap_info;
    const lookup = await v1(server, 'POST', 'sys/wrapping/lookup', { token: null, body: { token } });
    expect(lookup.status).toBe(200);
    expect(lookup.body.data).toMatchObject({ creation_ttl: 300, creation_path: 'secret/data/app' });
    expect(Date.parse(lookup.body.data.creation_time)).toBeGreaterThan(0);
    expect((await v1(server, 'POST', 'sys/wrapping/lookup', { token })).body.data.creation_ttl).toBe(300);
    expect((await v1(server, 'POST', 'sys/wrapping/unwrap', { token })).status).toBe(200);
    expect(await v1(server, 'POST', 'sys/wrapping/lookup', { body: { token } })).toMatchObject({ status: 400, body: { errors: INVALID } });
  });

  it('wraps a token creation with wrapped_accessor; the token inside works', async () => {
    const reply = await v1(server, 'POST', 'auth/token/create', { body: { policies: ['default'] }, headers: wrapped('2m') });
    expect(reply.body.auth).toBeNull();
    const info = reply.body.wrap_info;
    expect(info).toMatchObject({ ttl: 120, creation_path: 'auth/token/create' });
    const unwrapped = await v1(server, 'POST', 'sys/wrapping/unwrap', { token: info.token });
    expect(unwrapped.body.auth.accessor).toBe(info.wrapped_accessor);
    expect((await v1(server, 'GET', 'auth/token/lookup-self', { token: unwrapped.body.auth.client_token })).status).toBe(200);
  });

  it('wraps given data with sys/wrapping/wrap, which needs the header', async () => {
    const refused = await v1(server, 'POST', 'sys/wrapping/wrap', { body: { a: 1 } });
    expect(refused).toMatchObject({ status: 400, body: { errors: ['endpoint requires response wrapping to be used'] } });
    const reply = await v1(server, 'POST', 'sys/wrapping/wrap', { body: { a: 1, b: 'two' }, headers: wrapped('90') });
    expect(reply.body.wrap_info).toMatchObject({ ttl: 90, creation_path: 'sys/wrapping/wrap' });
    expect((await v1(server, 'POST', 'sys/wrapping/unwrap', { token: reply.body.wrap_info.token })).body.data).toEqual({ a: 1, b: 'two' });
  });

  it('rewraps into a new token with the same TTL and path; the old token is gone', async () => {
    const old = (await wrapRead('secret/data/app', '10m')).body.wrap_info;
    const reply = await v1(server, 'POST', 'sys/wrapping/rewrap', { body: { token: old.token } });
    expect(reply.status).toBe(200);
    const fresh = reply.body.wrap_info;
    expect(fresh).toMatchObject({ ttl: 600, creation_path: 'secret/data/app' });
    expect(fresh.token).not.toBe(old.token);
    expect(await v1(server, 'POST', 'sys/wrapping/unwrap', { body: { token: old.token } })).toMatchObject({ status: 400 });
    expect((await v1(server, 'POST', 'sys/wrapping/unwrap', { token: fresh.token })).body.data.data).toEqual({ password: 'hunter2' });
  });

  it('expires on the emulated clock', async () => {
    const { token, accessor } = (await wrapRead('secret/data/app', '30s')).body.wrap_info;
    const ran = await advance(server, '31s');
    expect(ran).toContainEqual(expect.objectContaining({ kind: 'token-expiry', subject: accessor, outcome: 'done' }));
    expect(await v1(server, 'POST', 'sys/wrapping/lookup', { token: null, body: { token } })).toMatchObject({
      status: 400,
      body: { errors: INVALID },
    });
    expect(await v1(server, 'POST', 'sys/wrapping/unwrap', { body: { token } })).toMatchObject({ status: 400, body: { errors: INVALID } });
  });

  it('answers a bad header with 400 and creates no token', async () => {
    const before = (await list(server, 'auth/token/accessors')).body.data.keys.length;
    expect(await v1(server, 'GET', 'secret/data/app', { headers: wrapped('abc') })).toMatchObject({
      status: 400,
      body: { errors: ['error parsing X-Vault-Wrap-TTL header: time: invalid duration "abc"'] },
    });
    expect(await v1(server, 'GET', 'secret/data/app', { headers: wrapped('-5') })).toMatchObject({
      status: 400,
      body: { errors: ['error parsing X-Vault-Wrap-TTL header: requested wrap ttl cannot be negative'] },
    });
    expect((await list(server, 'auth/token/accessors')).body.data.keys.length).toBe(before);
  });

  it('wraps lists and non-200 answers too, and leaves 204s and health alone', async () => {
    const listed = await v1(server, 'GET', 'secret/metadata/?list=true', { headers: wrapped('1m') });
    expect(listed.body.data).toBeNull();
    expect((await v1(server, 'POST', 'sys/wrapping/unwrap', { token: listed.body.wrap_info.token })).body.data.keys).toContain('app');

    await v1(server, 'POST', 'secret/data/gone', { body: { data: { x: 1 } } });
    await v1(server, 'DELETE', 'secret/data/gone');
    const deleted = await v1(server, 'GET', 'secret/data/gone', { headers: wrapped('1m') });
    expect(deleted.status).toBe(200);
    const unwrapped = await v1(server, 'POST', 'sys/wrapping/unwrap', { token: deleted.body.wrap_info.token });
    expect(unwrapped.status).toBe(404);
    expect(unwrapped.body.data.metadata.deletion_time).not.toBe('');

    expect((await v1(server, 'DELETE', 'secret/data/nothing', { headers: wrapped('1m') })).status).toBe(204);
    const health = await v1(server, 'GET', 'sys/health', { headers: wrapped('1m') });
    expect(health.body).toMatchObject({ initialized: true, sealed: false });
  });

  it('wraps an unwrapped answer again on request, and creates nothing for a failed request', async () => {
    const first = (await wrapRead('secret/data/app')).body.wrap_info.token;
    const rewrapped = await v1(server, 'POST', 'sys/wrapping/unwrap', { token: first, headers: wrapped('1m') });
    expect(rewrapped.body.wrap_info.creation_path).toBe('sys/wrapping/unwrap');
    const inner = await v1(server, 'POST', 'sys/wrapping/unwrap', { token: rewrapped.body.wrap_info.token });
    expect(inner.body.data.data).toEqual({ password: 'hunter2' });

    const before = (await list(server, 'auth/token/accessors')).body.data.keys.length;
    expect((await v1(server, 'GET', 'secret/data/missing', { headers: wrapped('1m') })).status).toBe(404);
    expect((await list(server, 'auth/token/accessors')).body.data.keys.length).toBe(before);
  });

  it('enforces min_wrapping_ttl and max_wrapping_ttl of the matching policy rule', async () => {
    await putPolicy(
      server,
      'wrap-only',
      'path "secret/data/app" {\n  capabilities = ["read"]\n  min_wrapping_ttl = 30\n  max_wrapping_ttl = "5m"\n}',
    );
    const reader = (await createToken(server, { policies: ['wrap-only'] })).client_token;
    expect((await v1(server, 'GET', 'secret/data/app', { token: reader })).body).toEqual({ errors: POLICY_DENIED });
    expect((await v1(server, 'GET', 'secret/data/app', { token: reader, headers: wrapped('10s') })).status).toBe(403);
    expect((await v1(server, 'GET', 'secret/data/app', { token: reader, headers: wrapped('10m') })).status).toBe(403);
    const allowed = await v1(server, 'GET', 'secret/data/app', { token: reader, headers: wrapped('1m') });
    expect(allowed.body.wrap_info.ttl).toBe(60);
    const bad = await v1(server, 'PUT', 'sys/policies/acl/bad-wrap', {
      body: { policy: 'path "x" {\n  capabilities = ["read"]\n  min_wrapping_ttl = 400\n  max_wrapping_ttl = 200\n}' },
    });
    expect(bad).toMatchObject({
      status: 400,
      body: { errors: ['failed to parse policy: max_wrapping_ttl cannot be less than min_wrapping_ttl'] },
    });
  });

  it('keeps the response-wrapping policy to wrapping tokens', async () => {
    expect(await v1(server, 'POST', 'auth/token/create', { body: { policies: ['response-wrapping'] } })).toMatchObject({
      status: 400,
      body: { errors: ['cannot assign policy "response-wrapping"'] },
    });
    expect(
      await v1(server, 'PUT', 'sys/policies/acl/response-wrapping', { body: { policy: 'path "x" { capabilities = ["read"] }' } }),
    ).toMatchObject({
      status: 400,
      body: { errors: ['cannot update "response-wrapping" policy'] },
    });
  });
});
