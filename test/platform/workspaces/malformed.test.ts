import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform } from '../../helpers/app.js';
import { control, ORG, startWorld, workspaceWithLevels, type World } from './world.js';

/** Whatever arrives, the answer is a 4xx (or a success), never a 5xx. */
const BODIES: unknown[] = [
  '',
  'null',
  '[]',
  '"text"',
  '42',
  '{',
  { data: null },
  { data: 'x' },
  { data: [] },
  { data: [null, 1, 'x', { type: 'workspaces', id: 7 }] },
  { data: { type: 5 } },
  { data: { type: 'workspaces', attributes: [] } },
  {
    data: {
      type: 'workspaces',
      attributes: { name: { nested: true }, 'vcs-repo': { identifier: 5 }, 'trigger-prefixes': [1], 'setting-overwrites': 'x' },
    },
  },
  { data: { type: 'tasks', attributes: { 'global-configuration': { stages: 'pre_plan' } }, relationships: { 'agent-pool': 'x' } } },
  { data: { type: 'workspace-tasks', attributes: { stages: [null] }, relationships: { task: { data: [] } } } },
  { data: { type: 'organization-memberships', attributes: { email: ['a@b.c'] }, relationships: { teams: { data: {} } } } },
  { data: { type: 'team-workspaces', attributes: { access: null }, relationships: { team: null, workspace: { data: { id: 1 } } } } },
  { data: [{ type: 'tags', id: null, attributes: { name: null } }] },
  { __proto__: { polluted: true }, data: { type: 'workspaces', attributes: { __proto__: { name: 'x' } } } },
  {
    data: {
      type: 'agent-pools',
      relationships: { 'allowed-workspaces': { data: [{ type: 'workspaces', id: 5 }] }, 'excluded-workspaces': 'x' },
    },
  },
  { data: { type: 'agent-pools', relationships: { 'allowed-workspaces': { data: [{ type: 'workspaces', id: 'ws-nope' }] } } } },
  { data: { type: 'team-workspaces', attributes: { access: 'custom', runs: 5, variables: null, 'workspace-locking': 'yes' } } },
  {
    data: {
      type: 'subscription',
      attributes: { 'runs-ceiling': -1, 'contract-start-at': 'never' },
      relationships: { 'feature-set': { data: { type: 'feature-sets', id: 9 } } },
    },
  },
  { data: [{ type: 'workspaces', id: 'ws-nope' }, { type: 'tags' }] },
];

const QUERIES = [
  'filter[allowed_workspaces][name][]=x',
  'filter[allowed_workspaces][name]=%00',
  'q=Busi&q=ness',
  'page[number]=abc',
  'page[size]=-1',
  'page[number]=99999999999999999999',
  'include=&include=organization',
  'search[tags]=&search[tags]=a',
  'sort=name&sort=-name',
  'filter[status][x]=1',
  'q[]=1',
  'search[wildcard-name]=*',
  'search[wildcard-name]=**',
  'search[name]=%25_',
];

describe('malformed input', () => {
  let world: World;
  let paths: [string, string][] = [];
  beforeAll(async () => {
    world = await startWorld();
    const { id } = await workspaceWithLevels(world, 'target');
    const pool = await platform(world.server, 'POST', `/organizations/${ORG}/agent-pools`, {
      body: { data: { type: 'agent-pools', attributes: { name: 'malformed-pool' } } },
    });
    await platform(world.server, 'POST', `/workspaces/${id}/relationships/tags`, {
      body: { data: [{ type: 'tags', attributes: { name: 'kept' } }] },
    });
    const tag = (await platform(world.server, 'GET', `/organizations/${ORG}/tags`)).body.data[0];
    const grants = await platform(world.server, 'GET', `/team-workspaces?filter[workspace][id]=${id}`);
    paths = [
      ['POST', `/organizations/${ORG}/workspaces`],
      ['PATCH', `/workspaces/${id}`],
      ['PATCH', `/organizations/${ORG}/workspaces/target`],
      ['POST', `/workspaces/${id}/actions/lock`],
      ['PATCH', `/workspaces/${id}/relationships/ssh-key`],
      ['POST', `/workspaces/${id}/relationships/tags`],
      ['DELETE', `/workspaces/${id}/relationships/tags`],
      ['POST', `/workspaces/${id}/relationships/remote-state-consumers`],
      ['PATCH', `/workspaces/${id}/relationships/remote-state-consumers`],
      ['DELETE', `/workspaces/${id}/relationships/remote-state-consumers`],
      ['POST', `/organizations/${ORG}/agent-pools`],
      ['POST', `/organizations/${ORG}/ssh-keys`],
      ['POST', '/team-workspaces'],
      ['POST', `/organizations/${ORG}/tasks`],
      ['POST', `/workspaces/${id}/tasks`],
      ['POST', `/organizations/${ORG}/organization-memberships`],
      ['PATCH', `/agent-pools/${pool.body.data.id}`],
      ['DELETE', `/organizations/${ORG}/tags`],
      ['POST', `/tags/${tag.id}/relationships/workspaces`],
      ['POST', `/admin/organizations/${ORG}/subscription`],
      ['PATCH', `/team-workspaces/${grants.body.data[0].id}`],
    ];
  });
  afterAll(() => world.close());

  it('answers every malformed body with a 4xx', async () => {
    for (const [method, path] of paths) {
      for (const body of BODIES) {
        const response = await platform(world.server, method, path, { body: typeof body === 'string' ? body : JSON.stringify(body) });
        expect(response.status, `${method} ${path} ${JSON.stringify(body)}`).toBeLessThan(500);
      }
    }
  });

  it('answers every odd query with a 4xx or a success', async () => {
    const lists = [
      `/organizations/${ORG}/workspaces`,
      `/organizations/${ORG}/tags`,
      `/organizations/${ORG}/tasks`,
      `/organizations/${ORG}/organization-memberships`,
      '/organization-memberships',
      `/organizations/${ORG}/agent-pools`,
      '/admin/feature-sets',
    ];
    for (const path of lists) {
      for (const query of QUERIES) {
        const response = await platform(world.server, 'GET', `${path}?${query}`);
        expect(response.status, `${path}?${query}`).toBeLessThan(500);
      }
    }
  });

  it('answers malformed control-plane bodies with a 4xx', async () => {
    for (const [method, path] of [
      ['PATCH', `/organizations/${ORG}`],
      ['POST', `/organizations/${ORG}/workspaces/bulk`],
      ['POST', '/run-tasks/wstask-x/trigger'],
      ['POST', '/organization-memberships/ou-x/accept'],
    ] as const) {
      for (const body of [[], 'x', 5, { count: 'many' }, { entitlements: [] }, { stage: 3 }]) {
        const response = await control(world.server, method, path, body);
        expect(response.status, `${method} ${path} ${JSON.stringify(body)}`).toBeLessThan(500);
      }
    }
  });
});
