import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { advance, list, listMethod, v1 } from '../core/client.js';

/** The default seed's `secret/`: the key/value engine, version 2, as the real service's development mode mounts it. */
describe('the key/value engine, version 2 (secret/)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('writes versions and reads the latest or a given one, with metadata from the clock', async () => {
    const first = await v1(server, 'POST', 'secret/data/app/db', { body: { data: { user: 'app', port: 5432, tls: { on: true } } } });
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ version: 1, deletion_time: '', destroyed: false, custom_metadata: null });
    expect(Date.parse(first.body.data.created_time)).not.toBeNaN();
    expect((await v1(server, 'PUT', 'secret/data/app/db', { body: { data: { user: 'app2' } } })).body.data.version).toBe(2);

    const latest = await v1(server, 'GET', 'secret/data/app/db');
    expect(latest.status).toBe(200);
    expect(latest.body.data).toEqual({
      data: { user: 'app2' },
      metadata: { version: 2, created_time: expect.any(String), deletion_time: '', destroyed: false, custom_metadata: null },
    });
    const older = await v1(server, 'GET', 'secret/data/app/db?version=1');
    expect(older.body.data.data).toEqual({ user: 'app', port: 5432, tls: { on: true } });
    expect(older.body.data.metadata.version).toBe(1);
    expect((await v1(server, 'GET', 'secret/data/app/db?version=9')).status).toBe(404);
    expect((await v1(server, 'GET', 'secret/data/app/none')).body).toEqual({ errors: [] });
    expect((await v1(server, 'GET', 'secret/data/app/db?version=x')).status).toBe(400);
  });

  it('refuses a write without data, and data that is not an object', async () => {
    const missing = await v1(server, 'POST', 'secret/data/bad', { body: { options: {} } });
    expect(missing).toMatchObject({ status: 400, body: { errors: ['no data provided'] } });
    expect((await v1(server, 'POST', 'secret/data/bad', { body: { data: 'text' } })).status).toBe(400);
    expect((await v1(server, 'GET', 'secret/metadata/bad')).status).toBe(404);
  });

  it('checks and sets: cas 0 only creates, cas N must be the current version, cas_required demands it', async () => {
    expect((await v1(server, 'POST', 'secret/data/cas', { body: { options: { cas: 0 }, data: { a: 1 } } })).status).toBe(200);
    const again = await v1(server, 'POST', 'secret/data/cas', { body: { options: { cas: 0 }, data: { a: 2 } } });
    expect(again).toMatchObject({ status: 400, body: { errors: ['check-and-set parameter did not match the current version'] } });
    expect((await v1(server, 'POST', 'secret/data/cas', { body: { options: { cas: 1 }, data: { a: 2 } } })).body.data.version).toBe(2);
    expect((await v1(server, 'POST', 'secret/data/cas', { body: { options: { cas: 'x' }, data: {} } })).body.errors).toEqual([
      'error parsing check-and-set parameter',
    ]);

    expect((await v1(server, 'POST', 'secret/metadata/cas', { body: { cas_required: true } })).status).toBe(204);
    const required = await v1(server, 'POST', 'secret/data/cas', { body: { data: { a: 3 } } });
    expect(required).toMatchObject({ status: 400, body: { errors: ['check-and-set parameter required for this call'] } });
    expect((await v1(server, 'POST', 'secret/data/cas', { body: { options: { cas: '2' }, data: { a: 3 } } })).body.data.version).toBe(3);
    expect((await v1(server, 'GET', 'secret/data/cas')).body.data.data).toEqual({ a: 3 });
  });

  it('soft-deletes the latest version (DELETE data/) and given ones (delete/), answering 404 with the metadata', async () => {
    await v1(server, 'POST', 'secret/data/soft', { body: { data: { v: 1 } } });
    await v1(server, 'POST', 'secret/data/soft', { body: { data: { v: 2 } } });
    expect((await v1(server, 'DELETE', 'secret/data/soft')).status).toBe(204);
    const deleted = await v1(server, 'GET', 'secret/data/soft');
    expect(deleted.status).toBe(404);
    expect(deleted.body.data.data).toBeNull();
    expect(deleted.body.data.metadata).toMatchObject({ version: 2, destroyed: false });
    expect(deleted.body.data.metadata.deletion_time).not.toBe('');
    expect(deleted.body.errors).toBeUndefined();
    expect((await v1(server, 'GET', 'secret/data/soft?version=1')).body.data.data).toEqual({ v: 1 });

    expect((await v1(server, 'POST', 'secret/delete/soft', { body: { versions: [1] } })).status).toBe(204);
    expect((await v1(server, 'GET', 'secret/data/soft?version=1')).status).toBe(404);
    const none = await v1(server, 'POST', 'secret/delete/soft', { body: { versions: [] } });
    expect(none).toMatchObject({ status: 400, body: { errors: ['no version number provided'] } });
    expect((await v1(server, 'POST', 'secret/delete/soft', { body: { versions: ['x'] } })).status).toBe(400);

    expect((await v1(server, 'POST', 'secret/undelete/soft', { body: { versions: '1,2' } })).status).toBe(204);
    expect((await v1(server, 'GET', 'secret/data/soft')).body.data.data).toEqual({ v: 2 });
    expect((await v1(server, 'GET', 'secret/data/soft?version=1')).body.data.metadata.deletion_time).toBe('');
    expect((await v1(server, 'POST', 'secret/undelete/soft', {})).body.errors).toEqual(['no version number provided']);
    expect((await v1(server, 'DELETE', 'secret/data/never-written')).status).toBe(204);
  });

  it('destroys versions for good: a 404 with destroyed metadata that undelete cannot bring back', async () => {
    await v1(server, 'POST', 'secret/data/gone', { body: { data: { v: 1 } } });
    await v1(server, 'POST', 'secret/data/gone', { body: { data: { v: 2 } } });
    expect((await v1(server, 'POST', 'secret/destroy/gone', { body: { versions: [1] } })).status).toBe(204);
    const destroyed = await v1(server, 'GET', 'secret/data/gone?version=1');
    expect(destroyed.status).toBe(404);
    expect(destroyed.body.data).toMatchObject({ data: null, metadata: { version: 1, destroyed: true, deletion_time: '' } });
    await v1(server, 'POST', 'secret/undelete/gone', { body: { versions: [1] } });
    expect((await v1(server, 'GET', 'secret/data/gone?version=1')).status).toBe(404);
    expect((await v1(server, 'GET', 'secret/metadata/gone')).body.data.versions['1'].destroyed).toBe(true);
    expect((await v1(server, 'GET', 'secret/data/gone')).body.data.data).toEqual({ v: 2 });
    expect((await v1(server, 'POST', 'secret/destroy/gone', {})).body.errors).toEqual(['no version number provided']);
  });

  it('reads, writes, patches, lists and deletes metadata', async () => {
    await v1(server, 'POST', 'secret/data/meta/one', { body: { data: { a: 1 } } });
    await v1(server, 'POST', 'secret/data/meta/one', { body: { data: { a: 2 } } });
    await v1(server, 'POST', 'secret/data/meta/dir/two', { body: { data: { b: 1 } } });
    const write = await v1(server, 'POST', 'secret/metadata/meta/one', {
      body: { max_versions: 5, delete_version_after: '1h', custom_metadata: { owner: 'team-a', tier: 1 } },
    });
    expect(write.status).toBe(204);
    const read = await v1(server, 'GET', 'secret/metadata/meta/one');
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({
      cas_required: false,
      current_version: 2,
      oldest_version: 0,
      max_versions: 5,
      delete_version_after: '1h0m0s',
      custom_metadata: { owner: 'team-a', tier: '1' },
    });
    expect(Object.keys(read.body.data.versions)).toEqual(['1', '2']);
    expect(read.body.data.versions['1']).toEqual({ created_time: expect.any(String), deletion_time: '', destroyed: false });
    expect(read.body.data.updated_time).toBe(read.body.data.versions['2'].created_time);
    expect((await v1(server, 'GET', 'secret/data/meta/one')).body.data.metadata.custom_metadata).toEqual({ owner: 'team-a', tier: '1' });

    const patch = await fetch(`${server.baseUrl}/v1/secret/metadata/meta/one`, {
      method: 'PATCH',
      headers: { 'x-vault-token': server.config.rootToken, 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ custom_metadata: { tier: null, region: 'eu' } }),
    });
    expect(patch.status).toBe(204);
    const patched = (await v1(server, 'GET', 'secret/metadata/meta/one')).body.data;
    expect(patched).toMatchObject({ custom_metadata: { owner: 'team-a', region: 'eu' }, max_versions: 5 });

    expect((await list(server, 'secret/metadata/meta')).body.data.keys).toEqual(['dir/', 'one']);
    expect((await listMethod(server, 'secret/metadata/meta/')).body).toMatchObject({ data: { keys: ['dir/', 'one'] } });
    expect((await list(server, 'secret/metadata/')).body.data.keys).toContain('meta/');
    expect((await list(server, 'secret/metadata/nothing')).status).toBe(404);

    expect((await v1(server, 'DELETE', 'secret/metadata/meta/one')).status).toBe(204);
    expect((await v1(server, 'GET', 'secret/metadata/meta/one')).status).toBe(404);
    expect((await v1(server, 'GET', 'secret/data/meta/one?version=1')).status).toBe(404);
    expect((await list(server, 'secret/metadata/meta')).body.data.keys).toEqual(['dir/']);
  });

  it('lists exactly the keys under a folder: case counts, and a sibling sharing the prefix is not inside', async () => {
    for (const path of ['Case/upper', 'case/lower', 'case-x/other', 'caseless']) {
      await v1(server, 'POST', `secret/data/${path}`, { body: { data: { path } } });
    }
    expect((await list(server, 'secret/metadata/case')).body.data.keys).toEqual(['lower']);
    expect((await list(server, 'secret/metadata/Case')).body.data.keys).toEqual(['upper']);
  });

  it('creates metadata before any version, and validates custom_metadata as the real service does', async () => {
    expect((await v1(server, 'POST', 'secret/metadata/pre', { body: { unrelated: 1 } })).status).toBe(204);
    expect((await v1(server, 'GET', 'secret/metadata/pre')).status).toBe(404);
    expect((await v1(server, 'POST', 'secret/metadata/pre', { body: { max_versions: 2 } })).status).toBe(204);
    expect((await v1(server, 'GET', 'secret/metadata/pre')).body.data).toMatchObject({ current_version: 0, versions: {}, max_versions: 2 });
    expect((await v1(server, 'GET', 'secret/data/pre')).status).toBe(404);
    const bad = await v1(server, 'POST', 'secret/metadata/pre', { body: { custom_metadata: { '': 'x', long: 'y'.repeat(513) } } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]).toMatch(/^2 errors occurred:\n\t\* custom_metadata validation failed: length of key "" is 0/);
    expect(bad.body.errors[0]).toContain('length of value for key "long" is 513 but must be 0 < len(value) <= 512');
    const many = Object.fromEntries(Array.from({ length: 65 }, (_, index) => [`k${index}`, 'v']));
    expect((await v1(server, 'POST', 'secret/metadata/pre', { body: { custom_metadata: many } })).body.errors[0]).toContain(
      'payload must contain at most 64 keys, provided 65',
    );
    expect((await v1(server, 'POST', 'secret/metadata/pre', { body: { max_versions: 'many' } })).status).toBe(400);
    const negative = await v1(server, 'POST', 'secret/metadata/pre', { body: { max_versions: -1 } });
    expect(negative.body.errors).toEqual(['max_versions must not be negative']);
    expect((await v1(server, 'GET', 'secret/metadata/pre')).body.data.max_versions).toBe(2);
    expect((await v1(server, 'GET', 'secret/metadata/pre')).body.data.custom_metadata).toBeNull();
  });

  it('keeps max_versions versions (the key, else the mount, else 10), dropping the oldest', async () => {
    await v1(server, 'POST', 'secret/metadata/trim', { body: { max_versions: 2 } });
    for (let index = 1; index <= 4; index += 1) await v1(server, 'POST', 'secret/data/trim', { body: { data: { index } } });
    const meta = (await v1(server, 'GET', 'secret/metadata/trim')).body.data;
    expect(Object.keys(meta.versions)).toEqual(['3', '4']);
    expect(meta.oldest_version).toBe(3);
    expect((await v1(server, 'GET', 'secret/data/trim?version=2')).status).toBe(404);
    for (let index = 1; index <= 12; index += 1) await v1(server, 'POST', 'secret/data/ten', { body: { data: { index } } });
    expect(Object.keys((await v1(server, 'GET', 'secret/metadata/ten')).body.data.versions)).toHaveLength(10);
  });

  it("describes a version's shape (subkeys) without its values", async () => {
    await v1(server, 'POST', 'secret/data/shape', { body: { data: { a: 1, b: { c: 'x', d: { e: true } }, list: [1, 2] } } });
    const all = await v1(server, 'GET', 'secret/subkeys/shape');
    expect(all.body.data).toEqual({
      subkeys: { a: null, b: { c: null, d: { e: null } }, list: null },
      metadata: expect.objectContaining({ version: 1 }),
    });
    expect((await v1(server, 'GET', 'secret/subkeys/shape?depth=1')).body.data.subkeys).toEqual({ a: null, b: null, list: null });
    expect((await v1(server, 'GET', 'secret/subkeys/shape?depth=-1')).status).toBe(400);
    expect((await v1(server, 'GET', 'secret/subkeys/nothing')).status).toBe(404);
    await v1(server, 'DELETE', 'secret/data/shape');
    const deleted = await v1(server, 'GET', 'secret/subkeys/shape');
    expect(deleted.status).toBe(404);
    expect(deleted.body.data).toMatchObject({ subkeys: null, metadata: { version: 1 } });
  });

  it('patches the latest version with a JSON merge patch', async () => {
    await v1(server, 'POST', 'secret/data/merge', { body: { data: { a: 1, b: 2 } } });
    const reply = await fetch(`${server.baseUrl}/v1/secret/data/merge`, {
      method: 'PATCH',
      headers: { 'x-vault-token': server.config.rootToken, 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ data: { b: null, c: 3 } }),
    });
    expect(reply.status).toBe(200);
    expect(((await reply.json()) as { data: { version: number } }).data.version).toBe(2);
    expect((await v1(server, 'GET', 'secret/data/merge')).body.data.data).toEqual({ a: 1, c: 3 });
  });

  // A data read shares one opened copy of the key's entries while they are unchanged (peekMeta,
  // peekVersion): every write between two reads must show in the second.
  it('answers every change between two reads of a key at once', async () => {
    const read = async () => (await v1(server, 'GET', 'secret/data/hot')).body;
    await v1(server, 'POST', 'secret/data/hot', { body: { data: { n: 1, nested: { a: 1 } } } });
    expect((await read()).data.data).toEqual({ n: 1, nested: { a: 1 } });
    expect((await read()).data.data).toEqual({ n: 1, nested: { a: 1 } });

    await v1(server, 'POST', 'secret/data/hot', { body: { data: { n: 2 } } });
    expect((await read()).data).toMatchObject({ data: { n: 2 }, metadata: { version: 2 } });

    const patched = await fetch(`${server.baseUrl}/v1/secret/data/hot`, {
      method: 'PATCH',
      headers: { 'x-vault-token': server.config.rootToken, 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ data: { m: 3 } }),
    });
    expect(patched.status).toBe(200);
    expect((await read()).data).toMatchObject({ data: { n: 2, m: 3 }, metadata: { version: 3 } });

    await v1(server, 'POST', 'secret/metadata/hot', { body: { custom_metadata: { owner: 'ops' } } });
    expect((await read()).data.metadata.custom_metadata).toEqual({ owner: 'ops' });

    expect((await v1(server, 'DELETE', 'secret/data/hot')).status).toBe(204);
    expect((await v1(server, 'GET', 'secret/data/hot')).status).toBe(404);
    expect((await v1(server, 'POST', 'secret/undelete/hot', { body: { versions: [3] } })).status).toBe(204);
    expect((await read()).data.data).toEqual({ n: 2, m: 3 });
    expect((await v1(server, 'GET', 'secret/subkeys/hot')).body.data.subkeys).toEqual({ n: null, m: null });

    // A wrapped read keeps the same answer, and the key reads the same after it.
    const wrapped = await v1(server, 'GET', 'secret/data/hot', { headers: { 'x-vault-wrap-ttl': '5m' } });
    const unwrapped = await v1(server, 'POST', 'sys/wrapping/unwrap', { token: wrapped.body.wrap_info.token, body: {} });
    expect(unwrapped.body.data.data).toEqual({ n: 2, m: 3 });
    expect((await read()).data.data).toEqual({ n: 2, m: 3 });

    expect((await v1(server, 'DELETE', 'secret/metadata/hot')).status).toBe(204);
    expect((await v1(server, 'GET', 'secret/data/hot')).status).toBe(404);
  });

  // A data write reuses the metadata its existence check opened (takeCheckedMeta) only while the
  // entry is unchanged: a write between (data, metadata, another key's) must never be lost.
  it('writes each version from the metadata as it now is, after reads and writes that shared it', async () => {
    const metadata = async () => (await v1(server, 'GET', 'secret/metadata/shared')).body.data;
    await v1(server, 'POST', 'secret/metadata/shared', { body: { max_versions: 2, custom_metadata: { team: 'a' } } });
    await v1(server, 'POST', 'secret/data/shared', { body: { data: { n: 1 } } });
    const first = (await v1(server, 'GET', 'secret/data/shared')).body.data;
    expect(first.metadata).toMatchObject({ version: 1, custom_metadata: { team: 'a' } });

    for (let n = 2; n <= 3; n += 1) {
      expect((await v1(server, 'POST', 'secret/data/shared', { body: { data: { n } } })).body.data.version).toBe(n);
    }
    expect(await metadata()).toMatchObject({ current_version: 3, oldest_version: 2, custom_metadata: { team: 'a' } });
    expect(Object.keys((await metadata()).versions)).toEqual(['2', '3']);
    expect((await v1(server, 'GET', 'secret/data/shared?version=1')).status).toBe(404);
    expect((await v1(server, 'GET', 'secret/data/shared?version=2')).body.data.data).toEqual({ n: 2 });

    await v1(server, 'POST', 'secret/metadata/shared', { body: { max_versions: 3 } });
    expect((await v1(server, 'POST', 'secret/data/shared', { body: { options: { cas: 2 }, data: { n: 4 } } })).status).toBe(400);
    const fourth = await v1(server, 'POST', 'secret/data/shared', { body: { options: { cas: 3 }, data: { n: 4 } } });
    expect(fourth.body.data.version).toBe(4);
    expect(Object.keys((await metadata()).versions)).toEqual(['2', '3', '4']);
    expect((await v1(server, 'GET', 'secret/data/shared')).body.data).toMatchObject({ data: { n: 4 }, metadata: { version: 4 } });

    // Each other write path between two data writes: the next version sees it.
    await v1(server, 'POST', 'secret/metadata/shared', { body: { custom_metadata: { team: 'b' } } });
    expect((await v1(server, 'POST', 'secret/data/shared', { body: { data: { n: 5 } } })).body.data.custom_metadata).toEqual({ team: 'b' });
    await v1(server, 'DELETE', 'secret/data/shared');
    await v1(server, 'POST', 'secret/data/shared', { body: { data: { n: 6 } } });
    expect((await metadata()).versions['5'].deletion_time).not.toBe('');
    await v1(server, 'DELETE', 'secret/metadata/shared');
    expect((await v1(server, 'POST', 'secret/data/shared', { body: { data: { n: 7 } } })).body.data.version).toBe(1);
    expect(await metadata()).toMatchObject({ current_version: 1, oldest_version: 0, custom_metadata: null, max_versions: 0 });
  });

  it('answers a path without data/ or metadata/ with a 404 whose warning names the right command', async () => {
    const read = await v1(server, 'GET', 'secret/app/db');
    expect(read.status).toBe(404);
    expect(read.body.warnings).toEqual([
      'Invalid path for a versioned K/V secrets engine. See the API docs for the appropriate API endpoints to use. ' +
        "If using the Vault CLI, use 'vault kv get' for this operation.",
    ]);
    expect((await v1(server, 'POST', 'secret/app/db', { body: { a: 1 } })).body.warnings[0]).toContain("'vault kv put'");
    expect((await list(server, 'secret/app')).body.warnings[0]).toContain("'vault kv list'");
    expect((await list(server, 'secret/data/app')).body.warnings[0]).toContain("'vault kv list'");
    expect((await v1(server, 'DELETE', 'secret/app/db')).body.warnings[0]).toContain("'vault kv delete'");
    expect((await v1(server, 'GET', 'secret/metadata/app/db')).status).toBe(200);
  });

  it('keeps mount-wide settings in config', async () => {
    const initial = (await v1(server, 'GET', 'secret/config')).body.data;
    expect(initial).toEqual({ max_versions: 0, cas_required: false, delete_version_after: '0s' });
    expect((await v1(server, 'POST', 'secret/config', { body: { max_versions: 3, delete_version_after: '30m' } })).status).toBe(204);
    const changed = (await v1(server, 'GET', 'secret/config')).body.data;
    expect(changed).toEqual({ max_versions: 3, cas_required: false, delete_version_after: '30m0s' });
    expect((await v1(server, 'POST', 'secret/config', { body: { max_versions: 'x' } })).status).toBe(400);
    expect((await v1(server, 'POST', 'secret/config', { body: { delete_version_after: 'soon' } })).status).toBe(400);
    await v1(server, 'POST', 'secret/config', { body: { max_versions: 0, delete_version_after: '0s' } });
  });

  it('expires versions after delete_version_after as the clock advances, the smaller of mount and key', async () => {
    await v1(server, 'POST', 'secret/config', { body: { delete_version_after: '2h' } });
    await v1(server, 'POST', 'secret/metadata/expiring', { body: { delete_version_after: '1h' } });
    const written = await v1(server, 'POST', 'secret/data/expiring', { body: { data: { short: true } } });
    expect(Date.parse(written.body.data.deletion_time) - Date.parse(written.body.data.created_time)).toBe(3600_000);
    await v1(server, 'POST', 'secret/data/mount-only', { body: { data: { long: true } } });
    expect((await v1(server, 'GET', 'secret/data/expiring')).status).toBe(200);

    await advance(server, '61m');
    const expired = await v1(server, 'GET', 'secret/data/expiring');
    expect(expired.status).toBe(404);
    expect(expired.body.data.metadata.deletion_time).toBe(written.body.data.deletion_time);
    expect((await v1(server, 'GET', 'secret/data/mount-only')).status).toBe(200);
    await advance(server, '1h');
    expect((await v1(server, 'GET', 'secret/data/mount-only')).status).toBe(404);

    await v1(server, 'POST', 'secret/config', { body: { delete_version_after: '-1s' } });
    expect((await v1(server, 'GET', 'secret/config')).body.data.delete_version_after).toBe('-1s');
    expect((await v1(server, 'POST', 'secret/data/expiring', { body: { data: { again: true } } })).body.data.deletion_time).toBe('');
    await v1(server, 'POST', 'secret/config', { body: { delete_version_after: 0 } });
  });
});
