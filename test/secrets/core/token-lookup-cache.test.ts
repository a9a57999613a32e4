import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControllableClock } from '../../../src/core/clock.js';
import { eq } from 'drizzle-orm';
import { tokenKey, TokenStore } from '../../../src/secrets/tokens/token-store.js';
import { secretTokens } from '../../../src/store/tables.js';
import { openStore } from '../../../src/store/store.js';
import { control, ROOT_TOKEN, startServer, type TestServer } from '../../helpers/app.js';
import { advance, createToken, putPolicy, TOKEN_DENIED, v1 } from './client.js';

// The token row every request reads is kept in memory (token-row-cache.ts): each case reads a
// token first, so its row is kept, then changes it and expects the very next request to see it.

describe('token lookups kept in memory never answer with a stale token', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
    await putPolicy(
      server,
      'reader',
      ['path "cubbyhole/*" { capabilities = ["read", "create", "update"] }', 'path "auth/token/create" { capabilities = ["update"] }'].join(
        '\n',
      ),
    );
  });
  afterAll(() => server.close());

  const lookupSelf = (token: string) => v1(server, 'GET', 'auth/token/lookup-self', { token });

  it('refuses a revoked token, and its children, at once', async () => {
    const parent = await createToken(server, { policies: ['reader'] });
    const child = await createToken(server, { policies: ['reader'] }, parent.client_token);
    expect((await lookupSelf(parent.client_token)).status).toBe(200);
    expect((await lookupSelf(child.client_token)).status).toBe(200);
    expect((await v1(server, 'POST', 'auth/token/revoke', { body: { token: parent.client_token } })).status).toBe(204);
    expect(await lookupSelf(parent.client_token)).toMatchObject({ status: 403, body: { errors: TOKEN_DENIED } });
    expect((await lookupSelf(child.client_token)).status).toBe(403);

    const self = await createToken(server, { policies: ['reader'] });
    expect((await lookupSelf(self.client_token)).status).toBe(200);
    expect((await v1(server, 'POST', 'auth/token/revoke-self', { token: self.client_token })).status).toBe(204);
    expect((await lookupSelf(self.client_token)).status).toBe(403);
  });

  it('sees a renewal, an orphaned child and counted uses at once', async () => {
    const token = await createToken(server, { policies: ['reader'], ttl: '1h', explicit_max_ttl: '10h' });
    expect((await lookupSelf(token.client_token)).body.data.ttl).toBeLessThanOrEqual(3600);
    const renewed = await v1(server, 'POST', 'auth/token/renew-self', { token: token.client_token, body: { increment: '2h' } });
    expect(renewed.status).toBe(200);
    expect((await lookupSelf(token.client_token)).body.data.ttl).toBeGreaterThan(7000);

    const parent = await createToken(server, { policies: ['reader'] });
    const child = await createToken(server, { policies: ['reader'] }, parent.client_token);
    expect((await lookupSelf(child.client_token)).body.data.orphan).toBe(false);
    expect((await v1(server, 'POST', 'auth/token/revoke-orphan', { body: { token: parent.client_token } })).status).toBe(204);
    expect((await lookupSelf(child.client_token)).body.data.orphan).toBe(true);

    const limited = await createToken(server, { policies: ['reader'], num_uses: 3 });
    expect((await lookupSelf(limited.client_token)).body.data.num_uses).toBe(2);
    expect((await lookupSelf(limited.client_token)).body.data.num_uses).toBe(1);
    expect((await lookupSelf(limited.client_token)).status).toBe(200);
    expect((await lookupSelf(limited.client_token)).status).toBe(403);
  });

  it('refuses an expired token as soon as the clock passes its TTL', async () => {
    const token = await createToken(server, { policies: ['reader'], ttl: '1h' });
    expect((await lookupSelf(token.client_token)).status).toBe(200);
    await advance(server, '2h');
    expect((await lookupSelf(token.client_token)).status).toBe(403);
  });

  it('applies a policy change to a token already looked up', async () => {
    await putPolicy(server, 'changing', 'path "cubbyhole/*" { capabilities = ["read", "create", "update"] }');
    const token = await createToken(server, { policies: ['changing'] });
    expect((await v1(server, 'POST', 'cubbyhole/note', { token: token.client_token, body: { a: 1 } })).status).toBe(204);
    expect((await v1(server, 'GET', 'cubbyhole/note', { token: token.client_token })).status).toBe(200);
    await putPolicy(server, 'changing', 'path "cubbyhole/*" { capabilities = ["deny"] }');
    expect((await v1(server, 'GET', 'cubbyhole/note', { token: token.client_token })).status).toBe(403);
  });

  // A wrap keeps its new token's row (TokenStore.rememberInserted): every way the token goes must still refuse it.
  const wrapSecret = async () => {
    const reply = await v1(server, 'POST', 'sys/wrapping/wrap', { headers: { 'x-vault-wrap-ttl': '5m' }, body: { password: 'kept' } });
    expect(reply.status, reply.text).toBe(200);
    return reply.body.wrap_info as { token: string; accessor: string };
  };
  const unwrap = (token: string) => v1(server, 'POST', 'sys/wrapping/unwrap', { token });

  it('refuses a wrapping token once it is unwrapped, revoked by accessor, or expired', async () => {
    const once = await wrapSecret();
    expect(await unwrap(once.token)).toMatchObject({ status: 200, body: { data: { password: 'kept' } } });
    expect((await unwrap(once.token)).status).toBe(400);

    const revoked = await wrapSecret();
    expect((await v1(server, 'POST', 'auth/token/revoke-accessor', { body: { accessor: revoked.accessor } })).status).toBe(204);
    expect((await unwrap(revoked.token)).status).toBe(400);

    const expiring = await wrapSecret();
    await advance(server, '6m');
    expect((await unwrap(expiring.token)).status).toBe(400);
  });

  it('empties a cubbyhole mount enabled after a revocation read the mounts, and one moved since', async () => {
    const cubbyholeWrite = (token: string, path: string) => v1(server, 'POST', path, { token, body: { a: 1 } });
    // A first revocation reads which cubbyhole mounts there are.
    expect((await unwrap((await wrapSecret()).token)).status).toBe(200);
    expect((await v1(server, 'POST', 'sys/mounts/second-cubbyhole', { body: { type: 'cubbyhole' } })).status).toBe(204);
    const owner = await createToken(server, { policies: ['root'] });
    expect((await cubbyholeWrite(owner.client_token, 'second-cubbyhole/note')).status).toBe(204);
    const entriesOf = (accessor: string) =>
      server.app.runtime.store.sqlite.prepare('SELECT count(*) AS n FROM secret_entries WHERE key LIKE ?').get(`${accessor}/%`) as {
        n: number;
      };
    expect(entriesOf(owner.accessor).n).toBe(1);
    expect((await v1(server, 'POST', 'auth/token/revoke', { body: { token: owner.client_token } })).status).toBe(204);
    expect(entriesOf(owner.accessor).n).toBe(0);

    expect((await v1(server, 'POST', 'sys/remount', { body: { from: 'second-cubbyhole', to: 'moved-cubbyhole' } })).status).toBeLessThan(
      300,
    );
    const mover = await createToken(server, { policies: ['root'] });
    expect((await cubbyholeWrite(mover.client_token, 'moved-cubbyhole/note')).status).toBe(204);
    expect((await v1(server, 'POST', 'auth/token/revoke', { body: { token: mover.client_token } })).status).toBe(204);
    expect(entriesOf(mover.accessor).n).toBe(0);
  });

  it('forgets every token a snapshot restore or a reset takes away', async () => {
    expect((await control(server, 'POST', '/snapshots', { name: 'before-token' })).status).toBe(201);
    const token = await createToken(server, { policies: ['reader'] });
    expect((await lookupSelf(token.client_token)).status).toBe(200);
    expect((await control(server, 'POST', '/snapshots/before-token/restore')).status).toBe(200);
    expect((await lookupSelf(token.client_token)).status).toBe(403);

    const again = await createToken(server, { policies: ['reader'] });
    expect((await lookupSelf(again.client_token)).status).toBe(200);
    expect((await control(server, 'POST', '/reset')).status).toBe(200);
    expect((await lookupSelf(again.client_token)).status).toBe(403);
    expect((await lookupSelf(ROOT_TOKEN)).status).toBe(200);
  });
});

