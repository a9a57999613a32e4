import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform } from '../../helpers/app.js';
import { ORG, OTHER_ORG, startWorld, type World } from './world.js';

/** Agent pools, SSH keys and team access: the resources workspaces point at. */
describe('agent pools', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld();
  });
  afterAll(() => world.close());
  const createPool = (name: unknown, token?: string) =>
    platform(world.server, 'POST', `/organizations/${ORG}/agent-pools`, {
      token,
      body: { data: { type: 'agent-pools', attributes: { name } } },
    });

  it('creates, lists, shows, renames and deletes', async () => {
    const created = await createPool('builders');
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      type: 'agent-pools',
      attributes: { name: 'builders', 'organization-scoped': true, 'agent-count': 0 },
      relationships: { organization: { data: { id: ORG, type: 'organizations' } }, workspaces: { data: [] } },
      links: { self: `/api/v2/agent-pools/${created.body.data.id}` },
    });
    expect(created.body.data.id).toMatch(/^apool-/);
    const listed = await platform(world.server, 'GET', `/organizations/${ORG}/agent-pools?q=build`);
    expect(listed.body.data.map((pool: { id: string }) => pool.id)).toEqual([created.body.data.id]);
    expect((await platform(world.server, 'GET', `/agent-pools/${created.body.data.id}`)).body.data).toEqual(created.body.data);
    const renamed = await platform(world.server, 'PATCH', `/agent-pools/${created.body.data.id}`, {
      body: { data: { type: 'agent-pools', attributes: { name: 'runners' } } },
    });
    expect(renamed.body.data.attributes.name).toBe('runners');
    expect((await platform(world.server, 'DELETE', `/agent-pools/${created.body.data.id}`)).status).toBe(204);
    expect((await platform(world.server, 'GET', `/agent-pools/${created.body.data.id}`)).status).toBe(404);
  });

  it('refuses duplicate or malformed names, and deleting a pool in use', async () => {
    const pool = await createPool('in-use');
    expect((await createPool('in-use')).status).toBe(422);
    expect((await createPool('')).status).toBe(422);
    expect((await createPool(5)).status).toBe(422);
    await platform(world.server, 'POST', `/organizations/${ORG}/workspaces`, {
      body: {
        data: { type: 'workspaces', attributes: { name: 'agent-ws', 'execution-mode': 'agent', 'agent-pool-id': pool.body.data.id } },
      },
    });
    const shown = await platform(world.server, 'GET', `/agent-pools/${pool.body.data.id}`);
    expect(shown.body.data.relationships.workspaces.data).toHaveLength(1);
    expect((await platform(world.server, 'DELETE', `/agent-pools/${pool.body.data.id}`)).status).toBe(422);
  });

  it('lets members see pools, but only agent-pool managers change them', async () => {
    expect((await platform(world.server, 'GET', `/organizations/${ORG}/agent-pools`, { token: world.principals.member })).status).toBe(200);
    expect((await createPool('not-yours', world.principals.manager)).status).toBe(404);
    expect((await createPool('owned', world.principals.owner)).status).toBe(201);
    expect((await createPool('org-token', world.principals.orgtoken)).status).toBe(201);
    expect((await platform(world.server, 'GET', `/organizations/${ORG}/agent-pools`, { token: world.principals.outsider })).status).toBe(
      404,
    );
  });
});

describe('SSH keys', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld();
  });
  afterAll(() => world.close());

  it('creates, lists, shows, updates and deletes without ever returning the value', async () => {
    const created = await platform(world.server, 'POST', `/organizations/${ORG}/ssh-keys`, {
      body: { data: { type: 'ssh-keys', attributes: { name: 'deploy', value: 'SECRET-KEY-MATERIAL' } } },
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({
      id: expect.stringMatching(/^sshkey-/),
      type: 'ssh-keys',
      attributes: { name: 'deploy' },
      relationships: { organization: { data: { id: ORG, type: 'organizations' } } },
      links: { self: `/api/v2/ssh-keys/${created.body.data.id}` },
    });
    const id = created.body.data.id;
    const listed = await platform(world.server, 'GET', `/organizations/${ORG}/ssh-keys`);
    expect(listed.body.data).toEqual([created.body.data]);
    expect((await platform(world.server, 'GET', `/ssh-keys/${id}`)).body.data).toEqual(created.body.data);
    const updated = await platform(world.server, 'PATCH', `/ssh-keys/${id}`, {
      body: { data: { type: 'ssh-keys', attributes: { name: 'renamed', value: 'NEW-SECRET' } } },
    });
    expect(updated.body.data.attributes).toEqual({ name: 'renamed' });
    for (const response of [created, listed, updated]) expect(JSON.stringify(response.body)).not.toMatch(/SECRET/);
    expect((await platform(world.server, 'DELETE', `/ssh-keys/${id}`)).status).toBe(204);
    expect((await platform(world.server, 'GET', `/ssh-keys/${id}`)).status).toBe(404);
  });

  it('requires name and value, and hides keys from those without VCS settings permission', async () => {
    const post = (attributes: Record<string, unknown>, token?: string) =>
      platform(world.server, 'POST', `/organizations/${ORG}/ssh-keys`, { token, body: { data: { type: 'ssh-keys', attributes } } });
    expect((await post({ name: 'x' })).status).toBe(422);
    expect((await post({ value: 'x' })).status).toBe(422);
    expect((await post({ name: 'x', value: 'y' }, world.principals.manager)).status).toBe(404);
    const key = await post({ name: 'owned', value: 'y' }, world.principals.owner);
    expect(key.status).toBe(201);
    expect((await platform(world.server, 'GET', `/ssh-keys/${key.body.data.id}`, { token: world.principals.outsider })).status).toBe(404);
    expect(
      (
        await platform(world.server, 'PATCH', `/ssh-keys/${key.body.data.id}`, {
          body: { data: { type: 'ssh-keys', attributes: { name: '' } } },
        })
      ).status,
    ).toBe(422);
    expect((await platform(world.server, 'GET', `/organizations/${OTHER_ORG}/ssh-keys`, { token: world.principals.owner })).status).toBe(
      404,
    );
  });
});

