import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform } from '../../helpers/app.js';
import { ORG, OTHER_ORG, startWorld, type World } from '../workspaces/world.js';

const grantBody = (access: string | undefined, team: string, project: string) => ({
  data: {
    type: 'team-projects',
    attributes: access === undefined ? {} : { access },
    relationships: { team: { data: { type: 'teams', id: team } }, project: { data: { type: 'projects', id: project } } },
  },
});

describe('team project access', () => {
  let world: World;
  let project: string;
  let workspace: string;
  const member = () => world.principals['member'];
  const asMember = (method: string, path: string, body?: unknown) =>
    platform(world.server, method, path, { token: member(), ...(body ? { body } : {}) });

  beforeAll(async () => {
    world = await startWorld();
    project = (
      await platform(world.server, 'POST', `/organizations/${ORG}/projects`, {
        body: { data: { type: 'projects', attributes: { name: 'granted' } } },
      })
    ).body.data.id;
    const relationships = { project: { data: { type: 'projects', id: project } } };
    const created = await platform(world.server, 'POST', `/organizations/${ORG}/workspaces`, {
      body: { data: { type: 'workspaces', attributes: { name: 'in-granted' }, relationships } },
    });
    workspace = created.body.data.id;
    await platform(world.server, 'POST', `/organizations/${ORG}/workspaces`, {
      body: { data: { type: 'workspaces', attributes: { name: 'elsewhere' } } },
    });
  });
  afterAll(() => world.close());

  it('gives a team its level on every workspace of the project, and takes it back', async () => {
    expect((await asMember('GET', `/workspaces/${workspace}`)).status).toBe(404);
    const granted = await platform(world.server, 'POST', '/team-projects', {
      body: grantBody('read', world.teams['plain'] as string, project),
    });
    expect(granted.status).toBe(201);
    expect(granted.body.data).toMatchObject({ type: 'team-projects', attributes: { access: 'read' } });
    const id = granted.body.data.id as string;

    const shown = await asMember('GET', `/workspaces/${workspace}`);
    expect(shown.status).toBe(200);
    expect(shown.body.data.attributes.permissions).toMatchObject({ 'can-read-settings': true, 'can-lock': false, 'can-update': false });
    const listed = await asMember('GET', `/organizations/${ORG}/workspaces`);
    expect(listed.body.data.map((item: { attributes: { name: string } }) => item.attributes.name)).toEqual(['in-granted']);
    expect((await asMember('POST', `/workspaces/${workspace}/actions/lock`)).status).toBe(404);

    expect(
      (await platform(world.server, 'PATCH', `/team-projects/${id}`, { body: grantBody('write', world.teams['plain'] as string, project) }))
        .status,
    ).toBe(200);
    expect((await asMember('POST', `/workspaces/${workspace}/actions/lock`)).status).toBe(200);
    expect((await asMember('POST', `/workspaces/${workspace}/actions/unlock`)).status).toBe(200);
    const settings = { data: { type: 'workspaces', attributes: { description: 'by member' } } };
    expect((await asMember('PATCH', `/workspaces/${workspace}`, settings)).status).toBe(404);

    await platform(world.server, 'PATCH', `/team-projects/${id}`, { body: grantBody('maintain', world.teams['plain'] as string, project) });
    expect((await asMember('PATCH', `/workspaces/${workspace}`, settings)).status).toBe(200);

    const list = await platform(world.server, 'GET', `/team-projects?filter[project][id]=${project}`);
    expect(list.body.data.map((item: { id: string }) => item.id)).toEqual([id]);
    expect((await platform(world.server, 'GET', `/team-projects/${id}`)).body.data.attributes.access).toBe('maintain');

    expect((await platform(world.server, 'DELETE', `/team-projects/${id}`)).status).toBe(204);
    expect((await asMember('GET', `/workspaces/${workspace}`)).status).toBe(404);
    expect((await platform(world.server, 'GET', `/team-projects/${id}`)).status).toBe(404);
  });

  it('refuses bad grants with 400, 404 and 422s', async () => {
    const team = world.teams['plain'] as string;
    expect((await platform(world.server, 'GET', '/team-projects')).status).toBe(400);
    expect((await platform(world.server, 'POST', '/team-projects', { body: grantBody('superuser', team, project) })).status).toBe(422);
    expect((await platform(world.server, 'POST', '/team-projects', { body: grantBody(undefined, team, project) })).status).toBe(422);
    expect((await platform(world.server, 'POST', '/team-projects', { body: grantBody('read', 'team-missing', project) })).status).toBe(422);
    expect((await platform(world.server, 'POST', '/team-projects', { body: grantBody('read', team, 'prj-missing') })).status).toBe(404);
    const other = await platform(world.server, 'GET', `/organizations/${OTHER_ORG}/teams`);
    const foreignTeam = other.body.data[0].id as string;
    expect((await platform(world.server, 'POST', '/team-projects', { body: grantBody('read', foreignTeam, project) })).status).toBe(422);
    const first = await platform(world.server, 'POST', '/team-projects', { body: grantBody('read', team, project) });
    expect(first.status).toBe(201);
    expect((await platform(world.server, 'POST', '/team-projects', { body: grantBody('write', team, project) })).status).toBe(422);
    expect((await asMember('POST', '/team-projects', grantBody('admin', team, project))).status).toBe(404);
    expect((await asMember('DELETE', `/team-projects/${first.body.data.id}`)).status).toBe(404);
    expect((await platform(world.server, 'DELETE', `/team-projects/${first.body.data.id}`)).status).toBe(204);
  });
});