describe('the token rows a store keeps', () => {
  const store = openStore(':memory:');
  const clock = new ControllableClock();
  const tokens = new TokenStore(store.db, clock);
  afterAll(() => store.close());

  it('are frozen, so no caller can change one for the next request', () => {
    tokens.ensureRoot('frozen-root');
    const row = tokens.bySecret('frozen-root');
    expect(row?.policies).toEqual(['root']);
    expect(() => (row?.policies as string[]).push('default')).toThrow(TypeError);
    expect(tokens.bySecret('frozen-root')?.policies).toEqual(['root']);
  });

  it('keep a row remembered at its insert exactly as a read of the store gives it, and never inside a transaction', () => {
    const entry = {
      id: tokenKey('hvs.remembered'),
      secret: 'hvs.remembered',
      accessor: 'remembered-accessor',
      parentId: null,
      policies: ['response-wrapping'],
      displayName: '',
      meta: null,
      path: 'sys/wrapping/wrap',
      numUses: 1,
      orphan: true,
      renewable: false,
      ttlSeconds: 300,
      explicitMaxTtlSeconds: 300,
      createdAt: clock.now(),
      expiresAt: new Date(clock.nowMs() + 300_000),
      lastRenewalAt: null,
      periodSeconds: 0,
      maxTtlSeconds: 0,
      boundCidrs: null,
    };
    tokens.insert(entry);
    tokens.rememberInserted(entry);
    const read = store.db.select().from(secretTokens).where(eq(secretTokens.id, entry.id)).get();
    expect(tokens.get(entry.id)).toStrictEqual(read);
    expect(Object.isFrozen(tokens.get(entry.id))).toBe(true);

    const inside = { ...entry, id: tokenKey('hvs.inside'), secret: 'hvs.inside', accessor: 'inside-accessor' };
    expect(() =>
      store.db.transaction((tx) => {
        const storeInTx = new TokenStore(tx, clock);
        storeInTx.insert(inside);
        storeInTx.rememberInserted(inside);
        throw new Error('roll back');
      }),
    ).toThrow('roll back');
    expect(tokens.get(inside.id)).toBeUndefined();
  });

  it('see a write made through another store on the same connection, and a rolled-back one undone', () => {
    const root = tokens.ensureRoot('shared-root');
    expect(tokens.get(root.id)?.displayName).toBe('root');
    store.db.transaction((tx) => new TokenStore(tx, clock).update(root.id, { displayName: 'renamed' }));
    expect(tokens.get(root.id)?.displayName).toBe('renamed');

    expect(() =>
      store.db.transaction((tx) => {
        const inside = new TokenStore(tx, clock);
        inside.update(root.id, { displayName: 'rolled back' });
        expect(inside.get(root.id)?.displayName).toBe('rolled back');
        throw new Error('roll back');
      }),
    ).toThrow('roll back');
    expect(tokens.get(root.id)?.displayName).toBe('renamed');

    store.db.transaction((tx) => new TokenStore(tx, clock).delete([root.id]));
    expect(tokens.get(root.id)).toBeUndefined();
  });
});
