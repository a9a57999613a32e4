import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/core/crypto.js';
import { ROOT_TOKEN, startServer, type TestServer } from '../../helpers/app.js';
import { advance, createToken, putPolicy, TOKEN_DENIED, v1 } from './client.js';

describe('tokens', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
    await putPolicy(server, 'web', 'path "cubbyhole/*" { capabilities = ["read"] }');
    await putPolicy(server, 'db', 'path "database/*" { capabilities = ["read"] }');
  });
  afterAll(() => server.close());

  it('creates a token with the real response shape', async () => {
    const reply = await v1(server, 'POST', 'auth/token/create', {
      body: { policies: ['web'], ttl: '1h', meta: { team: 'a' }, display_name: 'ci job', num_uses: 0 },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toBeNull();
    expect(reply.body.warnings).toBeNull();
    expect(reply.body.auth).toMatchObject({
      policies: ['default', 'web'],
      token_policies: ['default', 'web'],
      metadata: { team: 'a' },
      lease_duration: 3600,
      renewable: true,
      entity_id: '',
      token_type: 'service',
      orphan: false,
      mfa_requirement: null,
      num_uses: 0,
    });
    expect(reply.body.auth.client_token).toMatch(/^hvs\.[0-9A-Za-z]{24}$/);
    expect(reply.body.auth.accessor).toMatch(/^[0-9A-Za-z]{24}$/);

    const lookup = await v1(server, 'GET', 'auth/token/lookup-self', { token: reply.body.auth.client_token });
    expect(lookup.body.data).toMatchObject({
      accessor: reply.body.auth.accessor,
      creation_ttl: 3600,
      display_name: 'token-ci-job',
      meta: { team: 'a' },
      orphan: false,
      path: 'auth/token/create',
      policies: ['default', 'web'],
      renewable: true,
      type: 'service',
      explicit_max_ttl: 0,
    });
    // The clock keeps running between the two requests, and the real service truncates to seconds.
    expect(lookup.body.data.ttl).toBeGreaterThanOrEqual(3599);
    expect(lookup.body.data.issue_time).toEqual(expect.any(String));
    expect(Date.parse(lookup.body.data.expire_time) - Date.parse(lookup.body.data.issue_time)).toBe(3_600_000);
  });

  it('warns about policies that do not exist and gives the mount default TTL of 768h', async () => {
    const reply = await v1(server, 'POST', 'auth/token/create', { body: { policies: 'web,ghost' } });
    expect(reply.body.warnings).toEqual(['Policy "ghost" does not exist']);
    expect(reply.body.auth.lease_duration).toBe(2_764_800);
    expect(reply.body.auth.policies).toEqual(['default', 'ghost', 'web']);
  });

  it('leaves out default with no_default_policy, and inherits the parent policies when none are given', async () => {
    await putPolicy(server, 'creator', 'path "auth/token/create" { capabilities = ["update"] }');
    const parent = await createToken(server, { policies: ['web', 'creator'], no_default_policy: true });
    expect(parent.policies).toEqual(['creator', 'web']);
    // Inheriting takes the parent's policies as they are: default only if the parent has it.
    const child = await createToken(server, {}, parent.client_token);
    expect(child.policies).toEqual(['creator', 'web']);
  });

  it("adds default to a non-sudo parent's child only when the parent has it, and never lets it be asked for otherwise", async () => {
    await putPolicy(server, 'creator', 'path "auth/token/create" { capabilities = ["update"] }');
    const bare = await createToken(server, { policies: ['web', 'creator'], no_default_policy: true });
    const fromBare = (body: Record<string, unknown>) => v1(server, 'POST', 'auth/token/create', { token: bare.client_token, body });
    expect((await fromBare({ policies: ['web'] })).body.auth.policies).toEqual(['web']);
    expect((await fromBare({ policies: ['default'] })).body.errors).toEqual(['child policies must be subset of parent']);

    const withDefault = await createToken(server, { policies: ['web', 'creator'] });
    const child = await v1(server, 'POST', 'auth/token/create', { token: withDefault.client_token, body: { policies: ['web'] } });
    expect(child.body.auth.policies).toEqual(['default', 'web']);
    const noDefault = await v1(server, 'POST', 'auth/token/create', {
      token: withDefault.client_token,
      body: { policies: ['web'], no_default_policy: true },
    });
    expect(noDefault.body.auth.policies).toEqual(['web']);
  });

  it('refuses field values that do not convert: lists of objects, integers past what JSON numbers hold exactly', async () => {
    for (const body of [{ policies: [{ name: 'web' }] }, { num_uses: 1e300 }, { meta: { nested: { a: 1 } } }]) {
      const reply = await v1(server, 'POST', 'auth/token/create', { body });
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.errors[0]).toMatch(/^Field validation failed: error converting input/);
    }
  });

  it('applies the creation rules for non-root parents', async () => {
    const parent = (await createToken(server, { policies: ['web'] })).client_token;
    const create = (body: Record<string, unknown>) => v1(server, 'POST', 'auth/token/create', { token: parent, body });
    // The parent's policies need a rule for auth/token/create; give it one.
    await putPolicy(
      server,
      'web',
      'path "cubbyhole/*" { capabilities = ["read"] }\npath "auth/token/create*" { capabilities = ["update"] }',
    );
    expect((await create({ policies: ['db'] })).body.errors).toEqual(['child policies must be subset of parent']);
    // The subset rule is checked first, as in the real service; only a sudo caller reaches the root rule.
    expect((await create({ policies: ['root'] })).body.errors).toEqual(['child policies must be subset of parent']);
    await putPolicy(server, 'sudo-creator', 'path "auth/token/create" { capabilities = ["update", "sudo"] }');
    const sudoParent = (await createToken(server, { policies: ['sudo-creator'] })).client_token;
    const rootChild = await v1(server, 'POST', 'auth/token/create', { token: sudoParent, body: { policies: ['root'] } });
    expect(rootChild.body.errors).toEqual(['root tokens may not be created without parent token being root']);
    expect((await create({ id: 'custom-id' })).body.errors).toEqual(['root or sudo privileges required to specify token id']);
    expect((await create({ no_parent: true })).body.errors).toEqual(['root or sudo privileges required to create orphan token']);
    expect((await create({ period: '1h' })).body.errors).toEqual(['root or sudo privileges required to create periodic token']);
    expect((await create({ num_uses: -1 })).body.errors).toEqual(['number of uses cannot be negative']);
    expect((await create({ policies: ['web'] })).status).toBe(200);
    // create-orphan is ACL-controlled by its own path, so no sudo is needed.
    const orphan = await v1(server, 'POST', 'auth/token/create-orphan', { token: parent, body: { policies: ['web'] } });
    expect(orphan.body.auth.orphan).toBe(true);
  });

  it('lets root choose the id, make orphans and periodic tokens', async () => {
    const custom = await createToken(server, { id: 'my-fixed-token', policies: ['web'], no_parent: true, period: '2h' });
    expect(custom.client_token).toBe('my-fixed-token');
    expect(custom.orphan).toBe(true);
    expect(custom.lease_duration).toBe(7200);
    const lookup = await v1(server, 'GET', 'auth/token/lookup-self', { token: 'my-fixed-token' });
    expect(lookup.body.data).toMatchObject({ period: 7200, orphan: true });
    expect((await v1(server, 'POST', 'auth/token/create', { body: { id: 'my-fixed-token' } })).body.errors).toEqual([
      'cannot create a token with a duplicate ID',
    ]);
  });

  it('looks up another token (root), and answers an unknown one with 403 bad token', async () => {
    const token = await createToken(server, { policies: ['web'] });
    const found = await v1(server, 'POST', 'auth/token/lookup', { body: { token: token.client_token } });
    expect(found.body.data.accessor).toBe(token.accessor);
    const unknown = await v1(server, 'POST', 'auth/token/lookup', { body: { token: 'hvs.unknown' } });
    expect(unknown.status).toBe(403);
    expect(unknown.body.errors).toEqual(['bad token']);
    const byAccessor = await v1(server, 'POST', 'auth/token/lookup-accessor', { body: { accessor: token.accessor } });
    expect(byAccessor.body.data).toMatchObject({ id: '', accessor: token.accessor });
  });

  it('reports the root token as the real service does', async () => {
    const reply = await v1(server, 'GET', 'auth/token/lookup-self');
    expect(reply.body.data).toMatchObject({
      id: ROOT_TOKEN,
      policies: ['root'],
      ttl: 0,
      expire_time: null,
      path: 'auth/token/root',
      display_name: 'root',
      orphan: true,
    });
    expect(reply.body.data.issue_time).toBeUndefined();
  });

  it('renews within the maximum, with the real warning when capped', async () => {
    const token = await createToken(server, { policies: ['web'], ttl: '1h', explicit_max_ttl: '2h' });
    await advance(server, '30m');
    const renewed = await v1(server, 'POST', 'auth/token/renew-self', { token: token.client_token, body: { increment: '1h' } });
    expect(renewed.status).toBe(200);
    expect(renewed.body.auth.lease_duration).toBe(3600);
    expect(renewed.body.auth.client_token).toBe(token.client_token);
    const capped = await v1(server, 'POST', 'auth/token/renew-self', { token: token.client_token, body: { increment: '5h' } });
    expect(capped.body.auth.lease_duration).toBeGreaterThanOrEqual(5399);
    expect(capped.body.auth.lease_duration).toBeLessThanOrEqual(5400);
    expect(capped.body.warnings).toEqual([
      expect.stringMatching(/^TTL of "5h0m0s" exceeded the effective max_ttl of "1h(30m0s|29m59s)"; TTL value is capped accordingly$/),
    ]);
    const lookup = await v1(server, 'GET', 'auth/token/lookup-self', { token: token.client_token });
    expect(lookup.body.data.last_renewal).toEqual(expect.any(String));

    const fixed = await createToken(server, { policies: ['web'], ttl: '1h', renewable: false });
    expect((await v1(server, 'POST', 'auth/token/renew-self', { token: fixed.client_token, body: {} })).body.errors).toEqual([
      'lease is not renewable',
    ]);
  });

  it('expires through the clock: the token stops working and is revoked', async () => {
    const token = await createToken(server, { policies: ['web'], ttl: '10m' });
    expect((await v1(server, 'GET', 'auth/token/lookup-self', { token: token.client_token })).status).toBe(200);
    const ran = await advance(server, '11m');
    expect(ran).toContainEqual(expect.objectContaining({ kind: 'token-expiry', subject: token.accessor, outcome: 'done' }));
    const after = await v1(server, 'GET', 'auth/token/lookup-self', { token: token.client_token });
    expect(after.status).toBe(403);
    expect(after.body.errors).toEqual(TOKEN_DENIED);
  });

  it('revokes children with their parent, but not with revoke-orphan', async () => {
    const parent = await createToken(server, { policies: ['web'] });
    await putPolicy(
      server,
      'web',
      'path "cubbyhole/*" { capabilities = ["read"] }\npath "auth/token/create*" { capabilities = ["update"] }',
    );
    const child = await createToken(server, { policies: ['web'] }, parent.client_token);
    const grandchild = await createToken(server, { policies: ['web'] }, child.client_token);
    expect((await v1(server, 'POST', 'auth/token/revoke-self', { token: parent.client_token })).status).toBe(204);
    for (const token of [parent, child, grandchild]) {
      expect((await v1(server, 'GET', 'auth/token/lookup-self', { token: token.client_token })).status).toBe(403);
    }

    const keep = await createToken(server, { policies: ['web'] });
    const kept = await createToken(server, { policies: ['web'] }, keep.client_token);
    // revoke-orphan checks sudo itself: the ACL grant alone gets the real 400.
    await putPolicy(server, 'orphaner', 'path "auth/token/revoke-orphan" { capabilities = ["update"] }');
    const orphaner = (await createToken(server, { policies: ['orphaner'] })).client_token;
    const refused = await v1(server, 'POST', 'auth/token/revoke-orphan', { token: orphaner, body: { token: keep.client_token } });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual(['root or sudo privileges required to revoke and orphan']);
    expect((await v1(server, 'POST', 'auth/token/revoke-orphan', { body: { token: keep.client_token } })).status).toBe(204);
    const orphaned = await v1(server, 'GET', 'auth/token/lookup-self', { token: kept.client_token });
    expect(orphaned.body.data.orphan).toBe(true);

    const other = await createToken(server, { policies: ['web'] });
    expect((await v1(server, 'POST', 'auth/token/revoke', { body: { token: other.client_token } })).status).toBe(204);
    expect((await v1(server, 'GET', 'auth/token/lookup-self', { token: other.client_token })).status).toBe(403);
    // Revoking an unknown token is not an error.
    expect((await v1(server, 'POST', 'auth/token/revoke', { body: { token: 'hvs.unknown' } })).status).toBe(204);
  });

  it('counts uses and revokes the token after the last one', async () => {
    const token = await createToken(server, { policies: ['web'], num_uses: 2 });
    expect(token.num_uses).toBe(2);
    const first = await v1(server, 'GET', 'auth/token/lookup-self', { token: token.client_token });
    expect(first.body.data.num_uses).toBe(1);
    const second = await v1(server, 'GET', 'auth/token/lookup-self', { token: token.client_token });
    expect(second.status).toBe(200);
    const third = await v1(server, 'GET', 'auth/token/lookup-self', { token: token.client_token });
    expect(third.status).toBe(403);
    expect((await v1(server, 'POST', 'auth/token/lookup', { body: { token: token.client_token } })).status).toBe(403);
  });

  it('lists accessors for root (sudo)', async () => {
    const token = await createToken(server, { policies: ['web'] });
    const reply = await v1(server, 'GET', 'auth/token/accessors?list=true');
    expect(reply.body.data.keys).toContain(token.accessor);
  });

  it('stores tokens by their SHA-256, never by value, and still finds them by value and by accessor', async () => {
    const token = await createToken(server, { policies: ['web'], ttl: '1h' });
    const child = await v1(server, 'POST', 'auth/token/create', { token: token.client_token, body: { policies: ['web'] } });
    const childToken = child.body.auth.client_token as string;
    const rows = server.app.runtime.store.sqlite.prepare('SELECT id, parent_id FROM secret_tokens').all() as {
      id: string;
      parent_id: string | null;
    }[];
    const dump = JSON.stringify(rows);
    for (const value of [ROOT_TOKEN, token.client_token, childToken]) {
      expect(dump).not.toContain(value);
      expect(rows.map((row) => row.id)).toContain(sha256Hex(value));
    }
    expect(rows.find((row) => row.id === sha256Hex(childToken))?.parent_id).toBe(sha256Hex(token.client_token));

    expect((await v1(server, 'GET', 'auth/token/lookup-self', { token: token.client_token })).body.data.id).toBe(token.client_token);
    expect((await v1(server, 'POST', 'auth/token/lookup', { body: { token: token.client_token } })).body.data.id).toBe(token.client_token);
    const byAccessor = await v1(server, 'POST', 'auth/token/lookup-accessor', { body: { accessor: token.accessor } });
    expect(byAccessor.body.data).toMatchObject({ id: '', accessor: token.accessor });
    // A caller who knows only the stored hash holds nothing usable.
    expect((await v1(server, 'GET', 'auth/token/lookup-self', { token: sha256Hex(token.client_token) })).status).toBe(403);

    expect((await v1(server, 'POST', 'auth/token/revoke', { body: { token: token.client_token } })).status).toBe(204);
    expect((await v1(server, 'GET', 'auth/token/lookup-self', { token: childToken })).status).toBe(403);
  });

  it('keeps a chosen token id working and refuses it twice', async () => {
    const first = await v1(server, 'POST', 'auth/token/create', { body: { id: 'fixed-ci-token', policies: ['web'] } });
    expect(first.body.auth.client_token).toBe('fixed-ci-token');
    expect((await v1(server, 'GET', 'auth/token/lookup-self', { token: 'fixed-ci-token' })).body.data.policies).toEqual(['default', 'web']);
    const again = await v1(server, 'POST', 'auth/token/create', { body: { id: 'fixed-ci-token' } });
    expect(again.body.errors).toEqual(['cannot create a token with a duplicate ID']);
  });
});
