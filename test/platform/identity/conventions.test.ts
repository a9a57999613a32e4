import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, platform, startServer, type TestServer } from '../../helpers/app.js';
import { createUserWithToken, rawGet, teamId } from './helpers.js';

/** JSON:API conventions, exercised on a list of 45 teams (44 created + owners). */
describe('JSON:API conventions on the teams list', () => {
  let server: TestServer;
  let base: string;
  const TEAMS = '/organizations/understudy/teams';

  beforeAll(async () => {
    server = await startServer();
    base = `${server.baseUrl}/api/v2${TEAMS}`;
    for (let i = 1; i <= 44; i++) {
      const name = `team-${String(i).padStart(2, '0')}`;
      const created = await platform(server, 'POST', TEAMS, {
        body: { data: { type: 'teams', attributes: { name, visibility: 'organization' } } },
      });
      expect(created.status).toBe(201);
    }
  });
  afterAll(() => server.close());

  const link = (number: number, size: number, extra = '') => `${base}?${extra}page%5Bnumber%5D=${number}&page%5Bsize%5D=${size}`;

  it('defaults to page 1 of size 20: three pages, full links, null prev at the start', async () => {
    const { status, body } = await platform(server, 'GET', TEAMS);
    expect(status).toBe(200);
    expect(body.data).toHaveLength(20);
    expect(body.meta.pagination).toEqual({
      'current-page': 1,
      'page-size': 20,
      'prev-page': null,
      'next-page': 2,
      'total-pages': 3,
      'total-count': 45,
    });
    expect(body.links).toEqual({ self: link(1, 20), first: link(1, 20), prev: null, next: link(2, 20), last: link(3, 20) });
  });

  it('walks pages of 20 to a short last page with null next', async () => {
    const middle = await platform(server, 'GET', `${TEAMS}?page[number]=2&page[size]=20`);
    expect(middle.body.data).toHaveLength(20);
    expect(middle.body.links).toMatchObject({ prev: link(1, 20), next: link(3, 20) });
    const last = await platform(server, 'GET', `${TEAMS}?page[number]=3&page[size]=20`);
    expect(last.body.data).toHaveLength(5);
    expect(last.body.meta.pagination).toMatchObject({ 'current-page': 3, 'prev-page': 2, 'next-page': null, 'total-pages': 3 });
    expect(last.body.links).toMatchObject({ self: link(3, 20), prev: link(2, 20), next: null, last: link(3, 20) });
    const ids = [...(await platform(server, 'GET', TEAMS)).body.data, ...middle.body.data, ...last.body.data].map(
      (team: { id: string }) => team.id,
    );
    expect(new Set(ids).size).toBe(45);
  });

  it('pages of 10 give five pages', async () => {
    const { body } = await platform(server, 'GET', `${TEAMS}?page%5Bnumber%5D=5&page%5Bsize%5D=10`);
    expect(body.data).toHaveLength(5);
    expect(body.meta.pagination).toEqual({
      'current-page': 5,
      'page-size': 10,
      'prev-page': 4,
      'next-page': null,
      'total-pages': 5,
      'total-count': 45,
    });
    expect(body.links.last).toBe(link(5, 10));
  });

  it('page size 100 (the maximum) holds everything on one page', async () => {
    const { body } = await platform(server, 'GET', `${TEAMS}?page[size]=100`);
    expect(body.data).toHaveLength(45);
    expect(body.meta.pagination).toEqual({
      'current-page': 1,
      'page-size': 100,
      'prev-page': null,
      'next-page': null,
      'total-pages': 1,
      'total-count': 45,
    });
    expect(body.links).toEqual({ self: link(1, 100), first: link(1, 100), prev: null, next: null, last: link(1, 100) });
  });

  it('clamps page size 150 to 100', async () => {
    const { body } = await platform(server, 'GET', `${TEAMS}?page[size]=150`);
    expect(body.data).toHaveLength(45);
    expect(body.meta.pagination['page-size']).toBe(100);
    expect(body.links.self).toBe(link(1, 100));
  });

  it('a page past the end is empty but keeps the real total and the requested page number', async () => {
    const { status, body } = await platform(server, 'GET', `${TEAMS}?page[number]=999&page[size]=100`);
    expect(status).toBe(200);
    expect(body.data).toEqual([]);
    expect(body.meta.pagination).toMatchObject({
      'current-page': 999,
      'total-count': 45,
      'total-pages': 1,
      'next-page': null,
      'prev-page': 998,
    });
  });

  it('accepts percent-encoded brackets', async () => {
    const { body } = await platform(server, 'GET', `${TEAMS}?page%5Bsize%5D=5`);
    expect(body.data).toHaveLength(5);
    expect(body.meta.pagination).toMatchObject({ 'page-size': 5, 'total-pages': 9 });
  });

  it('keeps other query parameters in the links', async () => {
    const { body } = await platform(server, 'GET', `${TEAMS}?q=team-1&include=users&page[size]=5`);
    // team-10 … team-19 match.
    expect(body.meta.pagination).toMatchObject({ 'total-count': 10, 'total-pages': 2 });
    expect(body.links.next).toBe(link(2, 5, 'q=team-1&include=users&'));
  });

  it('rejects a bad page number with 400', async () => {
    for (const query of [
      'page[number]=0',
      'page[number]=abc',
      'page[size]=-1',
      'page[size]=1e3',
      'page[number]=99999999999999999999',
      'page[number]=9007199254740991',
    ]) {
      const { status, body } = await platform(server, 'GET', `${TEAMS}?${query}`);
      expect(status, query).toBe(400);
      expect(body.errors[0].status).toBe('400');
    }
  });

  it('an unknown include is a 400 whose detail names the include parameter', async () => {
    for (const path of [`${TEAMS}?include=user`, `/teams/${await teamId(server, 'understudy', 'owners')}?include=users,workspaces`]) {
      const { status, body } = await platform(server, 'GET', path);
      expect(status, path).toBe(400);
      expect(body.errors[0].detail).toContain('include parameter');
    }
  });

  it('malformed JSON is a 422, never a 5xx', async () => {
    for (const text of ['{"data":', '{data: 1}', 'not json at all', '\u0000']) {
      const { status, body } = await platform(server, 'POST', TEAMS, { body: text });
      expect(status, text).toBe(422);
      expect(body.errors[0].status).toBe('422');
    }
  });

  it('a body that is not a document (array, number, string, null) is a 422 with a pointer', async () => {
    for (const text of ['[]', '[{"type":"teams"}]', '42', '"teams"', 'null', '{"data":[]}', '{"data":"x"}']) {
      const { status, body } = await platform(server, 'POST', TEAMS, { body: text });
      expect(status, text).toBe(422);
      expect(body.errors[0].source.pointer, text).toBe('/data');
    }
    const owners = await teamId(server, 'understudy', 'owners');
    for (const text of ['{"data":{"type":"users","id":"admin"}}', '42', '{"data":[42]}']) {
      const { status, body } = await platform(server, 'POST', `/teams/${owners}/relationships/users`, { body: text });
      expect(status, text).toBe(422);
      expect(body.errors[0].source.pointer, text).toMatch(/^\/data/);
    }
  });

  it('a wrong type or attribute type points at the offending member', async () => {
    const wrongType = await platform(server, 'POST', TEAMS, { body: { data: { type: 'users', attributes: { name: 'x' } } } });
    expect(wrongType.status).toBe(422);
    expect(wrongType.body.errors[0].source.pointer).toBe('/data/type');
    const wrongFlag = await platform(server, 'POST', TEAMS, {
      body: { data: { type: 'teams', attributes: { name: 'x', 'organization-access': { 'manage-workspaces': 'yes' } } } },
    });
    expect(wrongFlag.status).toBe(422);
    expect(wrongFlag.body.errors[0].source.pointer).toBe('/data/attributes/organization-access/manage-workspaces');
  });

  it('answers an unauthorized caller with a 404 byte-identical to a missing resource', async () => {
    const outsider = await createUserWithToken(server, 'outsider');
    const owners = await teamId(server, 'understudy', 'owners');
    const missingTeam = await rawGet(server, '/teams/team-doesnotexist', ADMIN_TOKEN);
    const hiddenTeam = await rawGet(server, `/teams/${owners}`, outsider.token);
    expect(missingTeam.status).toBe(404);
    expect(hiddenTeam).toEqual(missingTeam);

    const missingOrganization = await rawGet(server, '/organizations/no-such-organization/teams', ADMIN_TOKEN);
    const hiddenOrganization = await rawGet(server, '/organizations/understudy/teams', outsider.token);
    expect(hiddenOrganization).toEqual(missingOrganization);
    expect(await rawGet(server, '/organizations/understudy', outsider.token)).toEqual(missingOrganization);
    expect(await rawGet(server, '/no/such/route', outsider.token)).toEqual(missingOrganization);
  });

  it('answers a missing or unknown token with 401', async () => {
    expect((await rawGet(server, TEAMS, null)).status).toBe(401);
    expect((await rawGet(server, TEAMS, 'not-a-real-token')).status).toBe(401);
  });
});
