import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform, startServer, type TestServer } from '../../helpers/app.js';
import { createUserWithToken, teamId } from './helpers.js';

const HOUR = 3_600_000;

describe('authentication tokens', () => {
  let server: TestServer;
  let alice: { id: string; token: string };
  let bob: { id: string; token: string };

  beforeAll(async () => {
    server = await startServer();
    alice = await createUserWithToken(server, 'alice');
    bob = await createUserWithToken(server, 'bob');
  });
  afterAll(() => server.close());

  const tokenBody = (attributes: Record<string, unknown>) => ({ data: { type: 'authentication-tokens', attributes } });

  describe('user tokens', () => {
    it('a created token works as a bearer and is listed without its secret', async () => {
      const created = await platform(server, 'POST', `/users/${alice.id}/authentication-tokens`, {
        token: alice.token,
        body: tokenBody({ description: 'ci' }),
      });
      expect(created.status).toBe(201);
      const { data } = created.body;
      expect(data).toMatchObject({
        type: 'authentication-tokens',
        attributes: { description: 'ci', 'expired-at': null, 'last-used-at': null },
      });
      expect(data.id).toMatch(/^at-/);
      expect(data.attributes['created-at']).toMatch(/Z$/);
      expect(data.relationships['created-by'].data).toEqual({ id: alice.id, type: 'users' });
      const secret = data.attributes.token as string;
      expect(secret.length).toBeGreaterThan(30);

      const me = await platform(server, 'GET', '/account/details', { token: secret });
      expect(me.status).toBe(200);
      expect(me.body.data.id).toBe(alice.id);

      const list = await platform(server, 'GET', `/users/${alice.id}/authentication-tokens`, { token: alice.token });
      expect(list.status).toBe(200);
      const listed = list.body.data.find((token: { id: string }) => token.id === data.id);
      expect(listed.attributes.token).toBeNull();
      expect(listed.attributes['last-used-at']).toMatch(/Z$/);
      expect(JSON.stringify(list.body)).not.toContain(secret);

      const shown = await platform(server, 'GET', `/authentication-tokens/${data.id}`, { token: alice.token });
      expect(shown.status).toBe(200);
      expect(shown.body.data.attributes.token).toBeNull();
    });

    it('a deleted token stops working at once', async () => {
      const created = await platform(server, 'POST', `/users/${alice.id}/authentication-tokens`, {
        token: alice.token,
        body: tokenBody({}),
      });
      const secret = created.body.data.attributes.token;
      expect((await platform(server, 'GET', '/account/details', { token: secret })).status).toBe(200);
      expect((await platform(server, 'DELETE', `/authentication-tokens/${created.body.data.id}`, { token: alice.token })).status).toBe(204);
      expect((await platform(server, 'GET', '/account/details', { token: secret })).status).toBe(401);
      expect((await platform(server, 'GET', `/authentication-tokens/${created.body.data.id}`, { token: alice.token })).status).toBe(404);
    });

    it('a token stops working once the clock passes its expired-at', async () => {
      const expiresAt = new Date(server.app.runtime.clock.nowMs() + HOUR).toISOString();
      const created = await platform(server, 'POST', `/users/${alice.id}/authentication-tokens`, {
        token: alice.token,
        body: tokenBody({ 'expired-at': expiresAt }),
      });
      expect(created.status).toBe(201);
      expect(created.body.data.attributes['expired-at']).toBe(expiresAt);
      const secret = created.body.data.attributes.token;
      expect((await platform(server, 'GET', '/account/details', { token: secret })).status).toBe(200);
      server.app.runtime.clock.advance(HOUR + 1);
      expect((await platform(server, 'GET', '/account/details', { token: secret })).status).toBe(401);
      // Tokens without an expiry are unaffected.
      expect((await platform(server, 'GET', '/account/details', { token: alice.token })).status).toBe(200);
    });

    it('refuses an expiry in the past or not a timestamp with 422', async () => {
      const past = new Date(server.app.runtime.clock.nowMs() - 1000).toISOString();
      for (const value of [past, 'tomorrow', 42, 'Tue, 01 Jan 2030 00:00:00 GMT', '+275760-09-13T00:00:00.000Z', '2030-02-30T00:00:00']) {
        const { status, body } = await platform(server, 'POST', `/users/${alice.id}/authentication-tokens`, {
          token: alice.token,
          body: tokenBody({ 'expired-at': value }),
        });
        expect(status, String(value)).toBe(422);
        expect(body.errors[0].source.pointer).toBe('/data/attributes/expired-at');
      }
    });

    it("accepts go-tfe's body with an empty type, and no body at all", async () => {
      const emptyType = await platform(server, 'POST', `/users/${alice.id}/authentication-tokens`, {
        token: alice.token,
        body: { data: { type: '', attributes: { description: 'x' } } },
      });
      expect(emptyType.status).toBe(201);
      const noBody = await platform(server, 'POST', `/users/${alice.id}/authentication-tokens`, { token: alice.token });
      expect(noBody.status).toBe(201);
    });

    it("only the user or a site administrator sees or manages a user's tokens", async () => {
      const own = await platform(server, 'POST', `/users/${alice.id}/authentication-tokens`, { token: alice.token, body: tokenBody({}) });
      expect((await platform(server, 'GET', `/users/${alice.id}/authentication-tokens`, { token: bob.token })).status).toBe(404);
      expect(
        (await platform(server, 'POST', `/users/${alice.id}/authentication-tokens`, { token: bob.token, body: tokenBody({}) })).status,
      ).toBe(404);
      expect((await platform(server, 'GET', `/authentication-tokens/${own.body.data.id}`, { token: bob.token })).status).toBe(404);
      expect((await platform(server, 'DELETE', `/authentication-tokens/${own.body.data.id}`, { token: bob.token })).status).toBe(404);
      // The site administrator may.
      expect((await platform(server, 'GET', `/users/${alice.id}/authentication-tokens`)).status).toBe(200);
      expect((await platform(server, 'GET', `/authentication-tokens/${own.body.data.id}`)).status).toBe(200);
      expect((await platform(server, 'GET', `/users/user-nope/authentication-tokens`)).status).toBe(404);
    });
  });

  describe('team token', () => {
    it('is created, replaced by a second POST, read without its secret, and deleted', async () => {
      const owners = await teamId(server, 'understudy', 'owners');
      const first = await platform(server, 'POST', `/teams/${owners}/authentication-token`);
      expect(first.status).toBe(201);
      const firstSecret = first.body.data.attributes.token;
      const me = await platform(server, 'GET', '/account/details', { token: firstSecret });
      expect(me.body.data.attributes).toMatchObject({ 'is-service-account': true });

      const second = await platform(server, 'POST', `/teams/${owners}/authentication-token`, {
        body: { data: { type: 'authentication-token', attributes: {} } },
      });
      expect(second.status).toBe(201);
      expect((await platform(server, 'GET', '/account/details', { token: firstSecret })).status).toBe(401);
      const secondSecret = second.body.data.attributes.token;
      expect((await platform(server, 'GET', '/organizations/understudy', { token: secondSecret })).status).toBe(200);

      const read = await platform(server, 'GET', `/teams/${owners}/authentication-token`);
      expect(read.status).toBe(200);
      expect(read.body.data).toMatchObject({ id: second.body.data.id, attributes: { token: null } });
      // Every team-token document names its team.
      const teamRef = { data: { id: owners, type: 'teams' } };
      expect(second.body.data.relationships.team).toEqual(teamRef);
      expect(read.body.data.relationships.team).toEqual(teamRef);
      const byId = await platform(server, 'GET', `/authentication-tokens/${second.body.data.id}`);
      expect(byId.body.data.relationships.team).toEqual(teamRef);

      expect((await platform(server, 'DELETE', `/teams/${owners}/authentication-token`)).status).toBe(204);
      expect((await platform(server, 'GET', '/account/details', { token: secondSecret })).status).toBe(401);
      expect((await platform(server, 'GET', `/teams/${owners}/authentication-token`)).status).toBe(404);
      expect((await platform(server, 'DELETE', `/teams/${owners}/authentication-token`)).status).toBe(404);
    });

    it('dies with its team', async () => {
      const team = await platform(server, 'POST', '/organizations/understudy/teams', {
        body: { data: { type: 'teams', attributes: { name: 'short-lived' } } },
      });
      const token = await platform(server, 'POST', `/teams/${team.body.data.id}/authentication-token`);
      const secret = token.body.data.attributes.token;
      expect((await platform(server, 'GET', '/organizations/understudy', { token: secret })).status).toBe(200);
      expect((await platform(server, 'DELETE', `/teams/${team.body.data.id}`)).status).toBe(204);
      expect((await platform(server, 'GET', '/organizations/understudy', { token: secret })).status).toBe(401);
    });
  });

  describe('organization token', () => {
    it('is one per organization: a second POST revokes the first', async () => {
      const first = await platform(server, 'POST', '/organizations/understudy/authentication-token');
      expect(first.status).toBe(201);
      expect(first.body.data.type).toBe('authentication-tokens');
      const firstSecret = first.body.data.attributes.token;
      const me = await platform(server, 'GET', '/account/details', { token: firstSecret });
      expect(me.status).toBe(200);
      expect(me.body.data.attributes).toMatchObject({ 'is-service-account': true, username: 'api-org-understudy' });

      const second = await platform(server, 'POST', '/organizations/understudy/authentication-token', {
        body: { data: { type: '', attributes: {} } },
      });
      expect(second.status).toBe(201);
      expect((await platform(server, 'GET', '/organizations/understudy', { token: firstSecret })).status).toBe(401);
      const secondSecret = second.body.data.attributes.token;
      expect((await platform(server, 'GET', '/organizations/understudy', { token: secondSecret })).status).toBe(200);

      const read = await platform(server, 'GET', '/organizations/understudy/authentication-token', { token: secondSecret });
      expect(read.body.data).toMatchObject({ id: second.body.data.id, attributes: { token: null } });
      expect(read.body.data.relationships.team).toBeUndefined();
      // Through the generic token path too, for someone who manages it.
      expect((await platform(server, 'GET', `/authentication-tokens/${second.body.data.id}`)).status).toBe(200);
      expect((await platform(server, 'GET', `/authentication-tokens/${second.body.data.id}`, { token: alice.token })).status).toBe(404);

      expect((await platform(server, 'DELETE', '/organizations/understudy/authentication-token')).status).toBe(204);
      expect((await platform(server, 'GET', '/organizations/understudy', { token: secondSecret })).status).toBe(401);
    });
  });
});

