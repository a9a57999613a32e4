import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform } from '../../helpers/app.js';
import { control, ORG, startWorld, type World } from '../workspaces/world.js';

const projectBody = (attributes: Record<string, unknown>) => ({ data: { type: 'projects', attributes } });

describe('projects', () => {
  let world: World;
  const create = (name: string, token?: string) =>
    platform(world.server, 'POST', `/organizations/${ORG}/projects`, {
      body: projectBody({ name, description: `about ${name}` }),
      ...(token ? { token } : {}),
    });

  beforeAll(async () => {
    world = await startWorld();
  });
  afterAll(() => world.close());

  it('gives every organization a default project, shown as its default-project and includable', async () => {
    const organization = await platform(world.server, 'GET', `/organizations/${ORG}?include=default-project`);
    expect(organization.status).toBe(200);
    const relationship = organization.body.data.relationships['default-project'].data;
    expect(relationship).toEqual({ id: expect.stringMatching(/^prj-/), type: 'projects' });
    expect(organization.body.included).toEqual([
      expect.objectContaining({ id: relationship.id, type: 'projects', attributes: expect.objectContaining({ name: 'Default Project' }) }),
    ]);
    expect((await platform(world.server, 'GET', `/organizations/${ORG}?include=nope`)).status).toBe(400);

    const workspace = await platform(world.server, 'POST', `/organizations/${ORG}/workspaces`, {
      body: { data: { type: 'workspaces', attributes: { name: 'in-default' } } },
    });
    expect(workspace.body.data.relationships.project.data.id).toBe(relationship.id);
    const deleted = await platform(world.server, 'DELETE', `/projects/${relationship.id}`);
    expect(deleted.status).toBe(409);
  });

  it('creates, shows, renames and deletes a project, with 422s for bad names', async () => {
    const created = await create('networking');
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    expect(id).toMatch(/^prj-/);
    expect(created.body.data.attributes).toMatchObject({ name: 'networking', description: 'about networking' });
    expect(created.body.data.relationships.organization.data).toEqual({ id: ORG, type: 'organizations' });
    expect((await platform(world.server, 'GET', `/projects/${id}`)).body).toEqual(created.body);

    expect((await create('networking')).status).toBe(422);
    const short = await create('no');
    expect(short.status).toBe(422);
    expect(short.body.errors[0]).toMatchObject({ title: 'invalid attribute', source: { pointer: '/data/attributes/name' } });
    expect(short.body.errors[0].detail).toMatch(/^Name may only contain/);
    expect((await create(' padded ')).status).toBe(422);
    expect((await create('x'.repeat(41))).status).toBe(422);
    expect((await platform(world.server, 'POST', `/organizations/${ORG}/projects`, { body: projectBody({}) })).status).toBe(422);
    expect((await platform(world.server, 'POST', '/organizations/missing/projects', { body: projectBody({ name: 'abc' }) })).status).toBe(
      404,
    );

    const renamed = await platform(world.server, 'PATCH', `/projects/${id}`, { body: projectBody({ name: 'network team' }) });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data.attributes).toMatchObject({ name: 'network team', description: 'about networking' });
    expect((await platform(world.server, 'DELETE', `/projects/${id}`)).status).toBe(204);
    expect((await platform(world.server, 'GET', `/projects/${id}`)).status).toBe(404);
    expect((await platform(world.server, 'DELETE', `/projects/${id}`)).status).toBe(404);
  });

  it('reports every invalid attribute together: a duplicate name does not hide a malformed duration', async () => {
    const first = await create('foo-twice');
    expect(first.status).toBe(201);
    const both = await platform(world.server, 'POST', `/organizations/${ORG}/projects`, {
      body: projectBody({ name: 'foo-twice', 'auto-destroy-activity-duration': '20m' }),
    });
    expect(both.status).toBe(422);
    expect(both.body.errors.map((error: { source: { pointer: string } }) => error.source.pointer)).toEqual([
      '/data/attributes/name',
      '/data/attributes/auto-destroy-activity-duration',
    ]);
    expect(both.body.errors[1]).toMatchObject({
      title: 'invalid attribute',
      detail: "Auto destroy activity duration has an incorrect format, we expect up to 4 numeric digits and 1 unit ('d' or 'h')",
    });
    const listed = await platform(world.server, 'GET', `/organizations/${ORG}/projects?q=foo-twice`);
    expect(listed.body.data).toHaveLength(1);
    expect((await platform(world.server, 'DELETE', `/projects/${first.body.data.id}`)).status).toBe(204);
  });

  it('lists by name with q, filter[names] and pagination', async () => {
    for (const name of ['alpha-one', 'alpha-two', 'beta-one']) expect((await create(name)).status).toBe(201);
    const names = (body: { data: { attributes: { name: string } }[] }) => body.data.map((item) => item.attributes.name);
    const searched = await platform(world.server, 'GET', `/organizations/${ORG}/projects?q=ALPHA`);
    expect(names(searched.body)).toEqual(['alpha-one', 'alpha-two']);
    const filtered = await platform(world.server, 'GET', `/organizations/${ORG}/projects?filter[names]=beta-one,alpha-two`);
    expect(names(filtered.body)).toEqual(['alpha-two', 'beta-one']);
    const paged = await platform(world.server, 'GET', `/organizations/${ORG}/projects?page[size]=2&page[number]=2`);
    expect(paged.body.meta.pagination).toMatchObject({ 'current-page': 2, 'total-count': 4 });
    expect((await platform(world.server, 'GET', `/organizations/${ORG}/projects?page[size]=x`)).status).toBe(400);
  });

  it('puts workspaces in the project their relationship names, moves them, and refuses to delete a project holding one', async () => {
    const project = (await create('apps')).body.data.id as string;
    const relationships = (id: string | null) => ({ project: { data: id === null ? null : { type: 'projects', id } } });
    const workspace = await platform(world.server, 'POST', `/organizations/${ORG}/workspaces?include=project`, {
      body: { data: { type: 'workspaces', attributes: { name: 'in-apps' }, relationships: relationships(project) } },
    });
    expect(workspace.status).toBe(201);
    expect(workspace.body.data.relationships.project.data).toEqual({ id: project, type: 'projects' });
    expect(workspace.body.included[0]).toMatchObject({ id: project, attributes: { name: 'apps' } });
    expect((await platform(world.server, 'DELETE', `/projects/${project}`)).status).toBe(409);
    const listed = await platform(world.server, 'GET', `/organizations/${ORG}/workspaces?filter[project][id]=${project}`);
    expect(listed.body.data.map((item: { attributes: { name: string } }) => item.attributes.name)).toEqual(['in-apps']);
    expect(listed.body.meta.pagination['total-count']).toBe(1);

    const other = await platform(world.server, 'POST', `/organizations/${ORG}/workspaces`, {
      body: { data: { type: 'workspaces', attributes: { name: 'bad-project' }, relationships: relationships('prj-unknown') } },
    });
    expect(other.status).toBe(422);

    const moved = await platform(world.server, 'PATCH', `/workspaces/${workspace.body.data.id}`, {
      body: { data: { type: 'workspaces', attributes: {}, relationships: relationships(null) } },
    });
    expect(moved.status).toBe(200);
    const defaultProject = moved.body.data.relationships.project.data.id as string;
    expect(defaultProject).not.toBe(project);
    const inDefault = await platform(
      world.server,
      'GET',
      `/organizations/${ORG}/workspaces?filter[project][id]=${defaultProject}&page[size]=100`,
    );
    expect(inDefault.body.data.map((item: { attributes: { name: string } }) => item.attributes.name)).toContain('in-apps');
    expect((await platform(world.server, 'GET', `/organizations/${ORG}/workspaces?filter[project][id]=${project}`)).body.data).toEqual([]);
    expect((await platform(world.server, 'DELETE', `/projects/${project}`)).status).toBe(204);
  });

  it('lets members read projects and only Manage Projects change them', async () => {
    const id = (await create('guarded')).body.data.id as string;
    expect((await platform(world.server, 'GET', `/projects/${id}`, { token: world.principals['member'] })).status).toBe(200);
    expect((await platform(world.server, 'GET', `/projects/${id}`, { token: world.principals['outsider'] })).status).toBe(404);
    expect((await create('by-member', world.principals['member'])).status).toBe(404);
    expect(
      (
        await platform(world.server, 'PATCH', `/projects/${id}`, {
          body: projectBody({ name: 'taken-over' }),
          token: world.principals['manager'],
        })
      ).status,
    ).toBe(404);
    expect((await platform(world.server, 'DELETE', `/projects/${id}`, { token: world.principals['member'] })).status).toBe(404);
  });

  it('goes with its organization, workspaces in it included', async () => {
    const org = { data: { type: 'organizations', attributes: { name: 'short-lived', email: 'owners@short-lived.test' } } };
    expect((await platform(world.server, 'POST', '/organizations', { body: org })).status).toBe(201);
    const project = await platform(world.server, 'POST', '/organizations/short-lived/projects', { body: projectBody({ name: 'doomed' }) });
    const relationships = { project: { data: { type: 'projects', id: project.body.data.id } } };
    const workspace = { data: { type: 'workspaces', attributes: { name: 'inside' }, relationships } };
    expect((await platform(world.server, 'POST', '/organizations/short-lived/workspaces', { body: workspace })).status).toBe(201);
    expect((await platform(world.server, 'DELETE', '/organizations/short-lived')).status).toBe(204);
    expect((await platform(world.server, 'GET', `/projects/${project.body.data.id}`)).status).toBe(404);
  });

  it('recreates the default projects on reset', async () => {
    expect((await control(world.server, 'POST', '/reset')).status).toBeLessThan(300);
    const organization = await platform(world.server, 'GET', `/organizations/understudy?include=default-project`);
    expect(organization.body.included[0].attributes.name).toBe('Default Project');
    const projects = await platform(world.server, 'GET', '/organizations/understudy/projects');
    expect(projects.body.data).toHaveLength(1);
  });
});
