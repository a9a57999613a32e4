import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { createToken, list, POLICY_DENIED, putPolicy, v1 } from '../core/client.js';

/** Policies name v2 endpoints (`secret/data/…`, `secret/metadata/…`), matched as plain request paths. */
describe('policies on the key/value engine', () => {
  let server: TestServer;
  let app: string;
  let writer: string;
  beforeAll(async () => {
    server = await startServer();
    await putPolicy(
      server,
      'app',
      [
        'path "secret/data/app/*" { capabilities = ["read"] }',
        'path "secret/data/app/admin" { capabilities = ["deny"] }',
        'path "secret/metadata/app/*" { capabilities = ["list", "read"] }',
        'path "secret/+/shared/*" { capabilities = ["read", "list"] }',
        'path "secret/delete/app/*" { capabilities = ["update"] }',
      ].join('\n'),
    );
    await putPolicy(server, 'writer', 'path "secret/data/new/*" { capabilities = ["create"] }');
    app = (await createToken(server, { policies: ['app'] })).client_token;
    writer = (await createToken(server, { policies: ['writer'] })).client_token;
    for (const path of ['app/db', 'app/admin', 'other/x', 'shared/s']) {
      await v1(server, 'POST', `secret/data/${path}`, { body: { data: { path } } });
    }
  });
  afterAll(() => server.close());

  it('allows what a rule grants on data/ and refuses the rest with the policy 403', async () => {
    expect((await v1(server, 'GET', 'secret/data/app/db', { token: app })).body.data.data).toEqual({ path: 'app/db' });
    expect((await v1(server, 'GET', 'secret/data/app/db?version=1', { token: app })).status).toBe(200);
    const write = await v1(server, 'POST', 'secret/data/app/db', { token: app, body: { data: { x: 1 } } });
    expect(write).toMatchObject({ status: 403, body: { errors: POLICY_DENIED } });
    expect((await v1(server, 'GET', 'secret/data/app/admin', { token: app })).status).toBe(403);
    expect((await v1(server, 'GET', 'secret/data/other/x', { token: app })).status).toBe(403);
    expect((await v1(server, 'GET', 'secret/data/app/db', { token: app })).body.data.data).toEqual({ path: 'app/db' });
  });

  it('needs metadata/ rules to list and read metadata, and subkeys/ is another path', async () => {
    expect((await list(server, 'secret/metadata/app', app)).body.data.keys).toEqual(['admin', 'db']);
    expect((await v1(server, 'GET', 'secret/metadata/app/db', { token: app })).status).toBe(200);
    expect((await list(server, 'secret/metadata/', app)).status).toBe(403);
    expect((await v1(server, 'DELETE', 'secret/metadata/app/db', { token: app })).status).toBe(403);
    expect((await v1(server, 'GET', 'secret/subkeys/app/db', { token: app })).status).toBe(403);
  });

  it('matches + segments across endpoints', async () => {
    expect((await v1(server, 'GET', 'secret/data/shared/s', { token: app })).status).toBe(200);
    expect((await list(server, 'secret/metadata/shared', app)).body.data.keys).toEqual(['s']);
    expect((await v1(server, 'GET', 'secret/subkeys/shared/s', { token: app })).body.data.subkeys).toEqual({ path: null });
  });

  it('soft-deletes through delete/ with update there, not through DELETE data/ without delete', async () => {
    expect((await v1(server, 'DELETE', 'secret/data/app/db', { token: app })).status).toBe(403);
    expect((await v1(server, 'POST', 'secret/delete/app/db', { token: app, body: { versions: [1] } })).status).toBe(204);
    expect((await v1(server, 'POST', 'secret/undelete/app/db', { token: app, body: { versions: [1] } })).status).toBe(403);
    expect((await v1(server, 'GET', 'secret/data/app/db', { token: app })).status).toBe(404);
  });

  it('tells create from update by whether the key has metadata', async () => {
    expect((await v1(server, 'POST', 'secret/data/new/one', { token: writer, body: { data: { a: 1 } } })).status).toBe(200);
    const rewrite = await v1(server, 'POST', 'secret/data/new/one', { token: writer, body: { data: { a: 2 } } });
    expect(rewrite).toMatchObject({ status: 403, body: { errors: POLICY_DENIED } });
    expect((await v1(server, 'GET', 'secret/data/new/one')).body.data.data).toEqual({ a: 1 });
  });
});
