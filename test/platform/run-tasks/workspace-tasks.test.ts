import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform } from '../../helpers/app.js';
import { ORG, OTHER_ORG, startWorld, type World } from '../workspaces/world.js';

const attachBody = (taskId: string, attributes: Record<string, unknown> = { 'enforcement-level': 'advisory' }) => ({
  data: { type: 'workspace-tasks', attributes, relationships: { task: { data: { type: 'tasks', id: taskId } } } },
});

describe('workspace run tasks', () => {
  let world: World;
  let ws: string;
  const tasks: string[] = [];
  const newTask = async (name: string, organization = ORG) =>
    (
      await platform(world.server, 'POST', `/organizations/${organization}/tasks`, {
        body: { data: { type: 'tasks', attributes: { name, url: 'http://127.0.0.1:9/x', description: '', category: 'task' } } },
      })
    ).body.data.id as string;

  beforeAll(async () => {
    world = await startWorld();
    ws = (
      await platform(world.server, 'POST', `/organizations/${ORG}/workspaces`, {
        body: { data: { type: 'workspaces', attributes: { name: 'checked' } } },
      })
    ).body.data.id;
    for (const name of ['t1', 't2', 't3', 't4', 't5']) tasks.push(await newTask(name));
  });
  afterAll(() => world.close());

  it('attaches with 201 and the document (real clients decode it); stage defaults to post_plan', async () => {
    const attached = await platform(world.server, 'POST', `/workspaces/${ws}/tasks`, {
      body: attachBody(tasks[0]!, { 'enforcement-level': 'mandatory' }),
    });
    expect(attached.status).toBe(201);
    expect(attached.body.data).toMatchObject({
      type: 'workspace-tasks',
      attributes: { 'enforcement-level': 'mandatory', stage: 'post_plan', stages: ['post_plan'], enabled: true },
      relationships: { task: { data: { id: tasks[0], type: 'tasks' } }, workspace: { data: { id: ws, type: 'workspaces' } } },
      links: { self: `/api/v2/workspaces/${ws}/tasks/${attached.body.data.id}` },
    });
    expect(attached.body.data.id).toMatch(/^wstask-/);
  });

  it('derives stage from stages, and stages from a lone stage', async () => {
    const withStages = await platform(world.server, 'POST', `/workspaces/${ws}/tasks`, {
      body: attachBody(tasks[1]!, { 'enforcement-level': 'advisory', stages: ['pre_plan', 'post_plan'] }),
    });
    expect(withStages.body.data.attributes).toMatchObject({ stage: 'pre_plan', stages: ['pre_plan', 'post_plan'] });
    const withStage = await platform(world.server, 'POST', `/workspaces/${ws}/tasks`, {
      body: attachBody(tasks[2]!, { 'enforcement-level': 'advisory', stage: 'pre_apply', enabled: 'false' }),
    });
    expect(withStage.body.data.attributes).toMatchObject({ stage: 'pre_apply', stages: ['pre_apply'], enabled: false });
  });

  it('lists, paginates and shows', async () => {
    const listed = await platform(world.server, 'GET', `/workspaces/${ws}/tasks`);
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(3);
    const paged = await platform(world.server, 'GET', `/workspaces/${ws}/tasks?page[size]=2&page[number]=2`);
    expect(paged.body.data).toHaveLength(1);
    expect(paged.body.meta.pagination['total-count']).toBe(3);
    const one = listed.body.data[1];
    expect((await platform(world.server, 'GET', `/workspaces/${ws}/tasks/${one.id}`)).body.data).toEqual(one);
  });

  it('updates enforcement level and stages; stages also reset stage', async () => {
    const one = (await platform(world.server, 'GET', `/workspaces/${ws}/tasks`)).body.data[0];
    const path = `/workspaces/${ws}/tasks/${one.id}`;
    const level = await platform(world.server, 'PATCH', path, {
      body: { data: { type: 'workspace-tasks', attributes: { 'enforcement-level': 'advisory' } } },
    });
    expect(level.status).toBe(200);
    expect(level.body.data.attributes).toMatchObject({ 'enforcement-level': 'advisory', stages: ['post_plan'] });
    const stages = await platform(world.server, 'PATCH', path, {
      body: { data: { type: 'workspace-tasks', attributes: { stages: ['post_apply', 'pre_plan'] } } },
    });
    expect(stages.body.data.attributes).toMatchObject({
      'enforcement-level': 'advisory',
      stage: 'post_apply',
      stages: ['post_apply', 'pre_plan'],
    });
    const stage = await platform(world.server, 'PATCH', path, {
      body: { data: { type: 'workspace-tasks', attributes: { stage: 'pre_plan' } } },
    });
    expect(stage.body.data.attributes).toMatchObject({ stage: 'pre_plan', stages: ['pre_plan'] });
    expect((await platform(world.server, 'GET', path)).body.data.attributes.stages).toEqual(['pre_plan']);
  });

  it('validates bodies (422) and answers 404 for unknown tasks, workspaces and attachments', async () => {
    const post = (payload: unknown, workspace = ws) => platform(world.server, 'POST', `/workspaces/${workspace}/tasks`, { body: payload });
    expect((await post(attachBody(tasks[3]!, { 'enforcement-level': 'strict' }))).status).toBe(422);
    expect((await post(attachBody(tasks[3]!, {}))).status).toBe(422);
    expect((await post(attachBody(tasks[3]!, { 'enforcement-level': 'advisory', stage: 'mid_plan' }))).status).toBe(422);
    expect((await post(attachBody(tasks[3]!, { 'enforcement-level': 'advisory', stages: [] }))).status).toBe(422);
    expect((await post({ data: { type: 'workspace-tasks', attributes: { 'enforcement-level': 'advisory' } } })).status).toBe(422);
    expect((await post({ data: { type: 'tasks', attributes: {} } })).status).toBe(422);
    expect((await post(attachBody(tasks[0]!))).status).toBe(422);
    expect((await post(attachBody('task-nope'))).status).toBe(404);
    expect((await post(attachBody(await newTask('foreign', OTHER_ORG)))).status).toBe(404);
    expect((await post(attachBody(tasks[3]!), 'ws-nope')).status).toBe(404);
    expect((await platform(world.server, 'GET', `/workspaces/${ws}/tasks/wstask-nope`)).status).toBe(404);
    expect(
      (
        await platform(world.server, 'PATCH', `/workspaces/${ws}/tasks/wstask-nope`, {
          body: { data: { type: 'workspace-tasks', attributes: {} } },
        })
      ).status,
    ).toBe(404);
    const one = (await platform(world.server, 'GET', `/workspaces/${ws}/tasks`)).body.data[0];
    expect(
      (
        await platform(world.server, 'PATCH', `/workspaces/${ws}/tasks/${one.id}`, {
          body: { data: { type: 'workspace-tasks', attributes: { 'enforcement-level': 'never' } } },
        })
      ).status,
    ).toBe(422);
    expect((await platform(world.server, 'GET', `/workspaces/ws-nope/tasks`)).status).toBe(404);
  });

  it('detaches with 204; then 404, and 404 for a workspace that does not exist', async () => {
    const one = (await platform(world.server, 'GET', `/workspaces/${ws}/tasks`)).body.data[0];
    const removed = await platform(world.server, 'DELETE', `/workspaces/${ws}/tasks/${one.id}`);
    expect(removed.status).toBe(204);
    expect(removed.body).toBeUndefined();
    expect((await platform(world.server, 'GET', `/workspaces/${ws}/tasks/${one.id}`)).status).toBe(404);
    expect((await platform(world.server, 'DELETE', `/workspaces/${ws}/tasks/${one.id}`)).status).toBe(404);
    expect((await platform(world.server, 'DELETE', `/workspaces/does-not-exist/tasks/${one.id}`)).status).toBe(404);
  });

  it('goes away with its workspace', async () => {
    const other = (
      await platform(world.server, 'POST', `/organizations/${ORG}/workspaces`, {
        body: { data: { type: 'workspaces', attributes: { name: 'gone' } } },
      })
    ).body.data.id;
    await platform(world.server, 'POST', `/workspaces/${other}/tasks`, { body: attachBody(tasks[4]!) });
    await platform(world.server, 'DELETE', `/workspaces/${other}`);
    expect((await platform(world.server, 'GET', `/tasks/${tasks[4]}`)).body.data.relationships.tasks.data).toEqual([]);
  });
});
