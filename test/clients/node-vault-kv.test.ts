import vault from 'node-vault';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_TOKEN, startServer, type TestServer } from '../helpers/app.js';

/**
 * node-vault on the key/value engine: it has no KV helpers, so it uses the paths as its users do
 * (`secret/data/…`, `secret/metadata/…`), under a token whose policy allows some and denies others.
 */
describe('a real client: node-vault on the key/value engine', () => {
  let server: TestServer;
  let app: vault.client;
  beforeAll(async () => {
    server = await startServer();
    const root = vault({ endpoint: server.baseUrl, token: ROOT_TOKEN });
    await root.mount({ mount_point: 'kv1', type: 'kv', options: { version: '1' } });
    await root.addPolicy({
      name: 'kv-app',
      rules: [
        'path "secret/data/app/*" { capabilities = ["create", "read", "update", "delete"] }',
        'path "secret/metadata/app/*" { capabilities = ["read", "list", "update", "delete"] }',
        'path "secret/+/app/*" { capabilities = ["update"] }',
        'path "secret/data/app/locked" { capabilities = ["deny"] }',
        'path "kv1/app/*" { capabilities = ["create", "read", "update", "delete", "list"] }',
      ].join('\n'),
    });
    await root.write('secret/data/app/locked', { data: { secret: 'root only' } });
    const created = await vault({ endpoint: server.baseUrl, token: ROOT_TOKEN }).tokenCreate({ policies: ['kv-app'], ttl: '1h' });
    app = vault({ endpoint: server.baseUrl, token: created.auth.client_token as string });
  });
  afterAll(() => server.close());

  it('writes versions, reads them, soft-deletes, undeletes, destroys and reads metadata on secret/', async () => {
    expect((await app.write('secret/data/app/db', { data: { password: 'one' } })).data.version).toBe(1);
    expect((await app.write('secret/data/app/db', { data: { password: 'two' }, options: { cas: 1 } })).data.version).toBe(2);
    await expect(app.write('secret/data/app/db', { data: { password: 'x' }, options: { cas: 1 } })).rejects.toThrow(
      'check-and-set parameter did not match the current version',
    );
    expect((await app.read('secret/data/app/db')).data).toMatchObject({ data: { password: 'two' }, metadata: { version: 2 } });
    expect((await app.read('secret/data/app/db?version=1')).data.data).toEqual({ password: 'one' });

    await app.delete('secret/data/app/db');
    await expect(app.read('secret/data/app/db')).rejects.toMatchObject({ response: { statusCode: 404 } });
    await app.write('secret/undelete/app/db', { versions: [2] });
    expect((await app.read('secret/data/app/db')).data.data).toEqual({ password: 'two' });
    await app.write('secret/destroy/app/db', { versions: [1] });
    await expect(app.read('secret/data/app/db?version=1')).rejects.toMatchObject({ response: { statusCode: 404 } });

    await app.write('secret/metadata/app/db', { max_versions: 4, custom_metadata: { owner: 'node' } });
    const meta = (await app.read('secret/metadata/app/db')).data;
    expect(meta).toMatchObject({ current_version: 2, max_versions: 4, custom_metadata: { owner: 'node' } });
    expect(meta.versions['1'].destroyed).toBe(true);
    expect((await app.list('secret/metadata/app')).data.keys).toEqual(['db', 'locked']);
  });

  it('is refused where the policy denies, with the policy error text', async () => {
    await expect(app.read('secret/data/app/locked')).rejects.toThrow('permission denied');
    await expect(app.read('secret/data/elsewhere')).rejects.toThrow('permission denied');
    await expect(app.read('secret/config')).rejects.toThrow('permission denied');
    await expect(app.delete('secret/metadata/elsewhere')).rejects.toThrow('permission denied');
  });

  it('reads, lists and deletes KV v1 entries with any JSON values', async () => {
    await app.write('kv1/app/settings', { url: 'https://example', retries: 3, tags: ['a', 'b'] });
    expect((await app.read('kv1/app/settings')).data).toEqual({ url: 'https://example', retries: 3, tags: ['a', 'b'] });
    expect((await app.list('kv1/app')).data.keys).toEqual(['settings']);
    await app.delete('kv1/app/settings');
    await expect(app.read('kv1/app/settings')).rejects.toMatchObject({ response: { statusCode: 404 } });
    await expect(app.write('kv1/other', { a: 1 })).rejects.toThrow('permission denied');
  });
});
