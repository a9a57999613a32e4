import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform } from '../../helpers/app.js';
import { ORG, startWorld, type World } from '../workspaces/world.js';
import { createRun, simpleConfig, uploadConfiguration, waitFor } from './helpers.js';
import { KEY, startTaskService } from './task-service.js';

describe('run tasks called by real runs', () => {
  let world: World;
  let service: Awaited<ReturnType<typeof startTaskService>>;
  let failAt: string | null = null;

  beforeAll(async () => {
    world = await startWorld({ UNDERSTUDY_EXECUTOR: 'simulated' });
    service = await startTaskService((payload) => (payload.stage === failAt ? 'failed' : 'passed'));
  });
  afterAll(async () => {
    service.server.close();
    await world.close();
  });

  const workspaceWithTask = async (name: string, level: 'mandatory' | 'advisory') => {
    const ws = await platform(world.server, 'POST', `/organizations/${ORG}/workspaces`, {
      body: { data: { type: 'workspaces', attributes: { name, 'auto-apply': true } } },
    });
    expect(ws.status).toBe(201);
    const task = await platform(world.server, 'POST', `/organizations/${ORG}/tasks`, {
      body: {
        data: {
          type: 'tasks',
          attributes: { name: `${name}-task`, url: service.url, description: 'checks', category: 'task', 'hmac-key': KEY },
        },
      },
    });
    expect(task.status).toBe(201);
    const attached = await platform(world.server, 'POST', `/workspaces/${ws.body.data.id}/tasks`, {
      body: {
        data: {
          type: 'workspace-tasks',
          attributes: { 'enforcement-level': level, stages: ['pre_plan', 'post_plan', 'pre_apply', 'post_apply'] },
          relationships: { task: { data: { type: 'tasks', id: task.body.data.id } } },
        },
      },
    });
    expect(attached.status).toBe(201);
    return ws.body.data.id as string;
  };

  it('calls the task at all four stages with a signed payload; passing verdicts let the run apply', async () => {
    failAt = null;
    const ws = await workspaceWithTask('tasks-pass', 'mandatory');
    await uploadConfiguration(world.server, ws, simpleConfig('t'));
    const id = (await createRun(world.server, ws)).body.data.id as string;
    await waitFor(world.server, id, 'applied');
    // The post-apply task is called after the run has ended: wait for the service to hear it.
    await service.until((seen) => seen.filter((item) => item.payload.run_id === id).length >= 4);
    const mine = service.received.filter((item) => item.payload.run_id === id);
    expect(mine.map((item) => item.payload.stage)).toEqual(['pre_plan', 'post_plan', 'pre_apply', 'post_apply']);
    expect(mine.every((item) => item.verified)).toBe(true);
    expect(mine[0]!.payload.task_result_enforcement_level).toBe('mandatory');

    const stages = await platform(world.server, 'GET', `/runs/${id}/task-stages`);
    expect(stages.body.data.map((stage: { attributes: { stage: string } }) => stage.attributes.stage)).toEqual([
      'pre_plan',
      'post_plan',
      'pre_apply',
      'post_apply',
    ]);
    const first = await platform(world.server, 'GET', `/task-stages/${stages.body.data[0].id}?include=task_results`);
    expect(first.body.data.attributes.status).toBe('passed');
    expect(first.body.included[0].attributes).toMatchObject({
      status: 'passed',
      message: 'checked at pre_plan',
      'workspace-task-enforcement-level': 'mandatory',
    });
    // The run's stage list includes every stage's results, each naming its stage.
    const listed = await platform(world.server, 'GET', `/runs/${id}/task-stages?include=task_results`);
    expect(listed.status).toBe(200);
    const results = listed.body.included as { type: string; relationships: { 'task-stage': { data: { id: string } } } }[];
    expect(results.map((result) => result.type)).toEqual(Array(4).fill('task-results'));
    expect(results.map((result) => result.relationships['task-stage'].data.id)).toEqual(
      stages.body.data.map((stage: { id: string }) => stage.id),
    );
    expect((await platform(world.server, 'GET', `/runs/${id}/task-stages?include=owners`)).status).toBe(400);
    const run = await platform(world.server, 'GET', `/runs/${id}`);
    expect(Object.keys(run.body.data.attributes['status-timestamps'])).toEqual(
      expect.arrayContaining(['pre-plan-running-at', 'pre-plan-completed-at', 'post-plan-running-at', 'pre-apply-running-at']),
    );
  });

  it('a mandatory task that fails stops the run; an advisory one does not', async () => {
    failAt = 'post_plan';
    const mandatory = await workspaceWithTask('tasks-mandatory', 'mandatory');
    await uploadConfiguration(world.server, mandatory, simpleConfig('m'));
    const stopped = (await createRun(world.server, mandatory)).body.data.id as string;
    await waitFor(world.server, stopped, 'errored');
    const stages = await platform(world.server, 'GET', `/runs/${stopped}/task-stages`);
    expect(stages.body.data.map((stage: { attributes: { status: string } }) => stage.attributes.status)).toEqual([
      'passed',
      'failed',
      'pending',
      'pending',
    ]);
    const locked = await platform(world.server, 'GET', `/workspaces/${mandatory}`);
    expect(locked.body.data.attributes.locked).toBe(false);

    const advisory = await workspaceWithTask('tasks-advisory', 'advisory');
    await uploadConfiguration(world.server, advisory, simpleConfig('a'));
    const passed = (await createRun(world.server, advisory)).body.data.id as string;
    await waitFor(world.server, passed, 'applied');
  });

  it("refuses a callback without the payload's access token", async () => {
    const refused = await platform(world.server, 'PATCH', '/task-results/taskrs-nope/callback', {
      token: 'not-the-token',
      body: { data: { type: 'task-results', attributes: { status: 'passed' } } },
    });
    expect(refused.status).toBe(404);
  });
});
