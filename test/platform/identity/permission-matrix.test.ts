import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, platform, startServer, type TestServer } from '../../helpers/app.js';
import { inviteDirectly, teamId, writeSeed } from './helpers.js';

/**
 * Who may do what at organization level, one visible cell per (principal, endpoint). Every cell
 * starts from the seed (reset), so a destructive cell cannot disturb the next one.
 *
 * In `matrix` the seed has: an owner; one member per team-management flag (and one with an
 * unrelated flag); `vault`, a secret team none of them belong to; `elsewhere`, another
 * organization. Each cell also gets `scratch`, an organization-visible team holding `bystander`.
 */
const token = (name: string) => `token-of-${name}`;
const USERS = [
  'owner',
  'plain',
  'membership-manager',
  'team-manager',
  'access-manager',
  'secret-reader',
  'workspace-manager',
  'invitee',
  'outsider',
  'other-owner',
  'bystander',
  'newcomer',
];

const SEED = {
  users: [
    { username: 'admin', email: 'admin@matrix.test', 'site-admin': true },
    ...USERS.map((username) => ({ username, email: `${username}@matrix.test`, tokens: [token(username)] })),
  ],
  organizations: [
    {
      name: 'matrix',
      email: 'owners@matrix.test',
      owners: ['owner'],
      teams: [
        { name: 'plain', members: ['plain', 'bystander', 'newcomer'] },
        { name: 'membership-managers', 'organization-access': { 'manage-membership': true }, members: ['membership-manager'] },
        { name: 'team-managers', 'organization-access': { 'manage-teams': true }, members: ['team-manager'] },
        { name: 'access-managers', 'organization-access': { 'manage-organization-access': true }, members: ['access-manager'] },
        { name: 'secret-readers', 'organization-access': { 'access-secret-teams': true }, members: ['secret-reader'] },
        {
          name: 'workspace-managers',
          'organization-access': { 'manage-workspaces': true, 'manage-run-tasks': true },
          members: ['workspace-manager'],
        },
        { name: 'vault' },
      ],
    },
    { name: 'elsewhere', email: 'owners@elsewhere.test', owners: ['other-owner'] },
  ],
};

/** What a cell needs: the scratch team and the ids the endpoints address. */
interface World {
  scratch: string;
  vault: string;
}

