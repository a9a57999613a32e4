import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform } from '../../helpers/app.js';
import { ORG, startWorld, workspaceWithLevels, type World } from './world.js';

/**
 * Real clients compare the workspace from create, show by id, show by name, list and the
 * consumer list field by field, so they must be the same object for the same caller.
 */
describe('one workspace, one serialization', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld();
  });
  afterAll(() => world.close());

  for (const role of ['admin', 'wsadmin', 'wsread']) {
    it(`is identical across create, show, list and consumer list for ${role}`, async () => {
      const token = world.principals[role];
      const producer = (await workspaceWithLevels(world, `producer-${role}`, { 'global-remote-state': false })).id;
      const pool = await platform(world.server, 'POST', `/organizations/${ORG}/agent-pools`, {
        body: { data: { type: 'agent-pools', attributes: { name: `pool-${role}` } } },
      });
      const created = await platform(world.server, 'POST', `/organizations/${ORG}/workspaces`, {
        body: {
          data: {
            type: 'workspaces',
            attributes: {
              name: `consumer-${role}`,
              'execution-mode': 'agent',
              'agent-pool-id': pool.body.data.id,
              'vcs-repo': { 'oauth-token-id': 'ot-1', identifier: 'acme/repo' },
              'trigger-patterns': ['**/*'],
            },
            relationships: {
              tags: {
                data: [
                  { type: 'tags', attributes: { name: 'b' } },
                  { type: 'tags', attributes: { name: 'a' } },
                ],
              },
            },
          },
        },
      });
      expect(created.status).toBe(201);
      const id = created.body.data.id;
      for (const teamName of ['level-admin', 'level-read']) {
        await platform(world.server, 'POST', '/team-workspaces', {
          body: {
            data: {
              type: 'team-workspaces',
              attributes: { access: teamName === 'level-admin' ? 'admin' : 'read' },
              relationships: {
                team: { data: { type: 'teams', id: world.teams[teamName] } },
                workspace: { data: { type: 'workspaces', id } },
              },
            },
          },
        });
      }
      expect(
        (
          await platform(world.server, 'POST', `/workspaces/${producer}/relationships/remote-state-consumers`, {
            body: { data: [{ type: 'workspaces', id }] },
          })
        ).status,
      ).toBe(204);

      const byId = (await platform(world.server, 'GET', `/workspaces/${id}`, { token })).body.data;
      const byName = (await platform(world.server, 'GET', `/organizations/${ORG}/workspaces/consumer-${role}`, { token })).body.data;
      const listed = (await platform(world.server, 'GET', `/organizations/${ORG}/workspaces?search[name]=consumer-${role}`, { token })).body
        .data;
      const consumers = (await platform(world.server, 'GET', `/workspaces/${producer}/relationships/remote-state-consumers`, { token }))
        .body.data;
      expect(byName).toEqual(byId);
      expect(listed).toEqual([byId]);
      expect(consumers).toEqual([byId]);
      if (role === 'admin') expect(created.body.data).toEqual(byId);
      expect(byId.attributes['tag-names']).toEqual(['b', 'a']);
    });
  }

  it('shows each caller its own permissions', async () => {
    const { id } = await workspaceWithLevels(world, 'permissions');
    const permissions = async (role: string) =>
      (await platform(world.server, 'GET', `/workspaces/${id}`, { token: world.principals[role] })).body.data.attributes.permissions;
    expect(await permissions('wsread')).toMatchObject({
      'can-read-settings': true,
      'can-queue-run': false,
      'can-lock': false,
      'can-update': false,
    });
    expect(await permissions('wsplan')).toMatchObject({ 'can-queue-run': true, 'can-queue-apply': false, 'can-lock': false });
    expect(await permissions('wswrite')).toMatchObject({
      'can-queue-apply': true,
      'can-lock': true,
      'can-unlock': true,
      'can-update': false,
      'can-force-unlock': false,
    });
    expect(await permissions('wsadmin')).toMatchObject({
      'can-update': true,
      'can-destroy': true,
      'can-force-unlock': true,
      'can-force-delete': true,
      'can-manage-run-tasks': true,
    });
    expect(await permissions('reader')).toMatchObject({ 'can-read-settings': true, 'can-update': false });
    expect(await permissions('manager')).toMatchObject({ 'can-update': true, 'can-destroy': true });
  });
});
