import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { advance, createToken, list, POLICY_DENIED, putPolicy, rawV1, v1 } from './client.js';

describe('the cubbyhole engine', () => {
  let server: TestServer;
  let alice: string;
  let bob: string;
  beforeAll(async () => {
    server = await startServer();
    alice = (await createToken(server, { policies: [] })).client_token;
    bob = (await createToken(server, { policies: [] })).client_token;
  });
  afterAll(() => server.close());

  it('writes (POST and PUT), reads back the whole body, and replaces on rewrite', async () => {
    expect(
      (await v1(server, 'POST', 'cubbyhole/app/config', { token: alice, body: { user: 'a', port: 5432, nested: { ok: true } } })).status,
    ).toBe(204);
    const read = await v1(server, 'GET', 'cubbyhole/app/config', { token: alice });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      data: { user: 'a', port: 5432, nested: { ok: true } },
      lease_id: '',
      lease_duration: 0,
      renewable: false,
    });
    expect((await v1(server, 'PUT', 'cubbyhole/app/config', { token: alice, body: { only: 'this' } })).status).toBe(204);
    expect((await v1(server, 'GET', 'cubbyhole/app/config', { token: alice })).body.data).toEqual({ only: 'this' });
  });

  // Reads share the opened entry while it is unchanged (getShared): each change shows at once.
  it('answers every write and delete between two reads of an entry', async () => {
    const carol = (await createToken(server, { policies: [] })).client_token;
    const read = () => v1(server, 'GET', 'cubbyhole/hot', { token: carol });
    await v1(server, 'POST', 'cubbyhole/hot', { token: carol, body: { n: 1 } });
    expect((await read()).body.data).toEqual({ n: 1 });
    expect((await read()).body.data).toEqual({ n: 1 });
    await v1(server, 'POST', 'cubbyhole/hot', { token: carol, body: { n: 2 } });
    expect((await read()).body.data).toEqual({ n: 2 });
    expect((await v1(server, 'DELETE', 'cubbyhole/hot', { token: carol })).status).toBe(204);
    expect((await read()).status).toBe(404);
    await v1(server, 'POST', 'cubbyhole/hot', { token: carol, body: { n: 2 } });
    expect((await read()).body.data).toEqual({ n: 2 });
    expect((await v1(server, 'GET', 'cubbyhole/hot', { token: bob })).status).toBe(404);
  });

  it('lists direct children with folders suffixed /, and 404s on a leaf or an empty folder', async () => {
    await v1(server, 'POST', 'cubbyhole/app/db/password', { token: alice, body: { value: 'x' } });
    await v1(server, 'POST', 'cubbyhole/top', { token: alice, body: { value: 'y' } });
    expect((await list(server, 'cubbyhole/app', alice)).body.data).toEqual({ keys: ['config', 'db/'] });
    expect((await list(server, 'cubbyhole/', alice)).body.data.keys).toEqual(['app/', 'top']);
    const leaf = await list(server, 'cubbyhole/app/config', alice);
    expect(leaf.status).toBe(404);
    expect(leaf.body).toEqual({ errors: [] });
    expect((await list(server, 'cubbyhole/', bob)).status).toBe(404);
  });

  it('404s a missing read and deletes with 204, even when absent', async () => {
    const missing = await v1(server, 'GET', 'cubbyhole/nothing', { token: alice });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ errors: [] });
    expect((await v1(server, 'DELETE', 'cubbyhole/top', { token: alice })).status).toBe(204);
    expect((await v1(server, 'DELETE', 'cubbyhole/top', { token: alice })).status).toBe(204);
    expect((await v1(server, 'GET', 'cubbyhole/top', { token: alice })).status).toBe(404);
  });

  it('keeps each token private: another token, and root, see nothing', async () => {
    await v1(server, 'POST', 'cubbyhole/shared-name', { token: alice, body: { owner: 'alice' } });
    await v1(server, 'POST', 'cubbyhole/shared-name', { token: bob, body: { owner: 'bob' } });
    expect((await v1(server, 'GET', 'cubbyhole/shared-name', { token: alice })).body.data).toEqual({ owner: 'alice' });
    expect((await v1(server, 'GET', 'cubbyhole/shared-name', { token: bob })).body.data).toEqual({ owner: 'bob' });
    expect((await v1(server, 'GET', 'cubbyhole/shared-name')).status).toBe(404);
    expect((await list(server, 'cubbyhole/')).status).toBe(404);
  });

  it("answers an empty write with the real service's Go error (a 500)", async () => {
    const reply = await v1(server, 'POST', 'cubbyhole/empty', { token: alice, body: {} });
    expect(reply.status).toBe(500);
    expect(reply.body).toEqual({ errors: ['1 error occurred:\n\t* missing data fields\n\n'] });
    expect((await v1(server, 'POST', 'cubbyhole/empty', { token: alice })).status).toBe(500);
  });

  it('refuses paths with empty or dot segments with a 400', async () => {
    // An encoded slash keeps the segment too (literal and encoded dots: request-shapes.test.ts).
    const dots = await rawV1(server, 'POST', 'cubbyhole/a/..%2Fb', { token: alice, body: { v: 1 } });
    expect(dots.status).toBe(400);
    expect(dots.body).toEqual({ errors: ['invalid path "a/../b": "." and ".." segments are not allowed'] });
    expect((await rawV1(server, 'GET', 'cubbyhole/a//b', { token: alice })).status).toBe(400);
    expect((await rawV1(server, 'GET', 'cubbyhole/.%2Fx', { token: alice })).status).toBe(400);
  });

  it('needs a token', async () => {
    expect((await v1(server, 'GET', 'cubbyhole/app/config', { token: null })).body.errors).toEqual(['permission denied']);
  });

  it('destroys the cubbyhole when its token is revoked', async () => {
    const token = (await createToken(server, { policies: [] })).client_token;
    await v1(server, 'POST', 'cubbyhole/secret', { token, body: { v: 1 } });
    await v1(server, 'POST', 'auth/token/revoke-self', { token });
    // A new token with the same id would see an empty cubbyhole; the stored entries are gone.
    const again = await createToken(server, { id: token, policies: [] });
    expect((await v1(server, 'GET', 'cubbyhole/secret', { token: again.client_token })).status).toBe(404);
  });

  it('destroys the cubbyhole when its token expires', async () => {
    const token = (await createToken(server, { policies: [], ttl: '1h' })).client_token;
    await v1(server, 'POST', 'cubbyhole/secret', { token, body: { v: 1 } });
    await advance(server, '2h');
    expect((await v1(server, 'GET', 'cubbyhole/secret', { token })).status).toBe(403);
    const again = await createToken(server, { id: token, policies: [] });
    expect((await v1(server, 'GET', 'cubbyhole/secret', { token: again.client_token })).status).toBe(404);
  });

  describe('create versus update, decided by whether the entry exists', () => {
    it('lets create write a new entry but not overwrite it', async () => {
      await putPolicy(server, 'cubby-create', 'path "cubbyhole/*" { capabilities = ["create", "read"] }');
      const token = (await createToken(server, { policies: ['cubby-create'], no_default_policy: true })).client_token;
      expect((await v1(server, 'POST', 'cubbyhole/new', { token, body: { v: 1 } })).status).toBe(204);
      const overwrite = await v1(server, 'POST', 'cubbyhole/new', { token, body: { v: 2 } });
      expect(overwrite.status).toBe(403);
      expect(overwrite.body.errors).toEqual(POLICY_DENIED);
      expect((await v1(server, 'GET', 'cubbyhole/new', { token })).body.data).toEqual({ v: 1 });
    });

    it('lets update overwrite but not create', async () => {
      // Entries are private to their token, so the token first writes one while its policy allows create,
      // then the policy changes to update only (policies are evaluated on every request).
      await putPolicy(server, 'cubby-switch', 'path "cubbyhole/*" { capabilities = ["create", "read"] }');
      const token = (await createToken(server, { policies: ['cubby-switch'], no_default_policy: true })).client_token;
      await v1(server, 'POST', 'cubbyhole/existing', { token, body: { v: 1 } });
      await putPolicy(server, 'cubby-switch', 'path "cubbyhole/*" { capabilities = ["update", "read"] }');
      expect((await v1(server, 'PUT', 'cubbyhole/existing', { token, body: { v: 2 } })).status).toBe(204);
      expect((await v1(server, 'GET', 'cubbyhole/existing', { token })).body.data).toEqual({ v: 2 });
      const create = await v1(server, 'PUT', 'cubbyhole/fresh', { token, body: { v: 1 } });
      expect(create.status).toBe(403);
      expect(create.body.errors).toEqual(POLICY_DENIED);
    });
  });
});
