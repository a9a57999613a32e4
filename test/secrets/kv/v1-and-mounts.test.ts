import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { createToken, list, listMethod, putPolicy, v1 } from '../core/client.js';

describe('the key/value engine, version 1, and how kv mounts are enabled and described', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
    expect((await v1(server, 'POST', 'sys/mounts/kv1', { body: { type: 'kv', options: { version: '1' } } })).status).toBe(204);
    expect((await v1(server, 'POST', 'sys/mounts/plain', { body: { type: 'kv' } })).status).toBe(204);
    expect((await v1(server, 'POST', 'sys/mounts/versioned', { body: { type: 'kv-v2', description: 'v2 by alias' } })).status).toBe(204);
  });
  afterAll(() => server.close());

  it('shows the version in sys/mounts: secret/ from the seed, kv-v2 as type kv with version 2', async () => {
    const mounts = (await v1(server, 'GET', 'sys/mounts')).body.data;
    expect(mounts['secret/']).toMatchObject({ type: 'kv', options: { version: '2' }, description: 'key/value secret storage' });
    expect(mounts['versioned/']).toMatchObject({ type: 'kv', options: { version: '2' }, description: 'v2 by alias' });
    expect(mounts['kv1/']).toMatchObject({ type: 'kv', options: { version: '1' } });
    expect(mounts['plain/']).toMatchObject({ type: 'kv', options: null });
    expect((await v1(server, 'GET', 'sys/mounts/secret/tune')).body.data.options).toEqual({ version: '2' });
    expect((await v1(server, 'POST', 'versioned/data/x', { body: { data: { a: 1 } } })).body.data.version).toBe(1);
  });

  it('mounts the type generic as the key/value engine, version 1, keeping the type in listings', async () => {
    expect((await v1(server, 'POST', 'sys/mounts/old', { body: { type: 'generic', description: 'legacy' } })).status).toBe(204);
    expect((await v1(server, 'GET', 'sys/mounts')).body.data['old/']).toMatchObject({
      type: 'generic',
      description: 'legacy',
      options: null,
    });
    expect((await v1(server, 'POST', 'old/data/x', { body: { value: 'v1 entry' } })).status).toBe(204);
    expect((await v1(server, 'GET', 'old/data/x')).body.data).toEqual({ value: 'v1 entry' });
    expect((await list(server, 'old/')).body.data.keys).toEqual(['data/']);
    const unknown = await v1(server, 'POST', 'sys/mounts/nope', { body: { type: 'generics' } });
    expect(unknown).toMatchObject({ status: 400, body: { errors: ['plugin not found in the catalog: generics'] } });
  });

  it('reads back any JSON values, with the mount default TTL as lease duration (or the entry ttl)', async () => {
    const body = { text: 's', number: 5, flag: true, list: [1, 'two'], nested: { deep: null } };
    expect((await v1(server, 'POST', 'kv1/app/config', { body })).status).toBe(204);
    const read = await v1(server, 'GET', 'kv1/app/config');
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ data: body, lease_id: '', renewable: false, lease_duration: 768 * 3600 });
    await v1(server, 'PUT', 'kv1/app/short', { body: { value: 'x', ttl: '30m' } });
    expect((await v1(server, 'GET', 'kv1/app/short')).body.lease_duration).toBe(1800);
    expect((await v1(server, 'GET', 'plain/nothing')).status).toBe(404);
  });

  it('replaces on rewrite, stores data/ and metadata/ as ordinary entries, and refuses an empty write', async () => {
    await v1(server, 'POST', 'kv1/data/x', { body: { data: 'plain' } });
    expect((await v1(server, 'GET', 'kv1/data/x')).body.data).toEqual({ data: 'plain' });
    await v1(server, 'POST', 'kv1/data/x', { body: { other: 1 } });
    expect((await v1(server, 'GET', 'kv1/data/x')).body.data).toEqual({ other: 1 });
    const empty = await v1(server, 'POST', 'kv1/empty', { body: {} });
    expect(empty).toMatchObject({ status: 500, body: { errors: ['1 error occurred:\n\t* missing data fields\n\n'] } });
    expect((await v1(server, 'POST', 'kv1/a//b', { body: { a: 1 } })).status).toBe(400);
  });

  it('lists with LIST and ?list=true, folders suffixed /, 404 when empty', async () => {
    await v1(server, 'POST', 'plain/team/a', { body: { v: 1 } });
    await v1(server, 'POST', 'plain/team/sub/b', { body: { v: 2 } });
    expect((await list(server, 'plain/team')).body.data.keys).toEqual(['a', 'sub/']);
    expect((await listMethod(server, 'plain/team')).body).toMatchObject({ data: { keys: ['a', 'sub/'] } });
    expect((await list(server, 'plain/')).body.data.keys).toEqual(['team/']);
    expect((await list(server, 'plain/none')).status).toBe(404);
  });

  it('deletes with 204, present or not', async () => {
    expect((await v1(server, 'DELETE', 'plain/team/a')).status).toBe(204);
    expect((await v1(server, 'DELETE', 'plain/team/a')).status).toBe(204);
    expect((await v1(server, 'GET', 'plain/team/a')).status).toBe(404);
    expect((await list(server, 'plain/team')).body.data.keys).toEqual(['sub/']);
  });

  it('turns v1 entries into version 1 of each key when the mount is tuned to version 2', async () => {
    await v1(server, 'POST', 'sys/mounts/upgrade', { body: { type: 'kv', options: { version: '1' } } });
    await v1(server, 'POST', 'upgrade/app/db', { body: { password: 'p' } });
    await v1(server, 'POST', 'upgrade/top', { body: { n: 1 } });
    const upgraded = await v1(server, 'POST', 'sys/mounts/upgrade/tune', { body: { options: { version: '2' } } });
    expect(upgraded.status).toBe(200);
    expect(upgraded.body.warnings).toEqual([
      'Upgrading mount from version 1 to version 2. This mount will be unavailable for a brief period and will resume service shortly.',
    ]);
    const read = await v1(server, 'GET', 'upgrade/data/app/db');
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({ data: { password: 'p' }, metadata: { version: 1 } });
    expect((await list(server, 'upgrade/metadata/')).body.data.keys).toEqual(['app/', 'top']);
    expect((await v1(server, 'GET', 'upgrade/top')).status).toBe(404);
  });

  it('merges tuned options, and never lets a version 2 mount go back to version 1', async () => {
    expect((await v1(server, 'POST', 'sys/mounts/tuned', { body: { type: 'kv-v2' } })).status).toBe(204);
    expect((await v1(server, 'POST', 'tuned/data/kept', { body: { data: { a: 1 } } })).status).toBe(200);
    expect((await v1(server, 'POST', 'sys/mounts/tuned/tune', { body: { options: {} } })).status).toBe(204);
    expect((await v1(server, 'POST', 'sys/mounts/tuned/tune', { body: { options: { extra: 'x' } } })).status).toBe(204);
    expect((await v1(server, 'GET', 'sys/mounts/tuned/tune')).body.data.options).toEqual({ version: '2', extra: 'x' });
    expect((await v1(server, 'POST', 'sys/mounts/tuned/tune', { body: { options: { extra: '' } } })).status).toBe(204);
    const downgrade = await v1(server, 'POST', 'sys/mounts/tuned/tune', { body: { options: { version: '1' } } });
    expect(downgrade.status).toBe(400);
    expect(downgrade.body.errors).toEqual(['cannot downgrade mount from version 2']);
    expect((await v1(server, 'POST', 'sys/mounts/tuned/tune', { body: { options: { version: '3' } } })).body.errors).toEqual([
      'invalid version provided: 3',
    ]);
    expect((await v1(server, 'GET', 'sys/mounts/tuned/tune')).body.data.options).toEqual({ version: '2' });
    expect((await v1(server, 'GET', 'tuned/data/kept')).body.data.data).toEqual({ a: 1 });
  });

  it('appears in the OpenAPI document at secret/ and every other kv mount', async () => {
    type Document = { paths: Record<string, Record<string, unknown>> };
    const document = (await (await fetch(`${server.baseUrl}/_emulator/openapi.json`)).json()) as Document;
    const reads = ['/v1/secret/data/{path}', '/v1/secret/metadata/{path}', '/v1/secret/config', '/v1/secret/subkeys/{path}'];
    reads.push('/v1/kv1/{path}');
    for (const path of reads) {
      expect(document.paths[path]?.['get'], path).toBeDefined();
    }
    expect(document.paths['/v1/secret/destroy/{path}']?.['post']).toBeDefined();
    expect(document.paths['/v1/sys/internal/ui/mounts/{path}']?.['get']).toBeDefined();
  });

  it('describes the mount of a path for callers with access inside it (sys/internal/ui/mounts)', async () => {
    const root = await v1(server, 'GET', 'sys/internal/ui/mounts/secret/app/db');
    expect(root.status).toBe(200);
    expect(root.body.data).toMatchObject({ path: 'secret/', type: 'kv', options: { version: '2' } });
    expect((await v1(server, 'GET', 'sys/internal/ui/mounts/kv1')).body.data).toMatchObject({ path: 'kv1/', options: { version: '1' } });

    await putPolicy(server, 'inside-secret', 'path "secret/data/app/*" { capabilities = ["read"] }');
    await putPolicy(server, 'segment', 'path "+/metadata/*" { capabilities = ["list"] }');
    const reader = (await createToken(server, { policies: ['inside-secret'] })).client_token;
    const lister = (await createToken(server, { policies: ['segment'] })).client_token;
    expect((await v1(server, 'GET', 'sys/internal/ui/mounts/secret/app/db', { token: reader })).body.data.path).toBe('secret/');
    expect((await v1(server, 'GET', 'sys/internal/ui/mounts/versioned', { token: lister })).status).toBe(200);
    const refused = await v1(server, 'GET', 'sys/internal/ui/mounts/kv1/x', { token: reader });
    expect(refused).toMatchObject({
      status: 403,
      body: { errors: ['preflight capability check returned 403, please ensure client\'s policies grant access to path "kv1/x/"'] },
    });
    expect((await v1(server, 'GET', 'sys/internal/ui/mounts/nomount/x')).status).toBe(403);
    expect((await v1(server, 'GET', 'sys/internal/ui/mounts/secret', { token: null })).body).toEqual({ errors: ['permission denied'] });
  });
});
