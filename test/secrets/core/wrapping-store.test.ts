import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControllableClock } from '../../../src/core/clock.js';
import { MountStorage } from '../../../src/secrets/storage/mount-storage.js';
import { LeaseManager } from '../../../src/secrets/leases/lease-manager.js';
import { MountTable } from '../../../src/secrets/mounts/mount-table.js';
import { isWrappingEntry, ownsNothing, TokenService } from '../../../src/secrets/tokens/token-service.js';
import { tokenKey, TokenStore, type TokenEntry } from '../../../src/secrets/tokens/token-store.js';
import { openStore } from '../../../src/store/store.js';
import { secretTokens } from '../../../src/store/tables.js';
import { ROOT_TOKEN, startServer, type TestServer } from '../../helpers/app.js';
import { advance, POLICY_DENIED, putPolicy, v1 } from './client.js';

// What a wrap leaves in the store and what revoking a wrapping token takes away: the shortcuts
// (no record entry beside the answer, a revocation that looks for no children or leases, the
// answer kept opened for its unwrap) must leave every answer as it was and nothing behind.

const wrapped = (ttl: string) => ({ 'x-vault-wrap-ttl': ttl });
const INVALID = ['wrapping token is not valid or does not exist'];
const NO_INFO = ['no information found; wrapping token may be from a previous Vault version'];