describe('team access to workspaces', () => {
  let world: World;
  let workspace: string;
  beforeAll(async () => {
    world = await startWorld();
    workspace = (
      await platform(world.server, 'POST', `/organizations/${ORG}/workspaces`, {
        body: { data: { type: 'workspaces', attributes: { name: 'shared' } } },
      })
    ).body.data.id;
  });
  afterAll(() => world.close());
  const grant = (team: string, access: unknown, workspaceId = workspace, token?: string) =>
    platform(world.server, 'POST', '/team-workspaces', {
      token,
      body: {
        data: {
          type: 'team-workspaces',
          attributes: { access },
          relationships: { team: { data: { type: 'teams', id: team } }, workspace: { data: { type: 'workspaces', id: workspaceId } } },
        },
      },
    });

  it('grants, lists, shows, changes and revokes access, which follows into permissions', async () => {
    const created = await grant(world.teams['plain']!, 'write');
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      type: 'team-workspaces',
      attributes: { access: 'write', runs: 'apply', 'workspace-locking': true },
      relationships: {
        team: { data: { id: world.teams['plain'], type: 'teams' } },
        workspace: { data: { id: workspace, type: 'workspaces' } },
      },
    });
    const id = created.body.data.id;
    expect(id).toMatch(/^tws-/);
    const listed = await platform(world.server, 'GET', `/team-workspaces?filter[workspace][id]=${workspace}`);
    expect(listed.body.data).toEqual([created.body.data]);
    expect((await platform(world.server, 'GET', `/team-workspaces/${id}`)).body.data).toEqual(created.body.data);
    const lock = await platform(world.server, 'POST', `/workspaces/${workspace}/actions/lock`, { token: world.principals.member });
    expect(lock.status).toBe(200);
    await platform(world.server, 'POST', `/workspaces/${workspace}/actions/unlock`, { token: world.principals.member });
    const changed = await platform(world.server, 'PATCH', `/team-workspaces/${id}`, {
      body: { data: { type: 'team-workspaces', attributes: { access: 'read' } } },
    });
    expect(changed.body.data.attributes.access).toBe('read');
    expect((await platform(world.server, 'POST', `/workspaces/${workspace}/actions/lock`, { token: world.principals.member })).status).toBe(
      404,
    );
    expect((await platform(world.server, 'DELETE', `/team-workspaces/${id}`)).status).toBe(204);
    expect((await platform(world.server, 'GET', `/workspaces/${workspace}`, { token: world.principals.member })).status).toBe(404);
  });

  it('validates access, teams and the filter', async () => {
    expect((await grant(world.teams['plain']!, 'owner')).status).toBe(422);
    expect((await grant('team-nope', 'read')).status).toBe(422);
    const foreignTeam = (await platform(world.server, 'GET', `/organizations/elsewhere/teams`)).body.data[0].id;
    expect((await grant(foreignTeam, 'read')).status).toBe(422);
    expect((await grant(world.teams['plain']!, 'read', 'ws-nope')).status).toBe(404);
    await grant(world.teams['readers']!, 'read');
    expect((await grant(world.teams['readers']!, 'plan')).status).toBe(422);
    expect((await platform(world.server, 'GET', '/team-workspaces')).status).toBe(400);
    expect((await platform(world.server, 'GET', '/team-workspaces?filter[workspace][id]=ws-nope')).status).toBe(404);
    expect((await platform(world.server, 'GET', '/team-workspaces/tws-nope')).status).toBe(404);
  });

  it('needs admin access to the workspace to grant, read access to list', async () => {
    const id = workspace;
    await grant(world.teams['level-write']!, 'write');
    expect((await grant(world.teams['plain']!, 'read', id, world.principals.wswrite)).status).toBe(404);
    expect(
      (await platform(world.server, 'GET', `/team-workspaces?filter[workspace][id]=${id}`, { token: world.principals.wswrite })).status,
    ).toBe(200);
    await grant(world.teams['level-admin']!, 'admin');
    expect((await grant(world.teams['plain']!, 'plan', id, world.principals.wsadmin)).status).toBe(201);
    expect(
      (await platform(world.server, 'GET', `/team-workspaces?filter[workspace][id]=${id}`, { token: world.principals.outsider })).status,
    ).toBe(404);
  });
});
