import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { createToken, list, v1 } from './client.js';
import { TEST_ENGINE, withTestEngine } from './test-engine.js';
import { AUTH_MOUNTS, MountTable } from '../../../src/secrets/mounts/mount-table.js';

describe('mounts', () => {
  let server: TestServer;
  const { engines, records } = withTestEngine();
  beforeAll(async () => {
    server = await startServer({}, { engines });
  });
  afterAll(() => server.close());

  it('has cubbyhole/, secret/ (kv v2), pki/ and database/ on a fresh start, plus the built-in trees', async () => {
    const reply = await v1(server, 'GET', 'sys/mounts');
    expect(Object.keys(reply.body.data)).toEqual(['cubbyhole/', 'database/', 'identity/', 'pki/', 'secret/', 'sys/']);
    expect(reply.body.data['secret/']).toMatchObject({ type: 'kv', options: { version: '2' } });
    expect(reply.body['cubbyhole/']).toMatchObject({ type: 'cubbyhole', local: true, description: 'per-token private secret storage' });
    expect(reply.body.data['pki/']).toMatchObject({
      type: 'pki',
      config: { default_lease_ttl: 0, max_lease_ttl: 0, force_no_cache: false },
    });
  });

  it("mounts a test engine only on the server given it: another server's catalog does not have it", async () => {
    expect((await v1(server, 'POST', 'sys/mounts/given', { body: { type: TEST_ENGINE } })).status).toBe(204);
    const other = await startServer();
    try {
      const refused = await v1(other, 'POST', 'sys/mounts/given', { body: { type: TEST_ENGINE } });
      expect(refused.status).toBe(400);
      expect(refused.body.errors).toEqual([`plugin not found in the catalog: ${TEST_ENGINE}`]);
      expect(Object.keys((await v1(other, 'GET', 'sys/mounts')).body.data)).not.toContain('given/');
    } finally {
      await other.close();
    }
    expect((await v1(server, 'DELETE', 'sys/mounts/given')).status).toBe(204);
  });

  it('mounts an engine at a custom path, twice, with separate data', async () => {
    expect((await v1(server, 'POST', 'sys/mounts/team-a/scratch', { body: { type: 'cubbyhole', description: 'team A' } })).status).toBe(
      204,
    );
    expect((await v1(server, 'POST', 'sys/mounts/team-b/scratch', { body: { type: 'cubbyhole' } })).status).toBe(204);
    expect((await v1(server, 'POST', 'sys/mounts/pki-intermediate', { body: { type: 'pki' } })).status).toBe(204);
    expect((await v1(server, 'POST', 'sys/mounts/db2', { body: { type: 'database' } })).status).toBe(204);
    const mounts = (await v1(server, 'GET', 'sys/mounts')).body.data;
    expect(mounts['team-a/scratch/']).toMatchObject({ type: 'cubbyhole', description: 'team A' });
    expect(mounts['team-a/scratch/'].uuid).not.toBe(mounts['team-b/scratch/'].uuid);

    await v1(server, 'POST', 'team-a/scratch/item', { body: { from: 'a' } });
    expect((await v1(server, 'GET', 'team-a/scratch/item')).body.data).toEqual({ from: 'a' });
    expect((await v1(server, 'GET', 'team-b/scratch/item')).status).toBe(404);
    expect((await v1(server, 'GET', 'cubbyhole/item')).status).toBe(404);
  });

  it('resolves a request path to the mount it starts with, at any depth, and to none between segments', () => {
    const table = new MountTable(server.app.runtime.store.db, server.app.runtime.clock);
    expect(table.longestPrefix('team-a/scratch/deep/er/item')?.path).toBe('team-a/scratch/');
    expect(table.longestPrefix('team-a/scratch')?.path).toBe('team-a/scratch/');
    expect(table.longestPrefix('secret/data/x')?.path).toBe('secret/');
    expect(table.longestPrefix('team-a/scratchy/item')).toBeUndefined();
    expect(table.longestPrefix('team-a')).toBeUndefined();
    expect(table.longestPrefix('')).toBeUndefined();
    expect(table.longestPrefix('//secret//x')).toBeUndefined();
    const auth = new MountTable(server.app.runtime.store.db, server.app.runtime.clock, AUTH_MOUNTS);
    expect(auth.longestPrefix('token/lookup-self')?.type).toBe('token');
  });

  it('serves the engines of the default mounts', async () => {
    // pki/ has no CA yet, so its bare CA read is empty.
    expect((await v1(server, 'GET', 'pki/ca/pem')).status).toBe(204);
  });

  it('refuses unknown types, taken and nested paths, and reserved paths', async () => {
    expect((await v1(server, 'POST', 'sys/mounts/x', { body: { type: 'nope' } })).body).toEqual({
      errors: ['plugin not found in the catalog: nope'],
    });
    expect((await v1(server, 'POST', 'sys/mounts/pki', { body: { type: 'pki' } })).body.errors).toEqual(['path is already in use at pki/']);
    expect((await v1(server, 'POST', 'sys/mounts/pki/nested', { body: { type: 'pki' } })).body.errors).toEqual([
      'path is already in use at pki/',
    ]);
    expect((await v1(server, 'POST', 'sys/mounts/sys/x', { body: { type: 'pki' } })).body.errors).toEqual(['cannot mount "sys/x/"']);
    expect((await v1(server, 'POST', 'sys/mounts/bad', { body: { type: 'pki', config: { default_lease_ttl: 'soon' } } })).status).toBe(400);
  });

  it('never disables or moves the cubbyhole', async () => {
    const disable = await v1(server, 'DELETE', 'sys/mounts/cubbyhole');
    expect(disable.status).toBe(400);
    expect(disable.body.errors).toEqual(['cannot unmount "cubbyhole/"']);
    const move = await v1(server, 'POST', 'sys/remount', { body: { from: 'cubbyhole', to: 'elsewhere' } });
    expect(move.status).toBe(400);
    expect(move.body.errors).toEqual(['cannot remount "cubbyhole/"']);
  });

  it('moves a mount with its data', async () => {
    await v1(server, 'POST', 'sys/mounts/movable', { body: { type: 'cubbyhole' } });
    await v1(server, 'POST', 'movable/kept', { body: { v: 1 } });
    expect((await v1(server, 'POST', 'sys/remount', { body: { from: 'movable', to: 'moved' } })).status).toBe(204);
    expect((await v1(server, 'GET', 'moved/kept')).body.data).toEqual({ v: 1 });
    expect((await v1(server, 'GET', 'movable/kept')).status).toBe(404);
    expect((await v1(server, 'POST', 'sys/remount', { body: { from: 'unknown', to: 'x' } })).body.errors).toEqual([
      'no matching mount at "unknown/"',
    ]);
  });

  it('refuses to move a mount to a path it could not be mounted at', async () => {
    await v1(server, 'POST', 'sys/mounts/stays', { body: { type: 'cubbyhole' } });
    for (const to of ['a/../b', '/', 'a//b', './x']) {
      const reply = await v1(server, 'POST', 'sys/remount', { body: { from: 'stays', to } });
      expect(reply.status, to).toBe(400);
    }
    expect((await v1(server, 'GET', 'sys/mounts/stays')).status).toBe(200);
  });

  it('needs sudo to move a mount (sys/remount is root-protected)', async () => {
    await v1(server, 'POST', 'sys/mounts/sudo-move', { body: { type: 'cubbyhole' } });
    await v1(server, 'PUT', 'sys/policies/acl/remounter', { body: { policy: 'path "sys/remount" { capabilities = ["update"] }' } });
    await v1(server, 'PUT', 'sys/policies/acl/remounter-sudo', {
      body: { policy: 'path "sys/remount" { capabilities = ["update", "sudo"] }' },
    });
    const without = (await createToken(server, { policies: ['remounter'] })).client_token;
    const withSudo = (await createToken(server, { policies: ['remounter-sudo'] })).client_token;
    const refused = await v1(server, 'POST', 'sys/remount', { token: without, body: { from: 'sudo-move', to: 'sudo-moved' } });
    expect(refused.status).toBe(403);
    expect(refused.body.errors).toEqual(['1 error occurred:\n\t* permission denied\n\n']);
    expect((await v1(server, 'POST', 'sys/remount', { token: withSudo, body: { from: 'sudo-move', to: 'sudo-moved' } })).status).toBe(204);
  });

  it('tunes TTLs and allowed_managed_keys, reporting effective values', async () => {
    await v1(server, 'POST', 'sys/mounts/tuned', {
      body: { type: 'pki', config: { max_lease_ttl: '48h', allowed_managed_keys: ['hsm-key'] } },
    });
    const initial = await v1(server, 'GET', 'sys/mounts/tuned/tune');
    expect(initial.body.data).toEqual({
      description: '',
      default_lease_ttl: 172_800,
      max_lease_ttl: 172_800,
      force_no_cache: false,
      allowed_managed_keys: ['hsm-key'],
    });
    expect(initial.body.max_lease_ttl).toBe(172_800);
    expect(
      (
        await v1(server, 'POST', 'sys/mounts/tuned/tune', {
          body: { default_lease_ttl: '1h', allowed_managed_keys: 'k1, k2', description: 'tuned' },
        })
      ).status,
    ).toBe(204);
    const after = await v1(server, 'GET', 'sys/mounts/tuned/tune');
    expect(after.body.data).toMatchObject({
      description: 'tuned',
      default_lease_ttl: 3600,
      max_lease_ttl: 172_800,
      allowed_managed_keys: ['k1', 'k2'],
    });
    expect((await v1(server, 'GET', 'sys/mounts')).body.data['tuned/'].config).toMatchObject({
      default_lease_ttl: 3600,
      max_lease_ttl: 172_800,
      allowed_managed_keys: ['k1', 'k2'],
    });
    expect((await v1(server, 'POST', 'sys/mounts/tuned/tune', { body: { max_lease_ttl: 'system' } })).status).toBe(204);
    expect((await v1(server, 'GET', 'sys/mounts/tuned/tune')).body.data.max_lease_ttl).toBe(2_764_800);
    const pki = await v1(server, 'GET', 'sys/mounts/pki/tune');
    expect(pki.body.data).toMatchObject({ default_lease_ttl: 2_764_800, max_lease_ttl: 2_764_800 });
    expect((await v1(server, 'GET', 'sys/mounts/absent/tune')).status).toBe(400);
    expect((await v1(server, 'POST', 'sys/mounts/tuned/tune', { body: { default_lease_ttl: '100h', max_lease_ttl: '1h' } })).status).toBe(
      400,
    );
  });

  it('disabling a mount revokes its leases and deletes its data', async () => {
    await v1(server, 'POST', 'sys/mounts/to-drop', { body: { type: TEST_ENGINE } });
    const lease = (await v1(server, 'GET', 'to-drop/creds/web?ttl=1h')).body.lease_id as string;
    await v1(server, 'POST', 'sys/mounts/scratch-drop', { body: { type: 'cubbyhole' } });
    await v1(server, 'POST', 'scratch-drop/item', { body: { v: 1 } });

    expect((await v1(server, 'DELETE', 'sys/mounts/to-drop')).status).toBe(204);
    expect(records.revokedLeases).toContain(lease);
    expect((await v1(server, 'PUT', 'sys/leases/lookup', { body: { lease_id: lease } })).status).toBe(400);

    expect((await v1(server, 'DELETE', 'sys/mounts/scratch-drop')).status).toBe(204);
    await v1(server, 'POST', 'sys/mounts/scratch-drop', { body: { type: 'cubbyhole' } });
    expect((await v1(server, 'GET', 'scratch-drop/item')).status).toBe(404);
    // Disabling what is not mounted is fine.
    expect((await v1(server, 'DELETE', 'sys/mounts/never-mounted')).status).toBe(204);
  });

  it('keeps a mount whose leases cannot be revoked', async () => {
    await v1(server, 'POST', 'sys/mounts/stuck', { body: { type: TEST_ENGINE } });
    await v1(server, 'GET', 'stuck/creds/broken?ttl=1h');
    const reply = await v1(server, 'DELETE', 'sys/mounts/stuck');
    expect(reply.status).toBe(400);
    expect(reply.body.errors).toEqual(['failed to revoke leases under stuck/: database unreachable']);
    expect((await v1(server, 'GET', 'sys/mounts')).body.data['stuck/']).toBeDefined();
  });

  it('needs a policy for sys/mounts (no sudo)', async () => {
    const token = (await createToken(server, { policies: ['default'] })).client_token;
    expect((await v1(server, 'GET', 'sys/mounts', { token })).status).toBe(403);
    expect((await list(server, 'sys/policies/acl', token)).status).toBe(403);
  });
});
