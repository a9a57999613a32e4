import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { v1 } from '../core/client.js';

describe('identity store: bad input', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('answers malformed writes with 400s and the real texts, and changes nothing', async () => {
    const cases: [string, unknown, string][] = [
      ['identity/entity', { metadata: ['a'] }, 'error converting input'],
      ['identity/entity', { policies: { a: 1 } }, 'error converting input'],
      ['identity/entity', { id: 'nope', name: 'x' }, 'entity not found from id'],
      ['identity/group', { type: 'other' }, 'invalid group type'],
      ['identity/group', { member_entity_ids: ['missing'] }, 'invalid entity ID "missing"'],
      ['identity/group', { member_group_ids: ['missing'] }, 'invalid member group ID "missing"'],
      ['identity/group', { type: 'external', member_entity_ids: ['x'] }, "member entities can't be set manually for external groups"],
      ['identity/group-alias', { mount_accessor: 'x' }, 'missing alias name'],
      ['identity/group-alias', { name: 'x' }, 'missing mount_accessor'],
      ['identity/entity-alias', { name: 'x' }, "'id' or 'mount_accessor' and 'name' must be provided"],
      ['identity/entity/merge', { to_entity_id: 'x' }, 'missing entity ids to merge from'],
      ['identity/lookup/entity', { id: 'a', name: 'b' }, 'query parameter conflict'],
    ];
    for (const [path, body, text] of cases) {
      const reply = await v1(server, 'POST', path, { body });
      expect(reply.status, `${path} ${JSON.stringify(body)}`).toBe(400);
      expect(reply.body.errors.join(' ')).toContain(text);
    }
    // None of the refused writes left a record behind.
    expect((await v1(server, 'GET', 'identity/entity/id?list=true')).status).toBe(404);
    expect((await v1(server, 'GET', 'identity/group/id?list=true')).status).toBe(404);
  });

  it('refuses a group that would contain itself', async () => {
    const group = (await v1(server, 'POST', 'identity/group', { body: { name: 'g' } })).body.data.id as string;
    const self = await v1(server, 'POST', `identity/group/id/${group}`, { body: { member_group_ids: [group] } });
    expect(self.status).toBe(400);
    expect(self.body.errors[0]).toContain(`member group ID "${group}" is same as the ID of the group`);
  });
});