describe('wrapping tokens in the store', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  const sqlite = () => server.app.runtime.store.sqlite;
  const entriesOf = (accessor: string) =>
    (sqlite().prepare('SELECT key FROM secret_entries WHERE key LIKE ? ORDER BY key').all(`${accessor}/%`) as { key: string }[]).map(
      (row) => row.key,
    );
  const rowOf = (accessor: string) => sqlite().prepare('SELECT id FROM secret_tokens WHERE accessor = ?').get(accessor);
  const cubbyhole = () => {
    const { uuid } = sqlite().prepare("SELECT uuid FROM mounts WHERE path = 'cubbyhole/'").get() as { uuid: string };
    return new MountStorage(server.app.runtime.store.db, uuid);
  };
  const wrap = async (body: Record<string, unknown> = { password: 'handed over' }, ttl = '5m') => {
    const reply = await v1(server, 'POST', 'sys/wrapping/wrap', { body, headers: wrapped(ttl) });
    expect(reply.status, reply.text).toBe(200);
    return reply.body.wrap_info as { token: string; accessor: string; ttl: number; creation_time: string; creation_path: string };
  };

  it('keeps one cubbyhole entry per wrap, and an unwrap by the caller leaves neither it nor the row', async () => {
    const info = await wrap();
    expect(entriesOf(info.accessor)).toEqual([`${info.accessor}/response`]);
    expect(rowOf(info.accessor)).toBeDefined();
    const unwrapped = await v1(server, 'POST', 'sys/wrapping/unwrap', { token: info.token });
    expect(unwrapped.body.data).toEqual({ password: 'handed over' });
    expect(entriesOf(info.accessor)).toEqual([]);
    expect(rowOf(info.accessor)).toBeUndefined();
    expect(await v1(server, 'POST', 'auth/token/lookup-accessor', { body: { accessor: info.accessor } })).toMatchObject({ status: 400 });
  });

  it('leaves nothing after an unwrap for a third party either', async () => {
    const info = await wrap({ n: 1 });
    expect((await v1(server, 'POST', 'sys/wrapping/unwrap', { body: { token: info.token } })).body.data).toEqual({ n: 1 });
    expect(entriesOf(info.accessor)).toEqual([]);
    expect(rowOf(info.accessor)).toBeUndefined();
  });

  it("looks a wrap up from its token's row: the creation time, TTL and path wrap_info gave", async () => {
    const info = await wrap({ n: 2 }, '7m');
    const lookup = await v1(server, 'POST', 'sys/wrapping/lookup', { token: null, body: { token: info.token } });
    expect(lookup.status).toBe(200);
    expect(lookup.body.data).toEqual({ creation_ttl: 420, creation_time: info.creation_time, creation_path: 'sys/wrapping/wrap' });
    expect(Object.keys(lookup.body.data)).toEqual(['creation_ttl', 'creation_time', 'creation_path']);
    // The lookup used nothing up.
    expect((await v1(server, 'POST', 'sys/wrapping/unwrap', { token: info.token })).body.data).toEqual({ n: 2 });
  });

  it('keeps a record beside the answer only for a rewrap, whose first creation path the lookup answers', async () => {
    await v1(server, 'POST', 'secret/data/rewrapped', { body: { data: { v: 'x' } } });
    const read = await v1(server, 'GET', 'secret/data/rewrapped', { headers: wrapped('10m') });
    const old = read.body.wrap_info;
    const reply = await v1(server, 'POST', 'sys/wrapping/rewrap', { body: { token: old.token } });
    const fresh = reply.body.wrap_info;
    expect(entriesOf(old.accessor)).toEqual([]);
    expect(rowOf(old.accessor)).toBeUndefined();
    expect(entriesOf(fresh.accessor)).toEqual([`${fresh.accessor}/response`, `${fresh.accessor}/wrapinfo`]);
    const lookup = await v1(server, 'POST', 'sys/wrapping/lookup', { body: { token: fresh.token } });
    expect(lookup.body.data).toEqual({ creation_ttl: 600, creation_time: fresh.creation_time, creation_path: 'secret/data/rewrapped' });
    expect((await v1(server, 'POST', 'sys/wrapping/unwrap', { token: fresh.token })).body.data.data).toEqual({ v: 'x' });
    expect(entriesOf(fresh.accessor)).toEqual([]);
  });

  it('answers a record entry as it is kept (a store an older version wrote one into for every wrap)', async () => {
    const info = await wrap({ n: 3 });
    const kept = { creation_ttl: 300, creation_time: '2020-01-02T03:04:05.678Z', creation_path: 'kept/elsewhere' };
    cubbyhole().put(`${info.accessor}/wrapinfo`, kept);
    expect((await v1(server, 'POST', 'sys/wrapping/lookup', { body: { token: info.token } })).body.data).toEqual(kept);
  });

  it('unwraps the answer the cubbyhole holds, not the one the wrap kept opened, once it was written again', async () => {
    const info = await wrap({ n: 4 });
    const envelope = { request_id: 'r', lease_id: '', renewable: false, lease_duration: 0, data: { n: 'written again' }, wrap_info: null };
    cubbyhole().put(`${info.accessor}/response`, { response: JSON.stringify({ ...envelope, warnings: null, auth: null }) });
    expect((await v1(server, 'POST', 'sys/wrapping/unwrap', { token: info.token })).body.data).toEqual({ n: 'written again' });
  });

  it('revokes an expired wrapping token with its cubbyhole', async () => {
    const info = await wrap({ n: 5 }, '20s');
    await advance(server, '21s');
    expect(rowOf(info.accessor)).toBeUndefined();
    expect(entriesOf(info.accessor)).toEqual([]);
    expect(await v1(server, 'POST', 'sys/wrapping/lookup', { body: { token: info.token } })).toMatchObject({
      status: 400,
      body: { errors: INVALID },
    });
  });

  it('serves as a token where its policy allows: its cubbyhole answer once, and nothing it could own', async () => {
    const info = await wrap({ n: 6 });
    // Refused before its one use is taken: no token, no secret, no lease.
    for (const [method, path] of [
      ['POST', 'auth/token/create'],
      ['POST', 'auth/token/create-orphan'],
      ['GET', 'secret/data/rewrapped'],
      ['POST', 'pki/issue/any'],
      ['GET', 'database/creds/any'],
      ['POST', 'cubbyhole/other'],
    ] as const) {
      expect((await v1(server, method, path, { token: info.token, body: method === 'POST' ? {} : undefined })).body, path).toEqual({
        errors: POLICY_DENIED,
      });
    }
    const read = await v1(server, 'GET', 'cubbyhole/response', { token: info.token });
    expect(JSON.parse(read.body.data.response).data).toEqual({ n: 6 });
    expect(rowOf(info.accessor)).toBeUndefined();
    expect(entriesOf(info.accessor)).toEqual([]);
    expect(await v1(server, 'POST', 'sys/wrapping/unwrap', { token: info.token })).toMatchObject({
      status: 400,
      body: { errors: INVALID },
    });
  });

  it('empties every cubbyhole mount of the token at its unwrap, a rewrap record too', async () => {
    expect(await v1(server, 'POST', 'sys/mounts/cubby-two', { body: { type: 'cubbyhole' } })).toMatchObject({ status: 204 });
    const { uuid } = sqlite().prepare("SELECT uuid FROM mounts WHERE path = 'cubby-two/'").get() as { uuid: string };
    const other = new MountStorage(server.app.runtime.store.db, uuid);
    for (const named of [false, true]) {
      const info = await wrap({ n: 3 });
      other.put(`${info.accessor}/elsewhere`, { kept: 'here' });
      cubbyhole().put(`${info.accessor}/wrapinfo`, { creation_ttl: 300, creation_time: info.creation_time, creation_path: 'a/b' });
      const unwrapped = named
        ? await v1(server, 'POST', 'sys/wrapping/unwrap', { body: { token: info.token } })
        : await v1(server, 'POST', 'sys/wrapping/unwrap', { token: info.token });
      expect(unwrapped.body.data, `named ${named}`).toEqual({ n: 3 });
      expect(entriesOf(info.accessor)).toEqual([]);
      expect(rowOf(info.accessor)).toBeUndefined();
    }
    expect(await v1(server, 'DELETE', 'sys/mounts/cubby-two')).toMatchObject({ status: 204 });
  });

  it('leaves nothing when the unwrap fails: its one use is taken and the token revoked all the same', async () => {
    for (const named of [false, true]) {
      const info = await wrap({ n: 7 });
      cubbyhole().delete(`${info.accessor}/response`);
      const failed = named
        ? await v1(server, 'POST', 'sys/wrapping/unwrap', { body: { token: info.token } })
        : await v1(server, 'POST', 'sys/wrapping/unwrap', { token: info.token });
      expect(failed.body.errors, `named ${named}`).toEqual(NO_INFO);
      expect(rowOf(info.accessor)).toBeUndefined();
      expect(entriesOf(info.accessor)).toEqual([]);
      expect(await v1(server, 'POST', 'sys/wrapping/unwrap', { token: info.token })).toMatchObject({
        status: 400,
        body: { errors: INVALID },
      });
    }
  });

  it("takes a wrapping token's row at its last use, and its cubbyhole at the revocation after the request", async () => {
    const { store, clock, scheduler, log } = server.app.runtime;
    const mounts = new MountTable(store.db, clock);
    const leases = new LeaseManager({ db: store.db, clock, scheduler, log, backend: () => undefined });
    const tokens = new TokenService({ db: store.db, clock, scheduler, leases, mounts, policyExists: () => true });
    const lookedUp = (secret: string) => sqlite().prepare('SELECT num_uses FROM secret_tokens WHERE id = ?').get(tokenKey(secret));

    const wrapping = tokens.wrappingEntry(300, 'sys/wrapping/wrap', clock.now());
    tokens.store.insert(wrapping);
    cubbyhole().put(`${wrapping.accessor}/response`, { response: '{}' });
    const used = tokens.consumeUse(wrapping);
    expect(used.lastUse).toBe(true);
    expect(lookedUp(wrapping.secret ?? '')).toBeUndefined();
    expect(tokens.store.lookup(wrapping.secret)).toBeUndefined();
    // The request still reads the answer it was let in for.
    expect(entriesOf(wrapping.accessor)).toEqual([`${wrapping.accessor}/response`]);
    await tokens.revokeTree(used.token);
    expect(entriesOf(wrapping.accessor)).toEqual([]);

    // Any other token's last use marks its row used up, and the revocation takes it.
    const ordinary = { ...tokens.wrappingEntry(300, 'auth/token/create', clock.now()), policies: ['default'], displayName: 'token' };
    tokens.store.insert(ordinary);
    const last = tokens.consumeUse(ordinary);
    expect(lookedUp(ordinary.secret ?? '')).toEqual({ num_uses: -1 });
    expect(tokens.store.lookup(ordinary.secret)).toBeUndefined();
    await tokens.revokeTree(last.token);
    expect(lookedUp(ordinary.secret ?? '')).toBeUndefined();
  });

  it('tells wrapping tokens from others by policy, entity and display name', () => {
    const base = { policies: ['response-wrapping'], entityId: null, displayName: '' } as unknown as TokenEntry;
    expect(ownsNothing(base)).toBe(true);
    expect(isWrappingEntry(base)).toBe(true);
    expect(ownsNothing({ ...base, entityId: 'entity-1' })).toBe(false);
    expect(ownsNothing({ ...base, policies: ['response-wrapping', 'default'] })).toBe(false);
    expect(ownsNothing({ ...base, policies: ['root'] })).toBe(false);
    expect(isWrappingEntry({ ...base, displayName: 'userpass-bob' })).toBe(false);
  });
});

