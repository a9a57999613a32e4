import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform } from '../../helpers/app.js';
import { ORG, startWorld, workspaceWithLevels, type World } from './world.js';

/**
 * Who may call each endpoint of issue 3: every principal of the world against every endpoint.
 * A refused caller always gets 404, exactly as for a missing resource.
 *
 * Principals: the site admin; the owners team (`owner`); teams holding one organization
 * permission (`manager` manage-workspaces, `reader` read-workspaces, `tasker` manage-run-tasks,
 * `people` manage-membership); members whose team holds read, plan, write or admin on the
 * workspace at hand (`wsread` … `wsadmin`); a member with nothing (`member`); the organization
 * token (`orgtoken`); an owner of another organization (`outsider`).
 */
const PRINCIPALS = [
  'admin',
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
  'orgtoken',
  'outsider',
] as const;
type Principal = (typeof PRINCIPALS)[number];

const MEMBERS: Principal[] = PRINCIPALS.filter((p) => p !== 'outsider');
const ORG_WIDE_ADMIN: Principal[] = ['admin', 'owner', 'manager', 'orgtoken'];
const WS_READ: Principal[] = [...ORG_WIDE_ADMIN, 'reader', 'wsread', 'wsplan', 'wswrite', 'wsadmin'];
const WS_WRITE: Principal[] = [...ORG_WIDE_ADMIN, 'wswrite', 'wsadmin'];
const WS_ADMIN: Principal[] = [...ORG_WIDE_ADMIN, 'wsadmin'];
const RUN_TASK_MANAGERS: Principal[] = ['admin', 'owner', 'tasker', 'orgtoken'];
const WS_RUN_TASKS: Principal[] = [...WS_ADMIN, 'tasker'];
const WS_RUN_TASKS_READ: Principal[] = [...WS_READ, 'tasker'];
const MEMBERSHIP_MANAGERS: Principal[] = ['admin', 'owner', 'people', 'orgtoken'];
const OWNERS: Principal[] = ['admin', 'owner'];
const VCS_SETTINGS: Principal[] = ['admin', 'owner', 'orgtoken'];

type Context = Record<string, string>;
interface Case {
  name: string;
  allowed: Principal[];
  status: number;
  setup?: (world: World, unique: string) => Promise<Context>;
  request: (context: Context, unique: string) => [method: string, path: string, body?: unknown];
}

const admin = (world: World, method: string, path: string, body?: unknown) =>
  platform(world.server, method, path, body === undefined ? {} : { body });
const workspace = async (world: World, unique: string, attributes: Record<string, unknown> = {}): Promise<Context> => {
  const { id } = await workspaceWithLevels(world, unique, attributes);
  return { ws: id, name: unique };
};
const runTask = async (world: World, unique: string) =>
  (
    await admin(world, 'POST', `/organizations/${ORG}/tasks`, {
      data: { type: 'tasks', attributes: { name: `task-${unique}`, url: 'http://127.0.0.1:9/', description: '', category: 'task' } },
    })
  ).body.data.id as string;
const attached = async (world: World, unique: string): Promise<Context> => {
  const context = await workspace(world, unique);
  const task = await runTask(world, unique);
  const created = await admin(world, 'POST', `/workspaces/${context.ws}/tasks`, {
    data: {
      type: 'workspace-tasks',
      attributes: { 'enforcement-level': 'advisory' },
      relationships: { task: { data: { type: 'tasks', id: task } } },
    },
  });
  return { ...context, task, wstask: created.body.data.id };
};
const tagBody = { data: [{ type: 'tags', attributes: { name: 'matrix' } }] };
const refs = (...ids: string[]) => ({ data: ids.map((id) => ({ type: 'workspaces', id })) });

