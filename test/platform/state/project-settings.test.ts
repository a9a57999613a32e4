import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform } from '../../helpers/app.js';
import { ORG, startWorld, type World } from '../workspaces/world.js';

const DURATION_TEXT = "Auto destroy activity duration has an incorrect format, we expect up to 4 numeric digits and 1 unit ('d' or 'h')";

describe('project settings', () => {
  let world: World;
  const admin = (method: string, path: string, body?: unknown) => platform(world.server, method, path, body ? { body } : {});
  const projectBody = (attributes: Record<string, unknown>) => ({ data: { type: 'projects', attributes } });

  beforeAll(async () => {
    world = await startWorld();
  });
  afterAll(() => world.close());

  it('validates and stores auto-destroy-activity-duration, and new workspaces inherit it', async () => {
    const created = await admin(
      'POST',
      `/organizations/${ORG}/projects`,
      projectBody({ name: 'ephemeral', 'auto-destroy-activity-duration': '14d' }),
    );
    expect(created.status).toBe(201);
    expect(created.body.data.attributes['auto-destroy-activity-duration']).toBe('14d');
    const id = created.body.data.id as string;

    for (const junk of ['20m', 'bar', '12345d', '', '3 d']) {
      const refused = await admin('PATCH', `/projects/${id}`, projectBody({ 'auto-destroy-activity-duration': junk }));
      expect(refused.status).toBe(422);
      expect(refused.body.errors[0]).toMatchObject({ title: 'invalid attribute', detail: DURATION_TEXT });
      expect(refused.body.errors[0].source.pointer).toBe('/data/attributes/auto-destroy-activity-duration');
    }
    const refusedCreate = await admin(
      'POST',
      `/organizations/${ORG}/projects`,
      projectBody({ name: 'never', 'auto-destroy-activity-duration': '20m' }),
    );
    expect(refusedCreate.status).toBe(422);
    expect((await admin('GET', `/organizations/${ORG}/projects?filter[names]=never`)).body.data).toEqual([]);
    expect((await admin('GET', `/projects/${id}`)).body.data.attributes['auto-destroy-activity-duration']).toBe('14d');

    const workspace = await admin('POST', `/organizations/${ORG}/workspaces`, {
      data: { type: 'workspaces', attributes: { name: 'inherits' }, relationships: { project: { data: { type: 'projects', id } } } },
    });
    expect(workspace.body.data.attributes['auto-destroy-activity-duration']).toBe('14d');
    const own = await admin('POST', `/organizations/${ORG}/workspaces`, {
      data: {
        type: 'workspaces',
        attributes: { name: 'own-duration', 'auto-destroy-activity-duration': '2h' },
        relationships: { project: { data: { type: 'projects', id } } },
      },
    });
    expect(own.body.data.attributes['auto-destroy-activity-duration']).toBe('2h');

    const hours = await admin('PATCH', `/projects/${id}`, projectBody({ 'auto-destroy-activity-duration': '2h' }));
    expect(hours.body.data.attributes['auto-destroy-activity-duration']).toBe('2h');
    const cleared = await admin('PATCH', `/projects/${id}`, projectBody({ 'auto-destroy-activity-duration': null }));
    expect(cleared.status).toBe(200);
    expect(cleared.body.data.attributes['auto-destroy-activity-duration']).toBeNull();
    const untouched = await admin('PATCH', `/projects/${id}`, projectBody({ description: 'still off' }));
    expect(untouched.body.data.attributes['auto-destroy-activity-duration']).toBeNull();
  });

  it('counts the workspaces and teams of each project, the default one included', async () => {
    const created = await admin('POST', `/organizations/${ORG}/projects`, projectBody({ name: 'counted' }));
    const id = created.body.data.id as string;
    expect(created.body.data.attributes).toMatchObject({ 'workspace-count': 0, 'team-count': 0 });
    for (const name of ['counted-1', 'counted-2']) {
      await admin('POST', `/organizations/${ORG}/workspaces`, {
        data: { type: 'workspaces', attributes: { name }, relationships: { project: { data: { type: 'projects', id } } } },
      });
    }
    await admin('POST', '/team-projects', {
      data: {
        type: 'team-projects',
        attributes: { access: 'read' },
        relationships: {
          team: { data: { type: 'teams', id: world.teams['plain'] } },
          project: { data: { type: 'projects', id } },
        },
      },
    });
    expect((await admin('GET', `/projects/${id}`)).body.data.attributes).toMatchObject({ 'workspace-count': 2, 'team-count': 1 });

    const before = (await admin('GET', `/organizations/${ORG}/projects?filter[names]=Default Project`)).body.data[0];
    await admin('POST', `/organizations/${ORG}/workspaces`, { data: { type: 'workspaces', attributes: { name: 'in-default' } } });
    const listed = await admin('GET', `/organizations/${ORG}/projects?page[size]=100`);
    const byName = new Map(listed.body.data.map((item: { attributes: { name: string } }) => [item.attributes.name, item]));
    expect((byName.get('counted') as { attributes: Record<string, unknown> }).attributes['workspace-count']).toBe(2);
    const defaultAfter = byName.get('Default Project') as { attributes: { 'workspace-count': number } };
    expect(defaultAfter.attributes['workspace-count']).toBe(before.attributes['workspace-count'] + 1);
  });
});