describe('a login token holding only the response-wrapping policy', () => {
  let server: TestServer;
  let login: { token: string; entityId: string };
  beforeAll(async () => {
    server = await startServer();
    expect((await v1(server, 'POST', 'sys/auth/userpass', { body: { type: 'userpass' } })).status).toBe(204);
    await v1(server, 'POST', 'auth/userpass/users/ana', {
      body: { password: 'pw', token_policies: 'response-wrapping', token_no_default_policy: true },
    });
    const reply = await v1(server, 'POST', 'auth/userpass/login/ana', { token: null, body: { password: 'pw' } });
    expect(reply.body.auth.policies).toEqual(['response-wrapping']);
    login = { token: reply.body.auth.client_token, entityId: reply.body.auth.entity_id };
    // Its entity grants what a wrapping token never has: making tokens and leases.
    await putPolicy(
      server,
      'maker',
      ['path "auth/token/create" { capabilities = ["update", "sudo"] }', 'path "leasing-pki/issue/*" { capabilities = ["update"] }'].join(
        '\n',
      ),
    );
    expect((await v1(server, 'POST', `identity/entity/id/${login.entityId}`, { body: { policies: ['maker'] } })).status).toBeLessThan(300);
    expect((await v1(server, 'POST', 'sys/mounts/leasing-pki', { body: { type: 'pki' } })).status).toBe(204);
    expect(
      (await v1(server, 'POST', 'leasing-pki/root/generate/internal', { body: { common_name: 'ca.test', key_type: 'ec' } })).status,
    ).toBe(200);
    await v1(server, 'POST', 'leasing-pki/roles/leased', {
      body: { allow_any_name: true, generate_lease: true, key_type: 'ec', ttl: '1h' },
    });
  });
  afterAll(() => server.close());

  it('is revoked with its children and leases', async () => {
    const child = await v1(server, 'POST', 'auth/token/create', { token: login.token, body: { policies: ['default'] } });
    expect(child.status, child.text).toBe(200);
    const issued = await v1(server, 'POST', 'leasing-pki/issue/leased', { token: login.token, body: { common_name: 'a.test' } });
    expect(issued.status, issued.text).toBe(200);
    const leaseId = issued.body.lease_id as string;
    expect((await v1(server, 'POST', 'sys/leases/lookup', { body: { lease_id: leaseId } })).status).toBe(200);

    expect((await v1(server, 'POST', 'auth/token/revoke', { body: { token: login.token } })).status).toBe(204);
    expect((await v1(server, 'GET', 'auth/token/lookup-self', { token: child.body.auth.client_token })).status).toBe(403);
    expect((await v1(server, 'POST', 'sys/leases/lookup', { body: { lease_id: leaseId } })).status).toBe(400);
  });

  it('has no wrap record, whatever its cubbyhole holds', async () => {
    const reply = await v1(server, 'POST', 'auth/userpass/login/ana', { token: null, body: { password: 'pw' } });
    const token = reply.body.auth.client_token as string;
    expect((await v1(server, 'POST', 'cubbyhole/response', { token, body: { response: '{}' } })).status).toBe(204);
    expect(await v1(server, 'POST', 'sys/wrapping/lookup', { token: ROOT_TOKEN, body: { token } })).toMatchObject({
      status: 400,
      body: { errors: NO_INFO },
    });
  });
});

