import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, platform, startServer, type TestServer } from '../../helpers/app.js';
import { createUserWithToken, teamId } from './helpers.js';

describe('users and the account', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('account/details describes the token user with every attribute real clients read', async () => {
    const { status, body } = await platform(server, 'GET', '/account/details');
    expect(status).toBe(200);
    const { data } = body;
    expect(data.id).toMatch(/^user-/);
    expect(data.type).toBe('users');
    expect(data.links.self).toBe(`/api/v2/users/${data.id}`);
    expect(data.relationships['authentication-tokens'].links.related).toBe(`/api/v2/users/${data.id}/authentication-tokens`);
    expect(data.attributes).toMatchObject({
      username: 'admin',
      email: 'admin@understudy.test',
      'unconfirmed-email': null,
      'is-service-account': false,
      'two-factor': { enabled: false, verified: false },
      'v2-only': false,
      'is-site-admin': true,
      'is-admin': true,
      'is-sso-login': false,
      permissions: {
        'can-create-organizations': true,
        'can-change-email': true,
        'can-change-username': true,
        'can-manage-user-tokens': true,
        'can-view2fa-settings': true,
        'can-manage-hcp-account': false,
      },
    });
    expect(data.attributes['avatar-url']).toMatch(/^https:\/\//);
  });

  it('GET /users/:id shows a user to themself, a site administrator and fellow members only', async () => {
    const carol = await createUserWithToken(server, 'carol');
    const dave = await createUserWithToken(server, 'dave');
    const me = await platform(server, 'GET', '/account/details', { token: carol.token });
    expect((await platform(server, 'GET', `/users/${carol.id}`, { token: carol.token })).body.data).toEqual(me.body.data);
    expect((await platform(server, 'GET', `/users/${carol.id}`)).status).toBe(200);
    expect((await platform(server, 'GET', `/users/${carol.id}`, { token: dave.token })).status).toBe(404);
    expect((await platform(server, 'GET', '/users/user-doesnotexist', { token: dave.token })).status).toBe(404);
    // Ordinary users are not site administrators and cannot create organizations here.
    expect(me.body.data.attributes).toMatchObject({ 'is-site-admin': false, permissions: { 'can-create-organizations': false } });
    // The admin (an owner of "understudy") is visible to the owners team's token.
    const owners = await teamId(server, 'understudy', 'owners');
    const teamToken = (await platform(server, 'POST', `/teams/${owners}/authentication-token`)).body.data.attributes.token;
    const admin = (await platform(server, 'GET', '/account/details')).body.data;
    expect((await platform(server, 'GET', `/users/${admin.id}`, { token: teamToken })).status).toBe(200);
  });

  it('account/details for team and organization tokens is a synthetic service account', async () => {
    const owners = await teamId(server, 'understudy', 'owners');
    const teamToken = (await platform(server, 'POST', `/teams/${owners}/authentication-token`)).body.data.attributes.token;
    const team = await platform(server, 'GET', '/account/details', { token: teamToken });
    expect(team.status).toBe(200);
    expect(team.body.data.attributes).toMatchObject({
      'is-service-account': true,
      'is-site-admin': false,
      permissions: { 'can-change-email': false },
    });
    expect(team.body.data.attributes.username).toMatch(/^api-team_/);
    const again = await platform(server, 'GET', '/account/details', { token: teamToken });
    expect(again.body.data.id).toBe(team.body.data.id);
    // They have no account to update.
    expect(
      (
        await platform(server, 'PATCH', '/account/update', {
          token: teamToken,
          body: { data: { type: 'users', attributes: { username: 'x' } } },
        })
      ).status,
    ).toBe(404);
  });

  it('account/update changes username and email, validating both', async () => {
    const erin = await createUserWithToken(server, 'erin');
    const updated = await platform(server, 'PATCH', '/account/update', {
      token: erin.token,
      body: { data: { type: 'users', attributes: { username: 'erin2', email: 'Erin2@Example.test' } } },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data.attributes).toMatchObject({ username: 'erin2', email: 'erin2@example.test' });
    expect((await platform(server, 'GET', '/account/details', { token: erin.token })).body.data.attributes.username).toBe('erin2');

    for (const [attributes, pointer] of [
      [{ username: 'admin' }, '/data/attributes/username'],
      [{ username: 'has space' }, '/data/attributes/username'],
      [{ email: 'admin@understudy.test' }, '/data/attributes/email'],
      [{ email: 'not-an-email' }, '/data/attributes/email'],
      [{ username: 7 }, '/data/attributes/username'],
    ] as const) {
      const { status, body } = await platform(server, 'PATCH', '/account/update', {
        token: erin.token,
        body: { data: { type: 'users', attributes } },
      });
      expect(status, JSON.stringify(attributes)).toBe(422);
      expect(body.errors[0].source.pointer).toBe(pointer);
    }
    // go-tfe sends no type on this body.
    const typeless = await platform(server, 'PATCH', '/account/update', {
      token: erin.token,
      body: { data: { type: '', attributes: { username: 'erin3' } } },
    });
    expect(typeless.status).toBe(200);
  });

  describe('admin users (an understudy extension)', () => {
    it('lets a site administrator create and list users', async () => {
      const created = await platform(server, 'POST', '/admin/users', {
        body: { data: { type: 'users', attributes: { username: 'frank', email: 'frank@example.test' } } },
      });
      expect(created.status).toBe(201);
      expect(created.body.data.attributes).toMatchObject({ username: 'frank', 'is-site-admin': false });
      const admin2 = await platform(server, 'POST', '/admin/users', {
        body: { data: { type: 'users', attributes: { username: 'grace', email: 'grace@example.test', 'is-site-admin': true } } },
      });
      expect(admin2.body.data.attributes['is-site-admin']).toBe(true);

      const list = await platform(server, 'GET', '/admin/users?q=FRANK');
      expect(list.status).toBe(200);
      expect(list.body.data.map((user: { attributes: { username: string } }) => user.attributes.username)).toEqual(['frank']);
      const admins = await platform(server, 'GET', '/admin/users?filter[admin]=true');
      expect(admins.body.data.map((user: { attributes: { username: string } }) => user.attributes.username).sort()).toEqual([
        'admin',
        'grace',
      ]);
      expect(admins.body.meta.pagination['total-count']).toBe(2);

      const duplicate = await platform(server, 'POST', '/admin/users', {
        body: { data: { type: 'users', attributes: { username: 'frank', email: 'other@example.test' } } },
      });
      expect(duplicate.status).toBe(422);
      expect(duplicate.body.errors[0].source.pointer).toBe('/data/attributes/username');
      const missing = await platform(server, 'POST', '/admin/users', {
        body: { data: { type: 'users', attributes: { username: 'henry' } } },
      });
      expect(missing.status).toBe(422);
      expect(missing.body.errors[0].source.pointer).toBe('/data/attributes/email');
    });

    it('is a 404 for anyone else, before looking at the body', async () => {
      const ida = await createUserWithToken(server, 'ida');
      expect((await platform(server, 'GET', '/admin/users', { token: ida.token })).status).toBe(404);
      expect(
        (
          await platform(server, 'POST', '/admin/users', {
            token: ida.token,
            body: { data: { type: 'users', attributes: { username: 'x', email: 'x@y.z' } } },
          })
        ).status,
      ).toBe(404);
      expect((await platform(server, 'GET', '/admin/users', { token: ADMIN_TOKEN })).status).toBe(200);
    });
  });
});
