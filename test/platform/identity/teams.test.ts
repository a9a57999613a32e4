import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { platform, startServer, type TestServer } from '../../helpers/app.js';
import { inviteDirectly, teamId, writeSeed } from './helpers.js';

const SEED = {
  users: [
    { username: 'admin', email: 'admin@teams.test', 'site-admin': true },
    { username: 'olivia', email: 'olivia@teams.test', tokens: ['token-of-olivia'] },
    { username: 'mason', email: 'mason@teams.test', tokens: ['token-of-mason'] },
    { username: 'ivy', email: 'ivy@teams.test', tokens: ['token-of-ivy'] },
    { username: 'stranger', email: 'stranger@teams.test' },
  ],
  organizations: [
    {
      name: 'acme',
      email: 'owners@acme.test',
      owners: ['olivia'],
      teams: [{ name: 'builders', members: ['mason'] }],
    },
  ],
};

const teamBody = (attributes: Record<string, unknown>) => ({ data: { type: 'teams', attributes } });
const members = (type: string, ...ids: string[]) => ({ data: ids.map((id) => ({ type, id })) });

describe('teams', () => {
  let server: TestServer;
  let owners: string;
  beforeAll(async () => {
    server = await startServer({ UNDERSTUDY_SEED: writeSeed(SEED) });
  });
  beforeEach(async () => {
    server.app.reset();
    owners = await teamId(server, 'acme', 'owners');
  });
  afterAll(() => server.close());

  it('creates a team with the attributes real clients send and read back', async () => {
    const created = await platform(server, 'POST', '/organizations/acme/teams', {
      body: teamBody({
        name: 'platform',
        visibility: 'organization',
        'sso-team-id': 'sso-1',
        'allow-member-token-management': false,
        'organization-access': { 'manage-policies': true, 'manage-modules': true, 'delegate-policy-overrides': true, 'not-a-flag': true },
      }),
    });
    expect(created.status).toBe(201);
    const { data } = created.body;
    expect(data.id).toMatch(/^team-/);
    expect(data.links.self).toBe(`/api/v2/teams/${data.id}`);
    expect(data.attributes).toMatchObject({
      name: 'platform',
      visibility: 'organization',
      'users-count': 0,
      'sso-team-id': 'sso-1',
      'allow-member-token-management': false,
      permissions: {
        'can-update-membership': true,
        'can-destroy': true,
        'can-update-organization-access': true,
        'can-update-api-token': true,
        'can-update-visibility': true,
      },
    });
    expect(data.attributes['organization-access']).toMatchObject({
      'manage-policies': true,
      'manage-modules': true,
      'delegate-policy-overrides': true,
      'manage-workspaces': false,
    });
    expect(data.attributes['organization-access']).not.toHaveProperty('not-a-flag');
    expect(data.relationships.organization.data).toEqual({ id: 'acme', type: 'organizations' });
    expect(data.relationships.users.data).toEqual([]);

    const read = await platform(server, 'GET', `/teams/${data.id}`);
    expect(read.body.data).toEqual(data);
  });

  it('defaults to secret visibility and validates attributes', async () => {
    const created = await platform(server, 'POST', '/organizations/acme/teams', { body: teamBody({ name: 'quiet' }) });
    expect(created.body.data.attributes.visibility).toBe('secret');
    // The real service takes names with spaces, and so do its clients' tests.
    const spaced = await platform(server, 'POST', '/organizations/acme/teams', { body: teamBody({ name: 'Team Alpha 2' }) });
    expect(spaced.status).toBe(201);
    expect((await platform(server, 'GET', `/teams/${spaced.body.data.id}`)).body.data.attributes.name).toBe('Team Alpha 2');
    for (const [attributes, pointer] of [
      [{}, '/data/attributes/name'],
      [{ name: '' }, '/data/attributes/name'],
      [{ name: 'has/slash' }, '/data/attributes/name'],
      [{ name: ' padded ' }, '/data/attributes/name'],
      [{ name: 'builders' }, '/data/attributes/name'],
      [{ name: 'owners' }, '/data/attributes/name'],
      [{ name: 'x', visibility: 'public' }, '/data/attributes/visibility'],
      [{ name: 'x', 'organization-access': 'all' }, '/data/attributes/organization-access'],
    ] as const) {
      const { status, body } = await platform(server, 'POST', '/organizations/acme/teams', { body: teamBody(attributes) });
      expect(status, JSON.stringify(attributes)).toBe(422);
      expect(body.errors[0].source.pointer, JSON.stringify(attributes)).toBe(pointer);
    }
  });

  it('protects the owners team: not deleted, not renamed, flags fixed', async () => {
    const deleted = await platform(server, 'DELETE', `/teams/${owners}`);
    expect(deleted.status).toBe(422);
    const renamed = await platform(server, 'PATCH', `/teams/${owners}`, { body: teamBody({ name: 'bosses' }) });
    expect(renamed.status).toBe(422);
    expect(renamed.body.errors[0].source.pointer).toBe('/data/attributes/name');
    const reflagged = await platform(server, 'PATCH', `/teams/${owners}`, {
      body: teamBody({ 'organization-access': { 'manage-workspaces': false } }),
    });
    expect(reflagged.status).toBe(422);
    // Resending what it already has (a provider's full update) is fine.
    const same = await platform(server, 'PATCH', `/teams/${owners}`, {
      body: teamBody({ name: 'owners', 'organization-access': { 'manage-workspaces': true } }),
    });
    expect(same.status).toBe(200);
    expect(same.body.data.attributes['organization-access']['manage-workspaces']).toBe(true);
    expect(same.body.data.attributes.permissions['can-destroy']).toBe(false);
  });

  it('renames and re-flags an ordinary team, keeping names unique', async () => {
    const builders = await teamId(server, 'acme', 'builders');
    const updated = await platform(server, 'PATCH', `/teams/${builders}`, {
      body: teamBody({ name: 'makers', visibility: 'organization', 'organization-access': { 'manage-workspaces': true } }),
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data.attributes).toMatchObject({
      name: 'makers',
      visibility: 'organization',
      'organization-access': { 'manage-workspaces': true },
    });
    await platform(server, 'POST', '/organizations/acme/teams', { body: teamBody({ name: 'other' }) });
    const clash = await platform(server, 'PATCH', `/teams/${builders}`, { body: teamBody({ name: 'other' }) });
    expect(clash.status).toBe(422);
    expect(clash.body.errors[0].source.pointer).toBe('/data/attributes/name');
    // The new flag takes effect for the team's members.
    const workspacesGranted = await platform(server, 'GET', '/organizations/acme', { token: 'token-of-mason' });
    expect(workspacesGranted.body.data.attributes.permissions['can-create-workspace']).toBe(true);
  });

  it('filters by q (case-insensitive substring) and filter[names] (exact, comma-separated)', async () => {
    for (const name of ['Alpha-one', 'alpha-two', 'beta'])
      await platform(server, 'POST', '/organizations/acme/teams', { body: teamBody({ name }) });
    const names = async (query: string) =>
      (await platform(server, 'GET', `/organizations/acme/teams?${query}`)).body.data
        .map((team: { attributes: { name: string } }) => team.attributes.name)
        .sort();
    expect(await names('q=ALPHA')).toEqual(['Alpha-one', 'alpha-two']);
    expect(await names('filter%5Bnames%5D=beta%2Cowners')).toEqual(['beta', 'owners']);
    expect(await names('filter[names]=nope')).toEqual([]);
    expect(await names('q=%25')).toEqual([]);
  });

  it('shows secret teams only to their members and to those who may see all of them', async () => {
    const secret = await platform(server, 'POST', '/organizations/acme/teams', { body: teamBody({ name: 'hidden' }) });
    const open = await platform(server, 'POST', '/organizations/acme/teams', {
      body: teamBody({ name: 'open', visibility: 'organization' }),
    });
    const seenBy = async (token: string) =>
      (await platform(server, 'GET', '/organizations/acme/teams', { token })).body.data
        .map((team: { attributes: { name: string } }) => team.attributes.name)
        .sort();
    // mason belongs to the secret team "builders" only.
    expect(await seenBy('token-of-mason')).toEqual(['builders', 'open']);
    expect(await seenBy('token-of-olivia')).toEqual(['builders', 'hidden', 'open', 'owners']);
    expect((await platform(server, 'GET', `/teams/${secret.body.data.id}`, { token: 'token-of-mason' })).status).toBe(404);
    expect((await platform(server, 'GET', `/teams/${open.body.data.id}`, { token: 'token-of-mason' })).status).toBe(200);
  });

  it('lets members manage their team token only while the team allows it', async () => {
    const builders = await teamId(server, 'acme', 'builders');
    const byMember = await platform(server, 'POST', `/teams/${builders}/authentication-token`, { token: 'token-of-mason' });
    expect(byMember.status).toBe(201);
    const read = await platform(server, 'GET', `/teams/${builders}`, { token: 'token-of-mason' });
    expect(read.body.data.attributes.permissions).toMatchObject({
      'can-update-api-token': true,
      'can-destroy': false,
      'can-update-membership': false,
    });

    await platform(server, 'PATCH', `/teams/${builders}`, { body: teamBody({ 'allow-member-token-management': false }) });
    expect((await platform(server, 'POST', `/teams/${builders}/authentication-token`, { token: 'token-of-mason' })).status).toBe(404);
    expect((await platform(server, 'DELETE', `/teams/${builders}/authentication-token`, { token: 'token-of-mason' })).status).toBe(404);
    expect((await platform(server, 'DELETE', `/authentication-tokens/${byMember.body.data.id}`, { token: 'token-of-mason' })).status).toBe(
      404,
    );
    // The team's own token acts with the team's permissions, which do not include its token.
    const teamToken = byMember.body.data.attributes.token;
    expect((await platform(server, 'POST', `/teams/${builders}/authentication-token`, { token: teamToken })).status).toBe(404);
    expect((await platform(server, 'DELETE', `/teams/${builders}/authentication-token`, { token: 'token-of-olivia' })).status).toBe(204);
  });

  describe('members', () => {
    it('adds and removes active members by username, and includes them', async () => {
      const builders = await teamId(server, 'acme', 'builders');
      expect(
        (await platform(server, 'POST', `/teams/${builders}/relationships/users`, { body: members('users', 'olivia', 'mason') })).status,
      ).toBe(204);
      const read = await platform(server, 'GET', `/teams/${builders}?include=users`);
      expect(read.body.data.attributes['users-count']).toBe(2);
      expect(read.body.data.relationships.users.data.map((user: { id: string }) => user.id)).toHaveLength(2);
      expect(read.body.included.map((user: { attributes: { username: string } }) => user.attributes.username).sort()).toEqual([
        'mason',
        'olivia',
      ]);
      expect(read.body.included[0]).toMatchObject({ type: 'users', attributes: { 'two-factor': { enabled: false, verified: false } } });

      expect((await platform(server, 'DELETE', `/teams/${builders}/relationships/users`, { body: members('users', 'mason') })).status).toBe(
        204,
      );
      const after = await platform(server, 'GET', `/teams/${builders}?include=users`);
      expect(after.body.included.map((user: { attributes: { username: string } }) => user.attributes.username)).toEqual(['olivia']);
    });

    it('refuses by username someone who is not an active member, pointing at the entry', async () => {
      const builders = await teamId(server, 'acme', 'builders');
      inviteDirectly(server, 'acme', 'ivy');
      for (const username of ['stranger', 'ivy', 'nobody-at-all']) {
        const { status, body } = await platform(server, 'POST', `/teams/${builders}/relationships/users`, {
          body: members('users', 'olivia', username),
        });
        expect(status, username).toBe(422);
        expect(body.errors[0].source.pointer).toBe('/data/1/id');
      }
      // Nothing was applied: the valid first entry was not added either.
      const read = await platform(server, 'GET', `/teams/${builders}`);
      expect(read.body.data.attributes['users-count']).toBe(1);
    });

    it('adds an invited user by membership id; the team lists the membership but not the user until accepted', async () => {
      const builders = await teamId(server, 'acme', 'builders');
      const membership = inviteDirectly(server, 'acme', 'ivy');
      expect(
        (
          await platform(server, 'POST', `/teams/${builders}/relationships/organization-memberships`, {
            body: members('organization-memberships', membership),
          })
        ).status,
      ).toBe(204);
      const read = await platform(server, 'GET', `/teams/${builders}?include=organization-memberships`);
      expect(read.body.data.attributes['users-count']).toBe(1);
      expect(read.body.data.relationships['organization-memberships'].data.map((m: { id: string }) => m.id)).toContain(membership);
      const included = read.body.included.find((m: { id: string }) => m.id === membership);
      expect(included).toMatchObject({ type: 'organization-memberships', attributes: { status: 'invited', email: 'ivy@teams.test' } });
      expect(included.relationships.teams.data).toEqual([{ id: builders, type: 'teams' }]);
      // The invitation grants nothing yet.
      expect((await platform(server, 'GET', '/organizations/acme', { token: 'token-of-ivy' })).status).toBe(404);

      expect(
        (
          await platform(server, 'DELETE', `/teams/${builders}/relationships/organization-memberships`, {
            body: members('organization-memberships', membership),
          })
        ).status,
      ).toBe(204);
      const unknown = await platform(server, 'POST', `/teams/${builders}/relationships/organization-memberships`, {
        body: members('organization-memberships', 'ou-nope'),
      });
      expect(unknown.status).toBe(422);
    });

    it('never leaves the owners team without a member', async () => {
      const last = await platform(server, 'DELETE', `/teams/${owners}/relationships/users`, { body: members('users', 'olivia') });
      expect(last.status).toBe(422);
      expect(
        (await platform(server, 'GET', '/organizations/acme', { token: 'token-of-olivia' })).body.data.attributes.permissions[
          'can-destroy'
        ],
      ).toBe(true);
      await platform(server, 'POST', `/teams/${owners}/relationships/users`, { body: members('users', 'mason') });
      expect((await platform(server, 'DELETE', `/teams/${owners}/relationships/users`, { body: members('users', 'olivia') })).status).toBe(
        204,
      );
      expect(
        (await platform(server, 'GET', '/organizations/acme', { token: 'token-of-olivia' })).body.data.attributes.permissions[
          'can-destroy'
        ],
      ).toBe(false);
    });

    it('rejects entries of the wrong type', async () => {
      const builders = await teamId(server, 'acme', 'builders');
      const { status, body } = await platform(server, 'POST', `/teams/${builders}/relationships/users`, {
        body: members('organization-memberships', 'mason'),
      });
      expect(status).toBe(422);
      expect(body.errors[0].source.pointer).toBe('/data/0/type');
    });
  });
});
