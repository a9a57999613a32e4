import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform } from '../../helpers/app.js';
import { control, ORG, OTHER_ORG, startWorld, type World } from '../workspaces/world.js';

const MEMBERSHIPS = `/organizations/${ORG}/organization-memberships`;
const invite = (email: unknown, teams: string[] = []) => ({
  data: {
    type: 'organization-memberships',
    attributes: { email },
    relationships: { teams: { data: teams.map((id) => ({ type: 'teams', id })) } },
  },
});

describe('organization memberships', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld(
      {},
      {
        organizations: [
          { name: 'limited', email: 'x@limited.test', owners: ['owner'], 'membership-limit': 2 },
          { name: 'welcoming', email: 'x@welcoming.test', owners: ['owner'], 'auto-accept-invitations': true },
        ],
      },
    );
  });
  afterAll(() => world.close());

  it('invites a new address: 201, invited, a new user in included, the given teams', async () => {
    const teams = [world.teams['plain']!, world.teams['readers']!];
    const { status, body } = await platform(world.server, 'POST', MEMBERSHIPS, { body: invite('New.Person@Example.test', teams) });
    expect(status).toBe(201);
    expect(body.data).toMatchObject({
      type: 'organization-memberships',
      attributes: { status: 'invited', email: 'new.person@example.test' },
      relationships: {
        organization: { data: { id: ORG, type: 'organizations' } },
        teams: { data: teams.map((id) => ({ id, type: 'teams' })) },
      },
    });
    expect(body.data.id).toMatch(/^ou-/);
    const user = body.included[0];
    expect(user).toMatchObject({
      type: 'users',
      id: body.data.relationships.user.data.id,
      attributes: { email: 'new.person@example.test', 'is-service-account': false, 'two-factor': { enabled: false, verified: false } },
    });
    expect(user.attributes.permissions).toMatchObject({
      'can-create-organizations': false,
      'can-change-email': true,
      'can-change-username': true,
      'can-manage-user-tokens': true,
    });
    expect(user.relationships['authentication-tokens'].links.related).toBe(`/api/v2/users/${user.id}/authentication-tokens`);
    expect(user.links.self).toBe(`/api/v2/users/${user.id}`);
    // Create with its included user equals read with include=user.
    const read = await platform(world.server, 'GET', `/organization-memberships/${body.data.id}?include=user`);
    expect(read.body).toEqual(body);
  });

  it('reuses an existing account with that email', async () => {
    const team = (await platform(world.server, 'GET', `/organizations/${OTHER_ORG}/teams`)).body.data[0].id;
    const { status, body } = await platform(world.server, 'POST', `/organizations/${OTHER_ORG}/organization-memberships`, {
      body: invite('MEMBER@acme.test', [team]),
    });
    expect(status).toBe(201);
    const users = await platform(world.server, 'GET', '/admin/users?q=member@acme.test');
    expect(users.body.data).toHaveLength(1);
    expect(body.data.relationships.user.data.id).toBe(users.body.data[0].id);
    expect(body.included[0].attributes.username).toBe('member');
  });

  it('validates the email, the teams and duplicates (422)', async () => {
    const cases = [
      invite('not-an-email-address', [world.teams['plain']!]),
      invite(undefined, [world.teams['plain']!]),
      invite('x@y.test', ['team-nope']),
      invite('x@y.test', [(await platform(world.server, 'GET', `/organizations/${OTHER_ORG}/teams`)).body.data[0].id]),
      invite('member@acme.test', [world.teams['plain']!]),
      invite('no-team@example.test', []),
      { data: { type: 'users', attributes: { email: 'a@b.test' } } },
    ];
    for (const body of cases) expect((await platform(world.server, 'POST', MEMBERSHIPS, { body })).status, JSON.stringify(body)).toBe(422);
    expect(
      (await platform(world.server, 'POST', '/organizations/nope/organization-memberships', { body: invite('a@b.test', []) })).status,
    ).toBe(404);
  });

  it('refuses an invitation beyond the membership limit with 400, and the limit is settable', async () => {
    const team = (await platform(world.server, 'GET', '/organizations/limited/teams')).body.data[0].id;
    expect(
      (
        await platform(world.server, 'POST', '/organizations/limited/organization-memberships', {
          body: invite('first@limited.test', [team]),
        })
      ).status,
    ).toBe(201);
    const refused = await platform(world.server, 'POST', '/organizations/limited/organization-memberships', {
      body: invite('second@limited.test', [team]),
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].status).toBe('400');
    expect((await control(world.server, 'PATCH', '/organizations/limited', { 'membership-limit': 3 })).body['membership-limit']).toBe(3);
    expect(
      (
        await platform(world.server, 'POST', '/organizations/limited/organization-memberships', {
          body: invite('second@limited.test', [team]),
        })
      ).status,
    ).toBe(201);
    expect((await control(world.server, 'PATCH', '/organizations/limited', { 'membership-limit': 'many' })).status).toBe(400);
    expect((await control(world.server, 'PATCH', '/organizations/nope', {})).status).toBe(404);
  });

  it('lists with status counts, q, filter[status], filter[email] and pagination', async () => {
    const all = await platform(world.server, 'GET', `${MEMBERSHIPS}?page[size]=100`);
    expect(all.status).toBe(200);
    const counts = all.body.meta['status-counts'];
    expect(counts.total).toBe(all.body.meta.pagination['total-count']);
    expect(counts.invited).toBe(1);
    expect(counts.active).toBe(counts.total - 1);
    const invited = await platform(world.server, 'GET', `${MEMBERSHIPS}?filter[status]=invited`);
    expect(invited.body.data.map((item: { attributes: { email: string } }) => item.attributes.email)).toEqual(['new.person@example.test']);
    const byEmail = await platform(
      world.server,
      'GET',
      `${MEMBERSHIPS}?filter%5Bemail%5D=${encodeURIComponent('owner@acme.test,reader@acme.test')}`,
    );
    expect(byEmail.body.data.map((item: { attributes: { email: string } }) => item.attributes.email).sort()).toEqual([
      'owner@acme.test',
      'reader@acme.test',
    ]);
    const q = await platform(world.server, 'GET', `${MEMBERSHIPS}?q=new.person`);
    expect(q.body.data).toHaveLength(1);
    const far = await platform(world.server, 'GET', `${MEMBERSHIPS}?page[number]=999&page[size]=100`);
    expect(far.body.data).toEqual([]);
    expect(far.body.meta.pagination).toMatchObject({ 'current-page': 999, 'total-count': counts.total });
    expect((await platform(world.server, 'GET', `${MEMBERSHIPS}?filter[status]=gone`)).status).toBe(400);
    expect((await platform(world.server, 'GET', '/organizations/nope/organization-memberships')).status).toBe(404);
  });

  it('serializes a membership identically in list and show, with the user as an id only without include', async () => {
    const listed = (await platform(world.server, 'GET', `${MEMBERSHIPS}?filter[status]=invited`)).body.data[0];
    const shown = await platform(world.server, 'GET', `/organization-memberships/${listed.id}`);
    expect(shown.body.data).toEqual(listed);
    expect(shown.body.included).toBeUndefined();
    expect(listed.relationships.user).toEqual({ data: { id: listed.relationships.user.data.id, type: 'users' } });
  });

  it('includes user and teams; any other include is a 400 naming the include parameter', async () => {
    const listed = await platform(world.server, 'GET', `${MEMBERSHIPS}?filter[status]=invited&include=user,teams`);
    expect(listed.body.included.map((item: { type: string }) => item.type).sort()).toEqual(['teams', 'teams', 'users']);
    const bad = await platform(world.server, 'GET', `${MEMBERSHIPS}?include=users`);
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].detail).toContain('include parameter');
    expect((await platform(world.server, 'GET', `/organization-memberships/ou-x?include=orgs`)).status).toBe(400);
  });

  it('makes the invite count only once accepted', async () => {
    const teams = [world.teams['readers']!];
    const created = await platform(world.server, 'POST', MEMBERSHIPS, {
      body: invite('reader@elsewhere.test', teams),
      token: world.principals.people,
    });
    expect(created.status).toBe(201);
    const userId = created.body.data.relationships.user.data.id;
    const token = await platform(world.server, 'POST', `/users/${userId}/authentication-tokens`, {
      body: { data: { type: 'authentication-tokens', attributes: { description: 't' } } },
    });
    const userToken = token.body.data.attributes.token;
    expect((await platform(world.server, 'GET', `/organizations/${ORG}/workspaces`, { token: userToken })).status).toBe(404);
    const own = await platform(world.server, 'GET', '/organization-memberships', { token: userToken });
    expect(own.body.data.map((item: { id: string }) => item.id)).toEqual([created.body.data.id]);
    const accepted = await control(world.server, 'POST', `/organization-memberships/${created.body.data.id}/accept`);
    expect(accepted.body).toEqual({ id: created.body.data.id, status: 'active' });
    expect((await control(world.server, 'POST', `/organization-memberships/${created.body.data.id}/accept`)).status).toBe(409);
    expect((await control(world.server, 'POST', '/organization-memberships/ou-nope/accept')).status).toBe(404);
    expect((await platform(world.server, 'GET', `/organizations/${ORG}/workspaces`, { token: userToken })).status).toBe(200);
    expect(
      (await platform(world.server, 'GET', `/organization-memberships/${created.body.data.id}`, { token: userToken })).body.data.attributes
        .status,
    ).toBe('active');
  });

  it("lists the caller's own memberships across organizations", async () => {
    const own = await platform(world.server, 'GET', '/organization-memberships', { token: world.principals.owner });
    expect(own.status).toBe(200);
    expect(
      own.body.data
        .map((item: { relationships: { organization: { data: { id: string } } } }) => item.relationships.organization.data.id)
        .sort(),
    ).toEqual([ORG, 'limited', 'welcoming']);
    expect((await platform(world.server, 'GET', '/organization-memberships', { token: world.principals.orgtoken })).body.data).toEqual([]);
  });

  it('removes a member (204) and their team places; 403 for removing yourself from an organization you own', async () => {
    const target = (await platform(world.server, 'GET', `${MEMBERSHIPS}?filter[email]=member@acme.test`)).body.data[0];
    const removed = await platform(world.server, 'DELETE', `/organization-memberships/${target.id}`, { token: world.principals.people });
    expect(removed.status).toBe(204);
    expect(removed.body).toBeUndefined();
    expect((await platform(world.server, 'GET', `/organization-memberships/${target.id}`)).status).toBe(404);
    expect((await platform(world.server, 'DELETE', `/organization-memberships/${target.id}`)).status).toBe(404);
    const plain = await platform(world.server, 'GET', `/teams/${world.teams['plain']}`);
    expect(plain.body.data.relationships.users.data).toEqual([]);
    const mine = (await platform(world.server, 'GET', `${MEMBERSHIPS}?filter[email]=owner@acme.test`)).body.data[0];
    const self = await platform(world.server, 'DELETE', `/organization-memberships/${mine.id}`, { token: world.principals.owner });
    expect(self.status).toBe(403);
    expect((await platform(world.server, 'DELETE', '/organization-memberships/not-an-identifier')).status).toBe(404);
  });

  it('never removes the last owner', async () => {
    const owner = (await platform(world.server, 'GET', `${MEMBERSHIPS}?filter[email]=owner@acme.test`)).body.data[0];
    const refused = await platform(world.server, 'DELETE', `/organization-memberships/${owner.id}`, { token: world.principals.orgtoken });
    expect(refused.status).toBe(422);
  });

  it('auto-accepts invitations where the seed says so', async () => {
    const team = (await platform(world.server, 'GET', '/organizations/welcoming/teams')).body.data[0].id;
    const created = await platform(world.server, 'POST', '/organizations/welcoming/organization-memberships', {
      body: invite('seeded@example.test', [team]),
    });
    expect(created.body.data.attributes.status).toBe('active');
  });

  it('auto-accepts invitations once the control plane says so', async () => {
    await control(world.server, 'PATCH', `/organizations/${OTHER_ORG}`, { 'auto-accept-invitations': true });
    const team = (await platform(world.server, 'GET', `/organizations/${OTHER_ORG}/teams`)).body.data[0].id;
    const created = await platform(world.server, 'POST', `/organizations/${OTHER_ORG}/organization-memberships`, {
      body: invite('fast@example.test', [team]),
    });
    expect(created.body.data.attributes.status).toBe('active');
  });
});