describe('several team tokens', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  const makeTeam = async (name: string) =>
    (await platform(server, 'POST', '/organizations/understudy/teams', { body: { data: { type: 'teams', attributes: { name } } } })).body
      .data.id as string;
  const described = (teamId: string, attributes: Record<string, unknown>) =>
    platform(server, 'POST', `/teams/${teamId}/authentication-tokens`, { body: { data: { type: 'authentication-tokens', attributes } } });

  it('issues described tokens beside the legacy one, refuses a repeated description, and expires them in two years', async () => {
    const team = await makeTeam('multi-token');
    const legacy = await platform(server, 'POST', `/teams/${team}/authentication-token`);
    const first = await described(team, { description: 'ci' });
    expect(first.status).toBe(201);
    expect(first.body.data.attributes.description).toBe('ci');
    expect(first.body.data.relationships.team.data).toEqual({ id: team, type: 'teams' });
    const years =
      (Date.parse(first.body.data.attributes['expired-at']) - Date.parse(first.body.data.attributes['created-at'])) / (365.25 * 86400_000);
    expect(years).toBeGreaterThan(1.99);
    expect(years).toBeLessThan(2.01);
    const empty = await described(team, { description: '' });
    expect(empty.body.data.attributes.description).toBe('');
    const repeated = await described(team, { description: 'ci' });
    expect(repeated.status).toBe(422);
    expect(repeated.body.errors[0]).toMatchObject({
      title: 'invalid attributes',
      detail: 'Validation failed: Description has already been taken',
    });

    // The legacy token keeps working, and replacing it leaves the described ones alone.
    expect((await platform(server, 'GET', '/organizations/understudy', { token: legacy.body.data.attributes.token })).status).toBe(200);
    await platform(server, 'POST', `/teams/${team}/authentication-token`);
    expect((await platform(server, 'GET', '/organizations/understudy', { token: first.body.data.attributes.token })).status).toBe(200);
    const listed = await platform(server, 'GET', `/teams/${team}/authentication-tokens`);
    expect(listed.body.meta.pagination['total-count']).toBe(3);

    expect((await platform(server, 'DELETE', `/authentication-tokens/${first.body.data.id}`)).status).toBe(204);
    expect((await platform(server, 'GET', '/organizations/understudy', { token: first.body.data.attributes.token })).status).toBe(401);
  });

  it('lists the organization team tokens with q and sort by expiry', async () => {
    const a = await makeTeam('list-alpha');
    const b = await makeTeam('list-beta');
    const soon = await described(a, { description: 'soon', 'expired-at': new Date(Date.now() + 86400_000).toISOString() });
    const later = await described(b, { description: 'later', 'expired-at': new Date(Date.now() + 2 * 86400_000).toISOString() });
    const ids = (body: { data: { id: string }[] }) => body.data.map((item) => item.id);
    const byAlpha = await platform(server, 'GET', '/organizations/understudy/team-tokens?q=list-alpha');
    expect(ids(byAlpha.body)).toEqual([soon.body.data.id]);
    const ascending = ids((await platform(server, 'GET', '/organizations/understudy/team-tokens?q=list-&sort=expired-at')).body);
    expect(ascending).toEqual([soon.body.data.id, later.body.data.id]);
    const descending = ids((await platform(server, 'GET', '/organizations/understudy/team-tokens?q=list-&sort=-expired-at')).body);
    expect(descending).toEqual([later.body.data.id, soon.body.data.id]);
    expect((await platform(server, 'GET', '/organizations/understudy/team-tokens?sort=name')).status).toBe(400);
    expect((await platform(server, 'GET', '/organizations/nowhere/team-tokens')).status).toBe(404);
  });
});