describe('the token row insert', () => {
  it('writes every column as drizzle reads it back', () => {
    const store = openStore(':memory:');
    try {
      const tokens = new TokenStore(store.db, new ControllableClock());
      const full: TokenEntry = {
        id: tokenKey('hvs.full'),
        accessor: 'full-accessor',
        parentId: tokenKey('hvs.parent'),
        policies: ['default', 'reader'],
        displayName: 'token-full',
        meta: { team: 'core' },
        path: 'auth/token/create',
        numUses: 3,
        orphan: false,
        renewable: true,
        ttlSeconds: 60,
        explicitMaxTtlSeconds: 120,
        createdAt: new Date(1_700_000_000_123),
        expiresAt: new Date(1_700_000_060_123),
        lastRenewalAt: new Date(1_700_000_010_456),
        periodSeconds: 30,
        maxTtlSeconds: 90,
        boundCidrs: ['10.0.0.0/8'],
        entityId: 'entity-1',
      };
      const bare: TokenEntry = { ...full, id: tokenKey('hvs.bare'), accessor: 'bare-accessor', parentId: null, meta: null, orphan: true };
      Object.assign(bare, { renewable: false, expiresAt: null, lastRenewalAt: null, boundCidrs: null, entityId: null });
      for (const entry of [full, bare]) tokens.insert(entry);
      const read = (id: string) => store.db.select().from(secretTokens).where(eq(secretTokens.id, id)).get();
      expect(read(full.id)).toEqual(full);
      expect(read(bare.id)).toEqual(bare);
    } finally {
      store.close();
    }
  });
});
