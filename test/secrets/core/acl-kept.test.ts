import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { control, startServer, type TestServer } from '../../helpers/app.js';
import { putPolicy, v1 } from './client.js';

// A token's ACL is kept between its requests (authorizer.ts) and the policies it names are kept
// parsed (policy-store.ts): each case lets a token be authorized once, so its ACL is kept, then
// changes something the ACL is made of and expects the very next request to follow.

describe('ACLs kept between requests never answer with stale rules', () => {
  let server: TestServer;
  let token: string;
  let entityId: string;

  const read = (path: string) => v1(server, 'GET', `secret/data/${path}`, { token });
  const status = async (path: string) => (await read(path)).status;

  beforeAll(async () => {
    server = await startServer();
    for (const path of ['kept/plain', 'people/ana', 'people/bea', 'teams/core', 'groups/x']) {
      expect((await v1(server, 'POST', `secret/data/${path}`, { body: { data: { value: path } } })).status).toBe(200);
    }
    await putPolicy(server, 'kept-plain', 'path "secret/data/kept/plain" { capabilities = ["read"] }');
    await putPolicy(server, 'kept-templated', 'path "secret/data/people/{{identity.entity.name}}" { capabilities = ["read"] }');
    expect((await v1(server, 'POST', 'sys/auth/userpass', { body: { type: 'userpass' } })).status).toBe(204);
    await v1(server, 'POST', 'auth/userpass/users/ana', { body: { password: 'pw', token_policies: 'kept-plain,kept-templated' } });
    const login = await v1(server, 'POST', 'auth/userpass/login/ana', { token: null, body: { password: 'pw' } });
    expect(login.status).toBe(200);
    token = login.body.auth.client_token;
    entityId = login.body.auth.entity_id;
    expect((await v1(server, 'POST', `identity/entity/id/${entityId}`, { body: { name: 'ana' } })).status).toBe(204);
  });
  afterAll(() => server.close());

  it('follows a policy edited, deleted and written again through the API', async () => {
    expect(await status('kept/plain')).toBe(200);
    await putPolicy(server, 'kept-plain', 'path "secret/data/kept/other" { capabilities = ["read"] }');
    expect(await status('kept/plain')).toBe(403);
    await putPolicy(server, 'kept-plain', 'path "secret/data/kept/plain" { capabilities = ["read"] }');
    expect(await status('kept/plain')).toBe(200);
    expect((await v1(server, 'DELETE', 'sys/policies/acl/kept-plain')).status).toBe(204);
    expect(await status('kept/plain')).toBe(403);
    await putPolicy(server, 'kept-plain', 'path "secret/data/kept/plain" { capabilities = ["read"] }');
    expect(await status('kept/plain')).toBe(200);
  });

  it('follows a policy row written behind the API, and a snapshot restore', async () => {
    expect(await status('kept/plain')).toBe(200);
    const sqlite = server.app.runtime.store.sqlite;
    sqlite
      .prepare('UPDATE secret_policies SET raw = \'path "secret/data/kept/other" { capabilities = ["read"] }\' WHERE name = \'kept-plain\'')
      .run();
    expect(await status('kept/plain')).toBe(403);
    sqlite
      .prepare('UPDATE secret_policies SET raw = \'path "secret/data/kept/plain" { capabilities = ["read"] }\' WHERE name = \'kept-plain\'')
      .run();
    expect(await status('kept/plain')).toBe(200);

    expect((await control(server, 'POST', '/snapshots', { name: 'acl-kept' })).status).toBe(201);
    await putPolicy(server, 'kept-plain', 'path "secret/data/kept/other" { capabilities = ["read"] }');
    expect(await status('kept/plain')).toBe(403);
    expect((await control(server, 'POST', '/snapshots/acl-kept/restore')).status).toBe(200);
    expect(await status('kept/plain')).toBe(200);
  });

  it('renders a templated rule again when the entity it names changes', async () => {
    expect(await status('people/ana')).toBe(200);
    expect(await status('people/bea')).toBe(403);
    expect((await v1(server, 'POST', `identity/entity/id/${entityId}`, { body: { name: 'bea' } })).status).toBe(204);
    expect(await status('people/ana')).toBe(403);
    expect(await status('people/bea')).toBe(200);
    expect((await v1(server, 'POST', `identity/entity/id/${entityId}`, { body: { name: 'ana' } })).status).toBe(204);
    expect(await status('people/ana')).toBe(200);
  });

  it("follows the policies an entity's groups give, and the entity being disabled", async () => {
    await putPolicy(server, 'kept-group', 'path "secret/data/groups/x" { capabilities = ["read"] }');
    expect(await status('groups/x')).toBe(403);
    const group = await v1(server, 'POST', 'identity/group', {
      body: { name: 'kept', policies: ['kept-group'], member_entity_ids: [entityId] },
    });
    expect(group.status).toBe(200);
    expect(await status('groups/x')).toBe(200);
    expect((await v1(server, 'POST', `identity/group/id/${group.body.data.id}`, { body: { policies: [] } })).status).toBe(204);
    expect(await status('groups/x')).toBe(403);

    expect(await status('kept/plain')).toBe(200);
    expect((await v1(server, 'POST', `identity/entity/id/${entityId}`, { body: { disabled: true } })).status).toBe(204);
    expect(await status('kept/plain')).toBe(403);
    expect((await v1(server, 'POST', `identity/entity/id/${entityId}`, { body: { disabled: false } })).status).toBe(204);
    expect(await status('kept/plain')).toBe(200);
  });
});
