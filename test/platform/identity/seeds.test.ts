import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, platform, startServer, type TestServer } from '../../helpers/app.js';
import { writeSeed } from './helpers.js';

const SEED = {
  users: [
    { username: 'root', email: 'root@seeded.test', 'site-admin': true },
    { username: 'quinn', email: 'quinn@seeded.test', tokens: ['quinn-token-1', 'quinn-token-2'] },
    { username: 'riley', email: 'riley@seeded.test', tokens: ['riley-token'] },
    { username: 'sam', email: 'sam@seeded.test', tokens: ['sam-token'] },
    { username: 'loner', email: 'loner@seeded.test', tokens: ['loner-token'] },
  ],
  organizations: [
    {
      name: 'seeded',
      email: 'owners@seeded.test',
      owners: ['quinn'],
      teams: [
        { name: 'people-ops', 'organization-access': { 'manage-teams': true }, members: ['riley'] },
        { name: 'readers', 'organization-access': { 'read-workspaces': true }, members: ['sam', 'riley'] },
      ],
    },
  ],
};

describe('principals from a seed file', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ UNDERSTUDY_SEED: writeSeed(SEED) });
  });
  afterAll(() => server.close());

  const createTeam = (token: string, name: string) =>
    platform(server, 'POST', '/organizations/seeded/teams', { token, body: { data: { type: 'teams', attributes: { name } } } });

  it("gives the configured admin token to the seed's site administrator", async () => {
    const { body } = await platform(server, 'GET', '/account/details', { token: ADMIN_TOKEN });
    expect(body.data.attributes).toMatchObject({ username: 'root', 'is-site-admin': true });
  });

  it('makes every seeded user token work for its user', async () => {
    for (const [token, username] of [
      ['quinn-token-1', 'quinn'],
      ['quinn-token-2', 'quinn'],
      ['riley-token', 'riley'],
      ['loner-token', 'loner'],
    ]) {
      const { status, body } = await platform(server, 'GET', '/account/details', { token });
      expect(status, token).toBe(200);
      expect(body.data.attributes.username).toBe(username);
    }
  });

  it('grants seeded owners, team flags and plain membership what they imply', async () => {
    const owner = await platform(server, 'GET', '/organizations/seeded', { token: 'quinn-token-1' });
    expect(owner.body.data.attributes.permissions).toMatchObject({
      'can-destroy': true,
      'can-create-team': true,
      'can-update-api-token': true,
    });

    const manager = await platform(server, 'GET', '/organizations/seeded', { token: 'riley-token' });
    expect(manager.body.data.attributes.permissions).toMatchObject({
      'can-destroy': false,
      'can-create-team': true,
      'can-manage-users': true,
    });
    expect((await createTeam('riley-token', 'made-by-riley')).status).toBe(201);

    const reader = await platform(server, 'GET', '/organizations/seeded', { token: 'sam-token' });
    expect(reader.status).toBe(200);
    expect(reader.body.data.attributes.permissions).toMatchObject({ 'can-create-team': false, 'can-update': false });
    expect((await createTeam('sam-token', 'made-by-sam')).status).toBe(404);

    expect((await platform(server, 'GET', '/organizations/seeded', { token: 'loner-token' })).status).toBe(404);
    expect((await platform(server, 'GET', '/organizations', { token: 'loner-token' })).body.data).toEqual([]);
  });

  it('seeded teams list their members and flags', async () => {
    const { body } = await platform(server, 'GET', '/organizations/seeded/teams?filter[names]=people-ops,readers&include=users', {
      token: 'quinn-token-1',
    });
    const byName = Object.fromEntries(body.data.map((team: { attributes: { name: string } }) => [team.attributes.name, team]));
    expect(byName['people-ops'].attributes).toMatchObject({
      'users-count': 1,
      'organization-access': { 'manage-teams': true, 'manage-workspaces': false },
    });
    expect(byName['readers'].attributes['users-count']).toBe(2);
    expect(body.included.map((user: { attributes: { username: string } }) => user.attributes.username).sort()).toEqual(['riley', 'sam']);
  });

  it('a reset restores the seeded principals and forgets tokens made through the API', async () => {
    const me = (await platform(server, 'GET', '/account/details', { token: 'sam-token' })).body.data;
    const made = await platform(server, 'POST', `/users/${me.id}/authentication-tokens`, { token: 'sam-token' });
    const secret = made.body.data.attributes.token;
    expect((await platform(server, 'GET', '/account/details', { token: secret })).status).toBe(200);
    const reset = await fetch(`${server.baseUrl}/_emulator/reset`, { method: 'POST' });
    expect(reset.status).toBe(200);
    expect((await platform(server, 'GET', '/account/details', { token: secret })).status).toBe(401);
    expect((await platform(server, 'GET', '/account/details', { token: 'sam-token' })).status).toBe(200);
    expect((await createTeam('riley-token', 'made-by-riley')).status).toBe(201);
  });
});
