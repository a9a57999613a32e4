export { control } from '../../helpers/app.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { ADMIN_TOKEN, platform, startServer, type TestServer } from '../../helpers/app.js';

/**
 * A world for the workspace, run task and membership tests, built from a seed file plus the API:
 * one principal per row of the permission matrix, each with a known token.
 */
export const ORG = 'acme';
export const OTHER_ORG = 'elsewhere';

/** Users of the seed, by the role they play; each has the token `token-<name>-0000`. */
export const ROLES = [
  'owner',
  'manager',
  'reader',
  'tasker',
  'people',
  'wsread',
  'wsplan',
  'wswrite',
  'wsadmin',
  'member',
  'outsider',
] as const;
export type Role = (typeof ROLES)[number];

export const tokenOf = (role: Role) => `token-${role}-0000`;

/** Teams giving workspace access levels, granted per workspace through `/team-workspaces`. */
export const LEVEL_TEAMS = { wsread: 'level-read', wsplan: 'level-plan', wswrite: 'level-write', wsadmin: 'level-admin' } as const;
const LEVEL_OF_TEAM = { 'level-read': 'read', 'level-plan': 'plan', 'level-write': 'write', 'level-admin': 'admin' } as const;

function seedFor(extra: { organizations?: Record<string, unknown>[] } = {}): string {
  const users = [
    { username: 'admin', email: 'admin@understudy.test', 'site-admin': true },
    ...ROLES.map((role) => ({ username: role, email: `${role}@acme.test`, tokens: [tokenOf(role)] })),
  ];
  const team = (name: string, members: string[], access: Record<string, boolean> = {}) => ({
    name,
    members,
    'organization-access': access,
  });
  const seed = {
    users,
    organizations: [
      { name: 'understudy', email: 'admin@understudy.test', owners: ['admin'] },
      {
        name: ORG,
        email: 'owners@acme.test',
        owners: ['owner'],
        teams: [
          team('managers', ['manager'], { 'manage-workspaces': true }),
          team('readers', ['reader'], { 'read-workspaces': true }),
          team('taskers', ['tasker'], { 'manage-run-tasks': true }),
          team('people', ['people'], { 'manage-membership': true }),
          team('level-read', ['wsread']),
          team('level-plan', ['wsplan']),
          team('level-write', ['wswrite']),
          team('level-admin', ['wsadmin']),
          team('plain', ['member']),
        ],
      },
      { name: OTHER_ORG, email: 'owners@elsewhere.test', owners: ['outsider'] },
      ...(extra.organizations ?? []),
    ],
  };
  const path = join(mkdtempSync(join(tmpdir(), 'understudy-world-')), 'seed.json');
  writeFileSync(path, JSON.stringify(seed));
  return path;
}

export interface World {
  server: TestServer;
  /** The organization token of `acme`. */
  orgToken: string;
  /** Team ids of `acme` by name. */
  teams: Record<string, string>;
  /** Every principal of the permission matrix, by name, to its token. */
  principals: Record<string, string>;
  close(): Promise<void>;
}

export async function startWorld(
  env: Record<string, string> = {},
  extra: { organizations?: Record<string, unknown>[] } = {},
): Promise<World> {
  const server = await startServer({ UNDERSTUDY_SEED: seedFor(extra), ...env });
  const token = await platform(server, 'POST', `/organizations/${ORG}/authentication-token`, {
    body: { data: { type: 'authentication-tokens' } },
  });
  expect(token.status).toBe(201);
  const listed = await platform(server, 'GET', `/organizations/${ORG}/teams?page[size]=100`);
  const teams = Object.fromEntries(
    (listed.body.data as { id: string; attributes: { name: string } }[]).map((team) => [team.attributes.name, team.id]),
  );
  const orgToken = token.body.data.attributes.token as string;
  const principals: Record<string, string> = { admin: ADMIN_TOKEN, orgtoken: orgToken };
  for (const role of ROLES) principals[role] = tokenOf(role);
  return { server, orgToken, teams, principals, close: () => server.close() };
}

/** Creates a workspace as the admin and grants the four level teams their access on it. */
export async function workspaceWithLevels(
  world: World,
  name: string,
  attributes: Record<string, unknown> = {},
): Promise<{ id: string; body: Awaited<ReturnType<typeof platform>>['body'] }> {
  const created = await platform(world.server, 'POST', `/organizations/${ORG}/workspaces`, {
    body: { data: { type: 'workspaces', attributes: { name, ...attributes } } },
  });
  if (created.status !== 201) throw new Error(`creating workspace ${name}: ${created.status} ${JSON.stringify(created.body)}`);
  const id = created.body.data.id as string;
  for (const [teamName, access] of Object.entries(LEVEL_OF_TEAM)) {
    const granted = await platform(world.server, 'POST', '/team-workspaces', {
      body: {
        data: {
          type: 'team-workspaces',
          attributes: { access },
          relationships: { team: { data: { type: 'teams', id: world.teams[teamName] } }, workspace: { data: { type: 'workspaces', id } } },
        },
      },
    });
    if (granted.status !== 201) throw new Error(`granting ${teamName}: ${granted.status} ${JSON.stringify(granted.body)}`);
  }
  return { id, body: created.body };
}