type Call = (server: TestServer, world: World, bearer: string | null) => Promise<{ status: number; body: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any -- response bodies are JSON

const ENDPOINTS = {
  'show org': (server, _world, bearer) => platform(server, 'GET', '/organizations/matrix', { token: bearer }),
  'update org': (server, _world, bearer) =>
    platform(server, 'PATCH', '/organizations/matrix', {
      token: bearer,
      body: { data: { type: 'organizations', attributes: { email: 'new@matrix.test' } } },
    }),
  'list orgs': async (server, _world, bearer) => {
    const response = await platform(server, 'GET', '/organizations', { token: bearer });
    if (response.status !== 200) return response;
    const listed = response.body.data.some((organization: { id: string }) => organization.id === 'matrix');
    return { status: listed ? LISTED : ABSENT, body: response.body };
  },
  'list teams': (server, _world, bearer) => platform(server, 'GET', '/organizations/matrix/teams', { token: bearer }),
  'show secret team': (server, world, bearer) => platform(server, 'GET', `/teams/${world.vault}`, { token: bearer }),
  'create team': (server, _world, bearer) =>
    platform(server, 'POST', '/organizations/matrix/teams', {
      token: bearer,
      body: { data: { type: 'teams', attributes: { name: 'fresh' } } },
    }),
  'rename team': (server, world, bearer) =>
    platform(server, 'PATCH', `/teams/${world.scratch}`, {
      token: bearer,
      body: { data: { type: 'teams', attributes: { name: 'renamed' } } },
    }),
  'grant org access': (server, world, bearer) =>
    platform(server, 'PATCH', `/teams/${world.scratch}`, {
      token: bearer,
      body: { data: { type: 'teams', attributes: { 'organization-access': { 'manage-workspaces': true } } } },
    }),
  'add member': (server, world, bearer) =>
    platform(server, 'POST', `/teams/${world.scratch}/relationships/users`, {
      token: bearer,
      body: { data: [{ type: 'users', id: 'newcomer' }] },
    }),
  'remove member': (server, world, bearer) =>
    platform(server, 'DELETE', `/teams/${world.scratch}/relationships/users`, {
      token: bearer,
      body: { data: [{ type: 'users', id: 'bystander' }] },
    }),
  'delete team': (server, world, bearer) => platform(server, 'DELETE', `/teams/${world.scratch}`, { token: bearer }),
  'create org token': (server, _world, bearer) => platform(server, 'POST', '/organizations/matrix/authentication-token', { token: bearer }),
  'delete org': (server, _world, bearer) => platform(server, 'DELETE', '/organizations/matrix', { token: bearer }),
} satisfies Record<string, Call>;

type Endpoint = keyof typeof ENDPOINTS;
const COLUMNS = Object.keys(ENDPOINTS) as Endpoint[];

/** `list orgs` answers 200 either way; these stand for "matrix is in the list" and "it is not". */
const LISTED = 1;
const ABSENT = 0;
const L = LISTED;
const A = ABSENT;

/** How each principal gets its bearer token in a freshly reset world. */
type Principal = (server: TestServer) => Promise<string | null>;
const user =
  (name: string): Principal =>
  async () =>
    token(name);
const teamToken =
  (team: string): Principal =>
  async (server) => {
    const created = await platform(server, 'POST', `/teams/${await teamId(server, 'matrix', team)}/authentication-token`);
    return created.body.data.attributes.token as string;
  };

// prettier-ignore
const MATRIX: [string, Principal, number[]][] = [
  //                                                   show   upd    list  list   secret create rename grant  add    remove del    org    delete
  //                                                   org    org    orgs  teams  team   team   team   access member member team   token  org
  ['site admin (not a member)',  async () => ADMIN_TOKEN, [200,   200,   L,    200,   200,   201,   200,   200,   204,   204,   204,   201,   204]],
  ['owner',                      user('owner'),          [200,   200,   L,    200,   200,   201,   200,   200,   204,   204,   204,   201,   204]],
  ['member, no flags',           user('plain'),          [200,   404,   L,    200,   404,   404,   404,   404,   404,   404,   404,   404,   404]],
  ['member, manage-membership',  user('membership-manager'), [200, 404,  L,    200,   404,   404,   404,   404,   204,   204,   404,   404,   404]],
  ['member, manage-teams',       user('team-manager'),   [200,   404,   L,    200,   404,   201,   200,   404,   204,   204,   204,   404,   404]],
  ['member, manage-org-access',  user('access-manager'), [200,   404,   L,    200,   404,   201,   200,   200,   204,   204,   204,   404,   404]],
  ['member, access-secret-teams', user('secret-reader'), [200,   404,   L,    200,   200,   404,   404,   404,   404,   404,   404,   404,   404]],
  ['member, manage-workspaces',  user('workspace-manager'), [200, 404,   L,    200,   404,   404,   404,   404,   404,   404,   404,   404,   404]],
  ['invited, not accepted',      user('invitee'),        [404,   404,   A,    404,   404,   404,   404,   404,   404,   404,   404,   404,   404]],
  ['owners team token',          teamToken('owners'),    [200,   200,   L,    200,   200,   201,   200,   200,   204,   204,   204,   201,   204]],
  ['ordinary team token',        teamToken('plain'),     [200,   404,   L,    200,   404,   404,   404,   404,   404,   404,   404,   404,   404]],
  ['organization token',         async (server) => (await platform(server, 'POST', '/organizations/matrix/authentication-token')).body.data.attributes.token,
                                                         [200,   200,   L,    200,   200,   201,   200,   200,   204,   204,   204,   201,   404]],
  ['outsider',                   user('outsider'),       [404,   404,   A,    404,   404,   404,   404,   404,   404,   404,   404,   404,   404]],
  ["another org's owner",        user('other-owner'),    [404,   404,   A,    404,   404,   404,   404,   404,   404,   404,   404,   404,   404]],
  ['no token',                   async () => null,       [401,   401,   401,  401,   401,   401,   401,   401,   401,   401,   401,   401,   401]],
  ['bad token',                  async () => 'no-such-token', [401, 401, 401,  401,   401,   401,   401,   401,   401,   401,   401,   401,   401]],
];

describe('permission matrix', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ UNDERSTUDY_SEED: writeSeed(SEED) });
  });
  afterAll(() => server.close());

  /** Back to the seed, plus what no seed can express: an invitation and the scratch team. */
  async function freshWorld(): Promise<World> {
    server.app.reset();
    inviteDirectly(server, 'matrix', 'invitee', 'team-managers');
    const scratch = await platform(server, 'POST', '/organizations/matrix/teams', {
      body: { data: { type: 'teams', attributes: { name: 'scratch', visibility: 'organization' } } },
    });
    const added = await platform(server, 'POST', `/teams/${scratch.body.data.id}/relationships/users`, {
      body: { data: [{ type: 'users', id: 'bystander' }] },
    });
    expect(added.status).toBe(204);
    return { scratch: scratch.body.data.id, vault: await teamId(server, 'matrix', 'vault') };
  }

  it('has one expectation per endpoint in every row', () => {
    for (const [name, , row] of MATRIX) expect(row, name).toHaveLength(COLUMNS.length);
  });

  for (const [name, principal, row] of MATRIX) {
    describe(name, () => {
      COLUMNS.forEach((endpoint, column) => {
        it(`${endpoint} → ${row[column] === L && endpoint === 'list orgs' ? 'listed' : row[column] === A && endpoint === 'list orgs' ? 'not listed' : row[column]}`, async () => {
          const world = await freshWorld();
          const bearer = await principal(server);
          const response = await ENDPOINTS[endpoint](server, world, bearer);
          expect(response.status, JSON.stringify(response.body)).toBe(row[column]);
        });
      });
    });
  }
});
