import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform } from '../../helpers/app.js';
import { control, ORG, OTHER_ORG, startWorld, type World } from '../workspaces/world.js';

const TASKS = `/organizations/${ORG}/tasks`;
const body = (attributes: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  data: { type: 'tasks', attributes, ...extra },
});
const valid = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  url: 'http://127.0.0.1:9/hook',
  description: 'checks things',
  category: 'task',
  ...extra,
});

describe('run tasks', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld();
  });
  afterAll(() => world.close());

  it('creates with defaults, never returning the hmac key', async () => {
    const created = await platform(world.server, 'POST', TASKS, { body: body(valid('scanner', { 'hmac-key': 'secret-key' })) });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      type: 'tasks',
      attributes: {
        name: 'scanner',
        url: 'http://127.0.0.1:9/hook',
        description: 'checks things',
        category: 'task',
        'hmac-key': null,
        enabled: true,
      },
      relationships: { organization: { data: { id: ORG, type: 'organizations' } }, tasks: { data: [] }, 'agent-pool': { data: null } },
      links: { self: `/api/v2/tasks/${created.body.data.id}` },
    });
    expect(created.body.data.id).toMatch(/^task-/);
    expect(JSON.stringify(created.body)).not.toContain('secret-key');
  });

  it('takes the spec example spellings: hmac_key and enabled as a string', async () => {
    const created = await platform(world.server, 'POST', TASKS, { body: body(valid('example', { hmac_key: 'k', enabled: 'false' })) });
    expect(created.status).toBe(201);
    expect(created.body.data.attributes).toMatchObject({ enabled: false, 'hmac-key': null });
  });

  it('round-trips global-configuration', async () => {
    const global = { enabled: true, stages: ['pre_plan', 'post_apply'], 'enforcement-level': 'mandatory' };
    const created = await platform(world.server, 'POST', TASKS, { body: body(valid('global', { 'global-configuration': global })) });
    expect(created.body.data.attributes['global-configuration']).toEqual(global);
    const shown = await platform(world.server, 'GET', `/tasks/${created.body.data.id}`);
    expect(shown.body.data.attributes['global-configuration']).toEqual(global);
    expect(
      (
        await platform(world.server, 'POST', TASKS, {
          body: body(valid('bad-global', { 'global-configuration': { stages: ['mid_plan'] } })),
        })
      ).status,
    ).toBe(422);
  });

  it('validates name, url, category, description and enabled (422 with pointers)', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ ...valid('x'), name: undefined }, '/data/attributes/name'],
      [valid('bad name'), '/data/attributes/name'],
      [{ ...valid('no-url'), url: undefined }, '/data/attributes/url'],
      [valid('ftp', { url: 'ftp://example.test' }), '/data/attributes/url'],
      [valid('not-a-url', { url: 'nope' }), '/data/attributes/url'],
      [valid('wrong-category', { category: 'hook' }), '/data/attributes/category'],
      [{ ...valid('no-category'), category: undefined }, '/data/attributes/category'],
      [{ ...valid('no-description'), description: undefined }, '/data/attributes/description'],
      [valid('null-description', { description: null }), '/data/attributes/description'],
      [valid('bad-enabled', { enabled: 'yes' }), '/data/attributes/enabled'],
    ];
    for (const [attributes, pointer] of cases) {
      const response = await platform(world.server, 'POST', TASKS, { body: body(attributes) });
      expect(response.status, JSON.stringify(attributes)).toBe(422);
      expect(response.body.errors[0].source.pointer).toBe(pointer);
    }
    expect((await platform(world.server, 'POST', TASKS, { body: { data: { type: 'workspaces', attributes: valid('t') } } })).status).toBe(
      422,
    );
    await platform(world.server, 'POST', TASKS, { body: body(valid('dupe')) });
    expect((await platform(world.server, 'POST', TASKS, { body: body(valid('dupe')) })).status).toBe(422);
  });

  it('lists with pagination and shows; unknown ids and organizations are 404', async () => {
    const listed = await platform(world.server, 'GET', `${TASKS}?page[size]=2`);
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(2);
    expect(listed.body.meta.pagination['total-count']).toBeGreaterThanOrEqual(4);
    const one = listed.body.data[0];
    expect((await platform(world.server, 'GET', `/tasks/${one.id}`)).body.data).toEqual(one);
    expect((await platform(world.server, 'GET', '/tasks/task-nope')).status).toBe(404);
    expect((await platform(world.server, 'GET', '/organizations/nope/tasks')).status).toBe(404);
    expect((await platform(world.server, 'POST', '/organizations/nope/tasks', { body: body(valid('x')) })).status).toBe(404);
  });

  it('updates, keeping absent attributes; hmac-key null clears it', async () => {
    const created = await platform(world.server, 'POST', TASKS, { body: body(valid('updatable', { 'hmac-key': 'k1' })) });
    const id = created.body.data.id;
    const updated = await platform(world.server, 'PATCH', `/tasks/${id}`, {
      body: body({ name: 'renamed', enabled: false, description: 'new words' }),
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data.attributes).toMatchObject({
      name: 'renamed',
      enabled: false,
      description: 'new words',
      url: 'http://127.0.0.1:9/hook',
      'hmac-key': null,
    });
    const stored = () =>
      world.server.app.runtime.store.sqlite.prepare('SELECT hmac_key FROM run_tasks WHERE id = ?').get(id) as { hmac_key: string | null };
    // Kept (sealed at rest: never the key itself in the row); delivery.test.ts checks it still signs.
    expect(stored().hmac_key).toMatch(/^sealed:v1:/);
    await platform(world.server, 'PATCH', `/tasks/${id}`, { body: body({ 'hmac-key': null }) });
    expect(stored().hmac_key).toBeNull();
    expect((await platform(world.server, 'PATCH', `/tasks/${id}`, { body: body({ category: 'other' }) })).status).toBe(422);
    expect(
      (await platform(world.server, 'PATCH', `/tasks/${id}`, { body: { data: { type: 'workspace-tasks', attributes: {} } } })).status,
    ).toBe(422);
    expect((await platform(world.server, 'PATCH', '/tasks/task-nope', { body: body({ name: 'x' }) })).status).toBe(404);
  });

  it('deletes, with its attachments; a second delete is 404', async () => {
    const task = (await platform(world.server, 'POST', TASKS, { body: body(valid('short-lived')) })).body.data.id;
    const ws = (
      await platform(world.server, 'POST', `/organizations/${ORG}/workspaces`, {
        body: { data: { type: 'workspaces', attributes: { name: 'with-task' } } },
      })
    ).body.data.id;
    const attached = await platform(world.server, 'POST', `/workspaces/${ws}/tasks`, {
      body: {
        data: {
          type: 'workspace-tasks',
          attributes: { 'enforcement-level': 'advisory' },
          relationships: { task: { data: { type: 'tasks', id: task } } },
        },
      },
    });
    expect(attached.status).toBe(201);
    expect((await platform(world.server, 'DELETE', `/tasks/${task}`)).status).toBe(204);
    expect((await platform(world.server, 'GET', `/tasks/${task}`)).status).toBe(404);
    expect((await platform(world.server, 'DELETE', `/tasks/${task}`)).status).toBe(404);
    expect((await platform(world.server, 'GET', `/workspaces/${ws}/tasks/${attached.body.data.id}`)).status).toBe(404);
    expect((await platform(world.server, 'GET', `/workspaces/${ws}/tasks`)).body.data).toEqual([]);
  });

  it('includes workspace tasks and their workspaces', async () => {
    const task = (await platform(world.server, 'POST', TASKS, { body: body(valid('included')) })).body.data.id;
    const attach = async (name: string, level: string) => {
      const ws = (
        await platform(world.server, 'POST', `/organizations/${ORG}/workspaces`, {
          body: { data: { type: 'workspaces', attributes: { name } } },
        })
      ).body.data.id;
      return (
        await platform(world.server, 'POST', `/workspaces/${ws}/tasks`, {
          body: {
            data: {
              type: 'workspace-tasks',
              attributes: { 'enforcement-level': level },
              relationships: { task: { data: { type: 'tasks', id: task } } },
            },
          },
        })
      ).body.data;
    };
    const first = await attach('inc-1', 'advisory');
    const second = await attach('inc-2', 'mandatory');
    const shown = await platform(world.server, 'GET', `/tasks/${task}?include=workspace_tasks`);
    expect(shown.body.data.relationships.tasks.data).toEqual([
      { id: first.id, type: 'workspace-tasks' },
      { id: second.id, type: 'workspace-tasks' },
    ]);
    expect(
      shown.body.included.map((item: { attributes: { 'enforcement-level': string } }) => item.attributes['enforcement-level']),
    ).toEqual(['advisory', 'mandatory']);
    const deep = await platform(world.server, 'GET', `/tasks/${task}?include=workspace_tasks.workspace`);
    expect(deep.body.included.map((item: { type: string }) => item.type).sort()).toEqual([
      'workspace-tasks',
      'workspace-tasks',
      'workspaces',
      'workspaces',
    ]);
    const listed = await platform(world.server, 'GET', `${TASKS}?include=workspace_tasks`);
    expect(listed.body.included).toHaveLength(2);
    const bad = await platform(world.server, 'GET', `/tasks/${task}?include=workspaces`);
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].detail).toContain('include parameter');
  });

  it('accepts an agent pool of the organization (private run tasks)', async () => {
    const pool = (
      await platform(world.server, 'POST', `/organizations/${ORG}/agent-pools`, {
        body: { data: { type: 'agent-pools', attributes: { name: 'private' } } },
      })
    ).body.data.id;
    const created = await platform(world.server, 'POST', TASKS, {
      body: body(valid('private-task'), { relationships: { 'agent-pool': { data: { type: 'agent-pools', id: pool } } } }),
    });
    expect(created.body.data.relationships['agent-pool']).toEqual({ data: { id: pool, type: 'agent-pools' } });
    const unknown = await platform(world.server, 'POST', TASKS, {
      body: body(valid('private-unknown'), { relationships: { 'agent-pool': { data: { type: 'agent-pools', id: 'apool-nope' } } } }),
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors[0].detail).toContain('The provided agent pool does not exist');
  });

  it('is a paid-tier feature: an organization without the run-tasks entitlement gets 404 everywhere', async () => {
    const task = (await platform(world.server, 'POST', `/organizations/${OTHER_ORG}/tasks`, { body: body(valid('before-downgrade')) })).body
      .data.id;
    const ws = (
      await platform(world.server, 'POST', `/organizations/${OTHER_ORG}/workspaces`, {
        body: { data: { type: 'workspaces', attributes: { name: 'free-tier' } } },
      })
    ).body.data.id;
    expect((await control(world.server, 'PATCH', `/organizations/${OTHER_ORG}`, { entitlements: { 'run-tasks': false } })).status).toBe(
      200,
    );
    const entitlements = await platform(world.server, 'GET', `/organizations/${OTHER_ORG}/entitlement-set`);
    expect(entitlements.body.data.attributes['run-tasks']).toBe(false);
    expect((await platform(world.server, 'POST', `/organizations/${OTHER_ORG}/tasks`, { body: body(valid('after')) })).status).toBe(404);
    expect((await platform(world.server, 'GET', `/organizations/${OTHER_ORG}/tasks`)).status).toBe(404);
    expect((await platform(world.server, 'GET', `/tasks/${task}`)).status).toBe(404);
    expect((await platform(world.server, 'GET', `/workspaces/${ws}/tasks`)).status).toBe(404);
    await control(world.server, 'PATCH', `/organizations/${OTHER_ORG}`, { entitlements: { 'run-tasks': true, 'global-run-tasks': false } });
    const noGlobal = await platform(world.server, 'POST', `/organizations/${OTHER_ORG}/tasks`, {
      body: body(valid('no-global', { 'global-configuration': { enabled: true } })),
    });
    expect(noGlobal.status).toBe(201);
    expect(noGlobal.body.data.attributes['global-configuration']).toBeNull();
  });
});
