import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform, startServer, type TestServer } from '../../helpers/app.js';

const ORG = 'understudy';

/**
 * Every delete addressed by id alone (no organization in the path) is in the audit trail like the
 * deletes addressed by name: the organization is found from the resource before it goes.
 */
describe('audit events for deletes addressed by id (hosted)', () => {
  let server: TestServer;
  let auditToken: string;
  const create = async (path: string, body: unknown) => {
    const response = await platform(server, 'POST', path, { body });
    expect(response.status, `${path}: ${JSON.stringify(response.body)}`).toBe(201);
    return response.body.data.id as string;
  };
  const relationship = (type: string, id: string) => ({ data: { type, id } });
  const lastEvent = async () => {
    const first = await fetch(`${server.baseUrl}/api/v2/organization/audit-trail?page[size]=1`, {
      headers: { authorization: `Bearer ${auditToken}` },
    });
    const total = ((await first.json()) as { pagination: { total_count: number } }).pagination.total_count;
    const last = await fetch(`${server.baseUrl}/api/v2/organization/audit-trail?page[size]=1&page[number]=${total}`, {
      headers: { authorization: `Bearer ${auditToken}` },
    });
    return ((await last.json()) as { data: { resource: { id: string; type: string; action: string } }[] }).data[0]!.resource;
  };

  beforeAll(async () => {
    server = await startServer({ UNDERSTUDY_EDITION: 'hosted' });
    auditToken = (await platform(server, 'POST', `/organizations/${ORG}/authentication-token?token=audit-trails`)).body.data.attributes
      .token as string;
  });
  afterAll(() => server.close());

  it('records each one in the organization of the deleted resource', async () => {
    const workspace = await create(`/organizations/${ORG}/workspaces`, { data: { type: 'workspaces', attributes: { name: 'kept' } } });
    const source = await create(`/organizations/${ORG}/workspaces`, { data: { type: 'workspaces', attributes: { name: 'source' } } });
    const team = await create(`/organizations/${ORG}/teams`, { data: { type: 'teams', attributes: { name: 'kept-team' } } });
    const project = await create(`/organizations/${ORG}/projects`, { data: { type: 'projects', attributes: { name: 'kept-project' } } });
    const task = await create(`/organizations/${ORG}/tasks`, {
      data: { type: 'tasks', attributes: { name: 'kept-task', url: 'http://127.0.0.1:9/hook', category: 'task', description: 'd' } },
    });
    const varset = await create(`/organizations/${ORG}/varsets`, { data: { type: 'varsets', attributes: { name: 'kept-set' } } });
    const module = await create(`/organizations/${ORG}/registry-modules`, {
      data: { type: 'registry-modules', attributes: { name: 'kept', provider: 'aws' } },
    });

    const cases: { path: string; make: () => Promise<string>; type: string; id?: string }[] = [
      {
        path: '/workspaces/:id',
        type: 'workspace',
        make: () => create(`/organizations/${ORG}/workspaces`, { data: { type: 'workspaces', attributes: { name: 'gone' } } }),
      },
      {
        path: '/teams/:id',
        type: 'team',
        make: () => create(`/organizations/${ORG}/teams`, { data: { type: 'teams', attributes: { name: 'gone' } } }),
      },
      {
        path: '/projects/:id',
        type: 'project',
        make: () => create(`/organizations/${ORG}/projects`, { data: { type: 'projects', attributes: { name: 'gone' } } }),
      },
      {
        path: '/agent-pools/:id',
        type: 'agent_pool',
        make: () => create(`/organizations/${ORG}/agent-pools`, { data: { type: 'agent-pools', attributes: { name: 'gone' } } }),
      },
      {
        path: '/tasks/:id',
        type: 'task',
        make: () =>
          create(`/organizations/${ORG}/tasks`, {
            data: { type: 'tasks', attributes: { name: 'gone', url: 'http://127.0.0.1:9/x', category: 'task', description: 'd' } },
          }),
      },
      {
        path: '/varsets/:id',
        type: 'varset',
        make: () => create(`/organizations/${ORG}/varsets`, { data: { type: 'varsets', attributes: { name: 'gone' } } }),
      },
      {
        path: '/ssh-keys/:id',
        type: 'ssh_key',
        make: () =>
          create(`/organizations/${ORG}/ssh-keys`, { data: { type: 'ssh-keys', attributes: { name: 'gone', value: 'not-a-key' } } }),
      },
      {
        path: '/organization-memberships/:id',
        type: 'organization_membership',
        make: () =>
          create(`/organizations/${ORG}/organization-memberships`, {
            data: {
              type: 'organization-memberships',
              attributes: { email: 'gone@example.test' },
              relationships: { teams: { data: [{ type: 'teams', id: team }] } },
            },
          }),
      },
      {
        path: '/team-workspaces/:id',
        type: 'team_workspace',
        make: () =>
          create('/team-workspaces', {
            data: {
              type: 'team-workspaces',
              attributes: { access: 'read' },
              relationships: { team: relationship('teams', team), workspace: relationship('workspaces', workspace) },
            },
          }),
      },
      {
        path: '/team-projects/:id',
        type: 'team_project',
        make: () =>
          create('/team-projects', {
            data: {
              type: 'team-projects',
              attributes: { access: 'read' },
              relationships: { team: relationship('teams', team), project: relationship('projects', project) },
            },
          }),
      },
      {
        path: '/vars/:id',
        type: 'var',
        make: () =>
          create(`/workspaces/${workspace}/vars`, { data: { type: 'vars', attributes: { key: 'a', value: 'v', category: 'env' } } }),
      },
      {
        path: `/workspaces/${workspace}/vars/:id`,
        type: 'var',
        make: () =>
          create(`/workspaces/${workspace}/vars`, { data: { type: 'vars', attributes: { key: 'b', value: 'v', category: 'env' } } }),
      },
      {
        path: `/varsets/${varset}/relationships/vars/:id`,
        type: 'var',
        make: () =>
          create(`/varsets/${varset}/relationships/vars`, {
            data: { type: 'vars', attributes: { key: 'c', value: 'v', category: 'env' } },
          }),
      },
      {
        path: '/run-triggers/:id',
        type: 'run_trigger',
        make: () =>
          create(`/workspaces/${workspace}/run-triggers`, {
            data: { type: 'run-triggers', relationships: { sourceable: relationship('workspaces', source) } },
          }),
      },
      {
        path: `/workspaces/${workspace}/tasks/:id`,
        type: 'task',
        make: () =>
          create(`/workspaces/${workspace}/tasks`, {
            data: {
              type: 'workspace-tasks',
              attributes: { 'enforcement-level': 'advisory' },
              relationships: { task: relationship('tasks', task) },
            },
          }),
      },
      {
        path: '/no-code-modules/:id',
        type: 'no_code_module',
        make: () =>
          create(`/organizations/${ORG}/no-code-modules`, {
            data: { type: 'no-code-modules', relationships: { 'registry-module': relationship('registry-modules', module) } },
          }),
      },
    ];
    for (const { path, make, type } of cases) {
      const id = await make();
      const deleted = await platform(server, 'DELETE', path.replace(':id', id));
      expect(deleted.status, `${path}: ${JSON.stringify(deleted.body)}`).toBe(204);
      expect(await lastEvent(), path).toEqual({ id, type, action: 'destroy', meta: null });
    }

    // A team's token, addressed by the team.
    await create(`/teams/${team}/authentication-token`, { data: { type: 'authentication-tokens' } });
    expect((await platform(server, 'DELETE', `/teams/${team}/authentication-token`)).status).toBe(204);
    expect(await lastEvent()).toMatchObject({ action: 'destroy', type: 'authentication_token' });
  });
});