const CASES: Case[] = [
  // Workspaces
  {
    name: 'create workspace',
    allowed: ORG_WIDE_ADMIN,
    status: 201,
    request: (_c, u) => ['POST', `/organizations/${ORG}/workspaces`, { data: { type: 'workspaces', attributes: { name: u } } }],
  },
  { name: 'list workspaces', allowed: MEMBERS, status: 200, request: () => ['GET', `/organizations/${ORG}/workspaces`] },
  { name: 'show workspace by id', allowed: WS_READ, status: 200, setup: workspace, request: (c) => ['GET', `/workspaces/${c.ws}`] },
  {
    name: 'show workspace by name',
    allowed: WS_READ,
    status: 200,
    setup: workspace,
    request: (c) => ['GET', `/organizations/${ORG}/workspaces/${c.name}`],
  },
  {
    name: 'update workspace by id',
    allowed: WS_ADMIN,
    status: 200,
    setup: workspace,
    request: (c) => ['PATCH', `/workspaces/${c.ws}`, { data: { type: 'workspaces', attributes: { description: 'x' } } }],
  },
  {
    name: 'update workspace by name',
    allowed: WS_ADMIN,
    status: 200,
    setup: workspace,
    request: (c) => [
      'PATCH',
      `/organizations/${ORG}/workspaces/${c.name}`,
      { data: { type: 'workspaces', attributes: { description: 'x' } } },
    ],
  },
  { name: 'delete workspace by id', allowed: WS_ADMIN, status: 204, setup: workspace, request: (c) => ['DELETE', `/workspaces/${c.ws}`] },
  {
    name: 'delete workspace by name',
    allowed: WS_ADMIN,
    status: 204,
    setup: workspace,
    request: (c) => ['DELETE', `/organizations/${ORG}/workspaces/${c.name}`],
  },
  {
    name: 'safe-delete workspace by id',
    allowed: WS_ADMIN,
    status: 204,
    setup: workspace,
    request: (c) => ['POST', `/workspaces/${c.ws}/actions/safe-delete`],
  },
  {
    name: 'safe-delete workspace by name',
    allowed: WS_ADMIN,
    status: 204,
    setup: workspace,
    request: (c) => ['POST', `/organizations/${ORG}/workspaces/${c.name}/actions/safe-delete`],
  },
  {
    name: 'lock workspace',
    allowed: WS_WRITE,
    status: 200,
    setup: workspace,
    request: (c) => ['POST', `/workspaces/${c.ws}/actions/lock`],
  },
  // Unlocking an unlocked workspace: permitted callers reach the 409, the others the 404.
  {
    name: 'unlock workspace',
    allowed: WS_WRITE,
    status: 409,
    setup: workspace,
    request: (c) => ['POST', `/workspaces/${c.ws}/actions/unlock`],
  },
  {
    name: 'force-unlock workspace',
    allowed: WS_ADMIN,
    status: 200,
    setup: async (world, u) => {
      const context = await workspace(world, u);
      await admin(world, 'POST', `/workspaces/${context.ws}/actions/lock`);
      return context;
    },
    request: (c) => ['POST', `/workspaces/${c.ws}/actions/force-unlock`],
  },
  {
    name: 'assign SSH key',
    allowed: WS_ADMIN,
    status: 200,
    setup: workspace,
    request: (c) => ['PATCH', `/workspaces/${c.ws}/relationships/ssh-key`, { data: { type: 'workspaces', attributes: { id: null } } }],
  },
  // Tags
  {
    name: 'list workspace tags',
    allowed: WS_READ,
    status: 200,
    setup: workspace,
    request: (c) => ['GET', `/workspaces/${c.ws}/relationships/tags`],
  },
  {
    name: 'add workspace tags',
    allowed: WS_ADMIN,
    status: 204,
    setup: workspace,
    request: (c) => ['POST', `/workspaces/${c.ws}/relationships/tags`, tagBody],
  },
  {
    name: 'remove workspace tags',
    allowed: WS_ADMIN,
    status: 204,
    setup: workspace,
    request: (c) => ['DELETE', `/workspaces/${c.ws}/relationships/tags`, tagBody],
  },
  { name: 'list organization tags', allowed: MEMBERS, status: 200, request: () => ['GET', `/organizations/${ORG}/tags`] },
  // Remote state consumers (the consumer is readable by every workspace-level principal)
  {
    name: 'list remote state consumers',
    allowed: WS_READ,
    status: 200,
    setup: (world, u) => workspace(world, u, { 'global-remote-state': false }),
    request: (c) => ['GET', `/workspaces/${c.ws}/relationships/remote-state-consumers`],
  },
  ...(['POST', 'DELETE'] as const).map((method): Case => ({
    name: `${method} remote state consumers`,
    allowed: WS_ADMIN,
    status: 204,
    setup: async (world, u) => {
      const context = await workspace(world, u, { 'global-remote-state': false });
      const consumer = await workspace(world, `${u}-consumer`);
      return { ...context, consumer: consumer.ws! };
    },
    request: (c) => [method, `/workspaces/${c.ws}/relationships/remote-state-consumers`, refs(c.consumer!)],
  })),
  {
    name: 'replace remote state consumers',
    allowed: ORG_WIDE_ADMIN,
    status: 204,
    setup: (world, u) => workspace(world, u, { 'global-remote-state': false }),
    request: (c) => ['PATCH', `/workspaces/${c.ws}/relationships/remote-state-consumers`, refs()],
  },
  // Team access
  {
    name: 'list team access',
    allowed: WS_READ,
    status: 200,
    setup: workspace,
    request: (c) => ['GET', `/team-workspaces?filter[workspace][id]=${c.ws}`],
  },
  {
    name: 'grant team access',
    allowed: WS_ADMIN,
    status: 201,
    setup: async (world, u) => ({ ...(await workspace(world, u)), team: world.teams['plain']! }),
    request: (c) => [
      'POST',
      '/team-workspaces',
      {
        data: {
          type: 'team-workspaces',
          attributes: { access: 'read' },
          relationships: { team: { data: { type: 'teams', id: c.team } }, workspace: { data: { type: 'workspaces', id: c.ws } } },
        },
      },
    ],
  },
  ...(['GET', 'PATCH', 'DELETE'] as const).map((method): Case => ({
    name: `${method} team access`,
    allowed: method === 'GET' ? WS_READ : WS_ADMIN,
    status: method === 'DELETE' ? 204 : 200,
    setup: async (world, u) => {
      const context = await workspace(world, u);
      const list = await admin(world, 'GET', `/team-workspaces?filter[workspace][id]=${context.ws}`);
      return { ...context, grant: list.body.data[0].id };
    },
    request: (c) => [
      method,
      `/team-workspaces/${c.grant}`,
      method === 'PATCH' ? { data: { type: 'team-workspaces', attributes: { access: 'read' } } } : undefined,
    ],
  })),
  // Agent pools and SSH keys
  {
    name: 'create agent pool',
    allowed: ['admin', 'owner', 'orgtoken'],
    status: 201,
    request: (_c, u) => ['POST', `/organizations/${ORG}/agent-pools`, { data: { type: 'agent-pools', attributes: { name: u } } }],
  },
  { name: 'list agent pools', allowed: MEMBERS, status: 200, request: () => ['GET', `/organizations/${ORG}/agent-pools`] },
  {
    name: 'delete agent pool',
    allowed: ['admin', 'owner', 'orgtoken'],
    status: 204,
    setup: async (world, u) => ({
      pool: (await admin(world, 'POST', `/organizations/${ORG}/agent-pools`, { data: { type: 'agent-pools', attributes: { name: u } } }))
        .body.data.id,
    }),
    request: (c) => ['DELETE', `/agent-pools/${c.pool}`],
  },
  {
    name: 'create SSH key',
    allowed: VCS_SETTINGS,
    status: 201,
    request: (_c, u) => ['POST', `/organizations/${ORG}/ssh-keys`, { data: { type: 'ssh-keys', attributes: { name: u, value: 'k' } } }],
  },
  { name: 'list SSH keys', allowed: VCS_SETTINGS, status: 200, request: () => ['GET', `/organizations/${ORG}/ssh-keys`] },
  ...(['GET', 'PATCH', 'DELETE'] as const).map((method): Case => ({
    name: `${method} SSH key`,
    allowed: VCS_SETTINGS,
    status: method === 'DELETE' ? 204 : 200,
    setup: async (world, u) => ({
      key: (
        await admin(world, 'POST', `/organizations/${ORG}/ssh-keys`, { data: { type: 'ssh-keys', attributes: { name: u, value: 'k' } } })
      ).body.data.id,
    }),
    request: (c) => [
      method,
      `/ssh-keys/${c.key}`,
      method === 'PATCH' ? { data: { type: 'ssh-keys', attributes: { name: 'renamed' } } } : undefined,
    ],
  })),
  // Run tasks
  {
    name: 'create run task',
    allowed: OWNERS,
    status: 201,
    request: (_c, u) => [
      'POST',
      `/organizations/${ORG}/tasks`,
      { data: { type: 'tasks', attributes: { name: u, url: 'http://127.0.0.1:9/', description: '', category: 'task' } } },
    ],
  },
  { name: 'list run tasks', allowed: RUN_TASK_MANAGERS, status: 200, request: () => ['GET', `/organizations/${ORG}/tasks`] },
  ...(['GET', 'PATCH', 'DELETE'] as const).map((method): Case => ({
    name: `${method} run task`,
    allowed: RUN_TASK_MANAGERS,
    status: method === 'DELETE' ? 204 : 200,
    setup: async (world, u) => ({ task: await runTask(world, u) }),
    request: (c) => [
      method,
      `/tasks/${c.task}`,
      method === 'PATCH' ? { data: { type: 'tasks', attributes: { enabled: false } } } : undefined,
    ],
  })),
  {
    name: 'attach run task',
    allowed: WS_RUN_TASKS,
    status: 201,
    setup: async (world, u) => ({ ...(await workspace(world, u)), task: await runTask(world, u) }),
    request: (c) => [
      'POST',
      `/workspaces/${c.ws}/tasks`,
      {
        data: {
          type: 'workspace-tasks',
          attributes: { 'enforcement-level': 'advisory' },
          relationships: { task: { data: { type: 'tasks', id: c.task } } },
        },
      },
    ],
  },
  {
    name: 'list workspace run tasks',
    allowed: WS_RUN_TASKS_READ,
    status: 200,
    setup: attached,
    request: (c) => ['GET', `/workspaces/${c.ws}/tasks`],
  },
  {
    name: 'show workspace run task',
    allowed: WS_RUN_TASKS_READ,
    status: 200,
    setup: attached,
    request: (c) => ['GET', `/workspaces/${c.ws}/tasks/${c.wstask}`],
  },
  {
    name: 'update workspace run task',
    allowed: WS_RUN_TASKS,
    status: 200,
    setup: attached,
    request: (c) => [
      'PATCH',
      `/workspaces/${c.ws}/tasks/${c.wstask}`,
      { data: { type: 'workspace-tasks', attributes: { 'enforcement-level': 'mandatory' } } },
    ],
  },
  {
    name: 'detach run task',
    allowed: WS_RUN_TASKS,
    status: 204,
    setup: attached,
    request: (c) => ['DELETE', `/workspaces/${c.ws}/tasks/${c.wstask}`],
  },
  // Memberships
  {
    name: 'invite member',
    allowed: MEMBERSHIP_MANAGERS,
    status: 201,
    setup: async (world) => ({ team: world.teams['plain']! }),
    request: (c, u) => [
      'POST',
      `/organizations/${ORG}/organization-memberships`,
      {
        data: {
          type: 'organization-memberships',
          attributes: { email: `${u}@invited.test` },
          relationships: { teams: { data: [{ type: 'teams', id: c.team }] } },
        },
      },
    ],
  },
  { name: 'list memberships', allowed: MEMBERS, status: 200, request: () => ['GET', `/organizations/${ORG}/organization-memberships`] },
  ...(['GET', 'DELETE'] as const).map((method): Case => ({
    name: `${method} membership`,
    allowed: method === 'GET' ? MEMBERS : MEMBERSHIP_MANAGERS,
    status: method === 'GET' ? 200 : 204,
    setup: async (world, u) => ({
      membership: (
        await admin(world, 'POST', `/organizations/${ORG}/organization-memberships`, {
          data: {
            type: 'organization-memberships',
            attributes: { email: `${u}@invited.test` },
            relationships: { teams: { data: [{ type: 'teams', id: world.teams['plain'] }] } },
          },
        })
      ).body.data.id,
    }),
    request: (c) => [method, `/organization-memberships/${c.membership}`],
  })),
];

describe('permission matrix of issue 3', () => {
  let world: World;
  let counter = 0;
  beforeAll(async () => {
    world = await startWorld();
  });
  afterAll(() => world.close());

  describe.each(CASES)('$name', (testCase) => {
    it.each(PRINCIPALS.map((principal) => [principal]))('as %s', async (principal) => {
      const unique = `m${++counter}`;
      const context = testCase.setup ? await testCase.setup(world, unique) : {};
      const [method, path, body] = testCase.request(context, unique);
      const response = await platform(world.server, method, path, {
        token: world.principals[principal],
        ...(body === undefined ? {} : { body }),
      });
      const expected = testCase.allowed.includes(principal) ? testCase.status : 404;
      expect(response.status, JSON.stringify(response.body?.errors ?? '')).toBe(expected);
    });
  });
});
