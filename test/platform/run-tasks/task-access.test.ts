import { createServer, type Server } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform } from '../../helpers/app.js';
import { control, createRun, simpleConfig, uploadConfiguration, waitFor } from '../runs/helpers.js';
import { ORG, startWorld, type World } from '../workspaces/world.js';

interface Payload {
  stage: string;
  run_id: string;
  access_token: string;
  task_result_callback_url: string;
  plan_json_api_url?: string;
  configuration_version_download_url: string;
}

interface Visit {
  payload: Payload;
  plan?: { status: number; body: string };
  download: { status: number; body: Buffer };
  /** What the same token gets on an endpoint it does not open. */
  elsewhere: number;
  /** What it gets for `foreign.url` (another workspace's configuration), when set. */
  foreign?: number;
  callback: number;
}

/**
 * A task service as a team writes one: it reads the plan's JSON and downloads the configuration
 * with the payload's access token, then answers at the callback URL. Each visit settles a promise,
 * so the test waits on the service itself, not on time.
 */
function startTaskService() {
  const foreign: { url?: string } = {};
  const visits: Visit[] = [];
  const waiting: ((visit: Visit) => void)[] = [];
  const read = async (url: string, token: string) => {
    const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    return { status: response.status, body: Buffer.from(await response.arrayBuffer()) };
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const payload = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Payload;
      response.writeHead(200).end();
      void (async () => {
        const token = payload.access_token;
        const plan = payload.plan_json_api_url ? await read(payload.plan_json_api_url, token) : undefined;
        const download = await read(payload.configuration_version_download_url, token);
        const origin = new URL(payload.task_result_callback_url).origin;
        const elsewhere = (await read(`${origin}/api/v2/runs/${payload.run_id}`, token)).status;
        const other = foreign.url ? (await read(foreign.url, token)).status : undefined;
        const callback = await fetch(payload.task_result_callback_url, {
          method: 'PATCH',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/vnd.api+json' },
          body: JSON.stringify({ data: { type: 'task-results', attributes: { status: 'passed', message: `read at ${payload.stage}` } } }),
        });
        const visit: Visit = {
          payload,
          ...(plan ? { plan: { status: plan.status, body: plan.body.toString('utf8') } } : {}),
          download,
          elsewhere,
          ...(other !== undefined ? { foreign: other } : {}),
          callback: callback.status,
        };
        visits.push(visit);
        waiting.shift()?.(visit);
      })();
    });
  });
  const next = () => new Promise<Visit>((resolve) => waiting.push(resolve));
  return new Promise<{ server: Server; url: string; visits: Visit[]; next: () => Promise<Visit>; foreign: { url?: string } }>((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}/`, visits, next, foreign }),
    ),
  );
}

describe("a run task payload's access token", () => {
  let world: World;
  let service: Awaited<ReturnType<typeof startTaskService>>;

  beforeAll(async () => {
    world = await startWorld({ UNDERSTUDY_EXECUTOR: 'simulated' });
    service = await startTaskService();
  });
  afterAll(async () => {
    service.server.close();
    await world.close();
  });

  const attachTask = async (workspace: string, stages: string[]) => {
    const ws = await platform(world.server, 'POST', `/organizations/${ORG}/workspaces`, {
      body: { data: { type: 'workspaces', attributes: { name: workspace, 'auto-apply': true } } },
    });
    expect(ws.status).toBe(201);
    const task = await platform(world.server, 'POST', `/organizations/${ORG}/tasks`, {
      body: {
        data: { type: 'tasks', attributes: { name: `${workspace}-task`, url: service.url, description: 'reads', category: 'task' } },
      },
    });
    expect(task.status).toBe(201);
    const attached = await platform(world.server, 'POST', `/workspaces/${ws.body.data.id}/tasks`, {
      body: {
        data: {
          type: 'workspace-tasks',
          attributes: { 'enforcement-level': 'mandatory', stages },
          relationships: { task: { data: { type: 'tasks', id: task.body.data.id } } },
        },
      },
    });
    expect(attached.status).toBe(201);
    return { workspaceId: ws.body.data.id as string, workspaceTaskId: attached.body.data.id as string };
  };

  it("reads the run's plan JSON and downloads its configuration, and opens nothing else", async () => {
    const { workspaceId } = await attachTask('task-access', ['post_plan']);
    await uploadConfiguration(world.server, workspaceId, simpleConfig('greetings-from-the-task-test'));
    const plain = await platform(world.server, 'POST', `/organizations/${ORG}/workspaces`, {
      body: { data: { type: 'workspaces', attributes: { name: 'task-access-plain' } } },
    });
    const otherVersion = await uploadConfiguration(world.server, plain.body.data.id as string, simpleConfig('not-for-the-task'));
    service.foreign.url = `${world.server.baseUrl}/api/v2/configuration-versions/${otherVersion}/download`;
    const visited = service.next();
    const runId = (await createRun(world.server, workspaceId)).body.data.id as string;
    const visit = await visited;
    expect(visit.payload.run_id).toBe(runId);

    expect(visit.plan?.status).toBe(200);
    const plan = JSON.parse(visit.plan!.body) as Record<string, unknown>;
    expect(plan).toHaveProperty('format_version');
    expect(plan).toHaveProperty('planned_values');
    expect(visit.download.status).toBe(200);
    // A gzip'd tar holding the main.tf uploaded above.
    const tar = gunzipSync(visit.download.body).toString('latin1');
    expect(tar).toContain('main.tf');
    expect(tar).toContain('greetings-from-the-task-test');

    expect(visit.elsewhere).toBe(401);
    expect(visit.foreign).toBe(404);
    delete service.foreign.url;
    expect(visit.callback).toBe(200);
    await waitFor(world.server, runId, 'applied');
    // Once its task result is final, the token opens nothing.
    const after = await fetch(visit.payload.plan_json_api_url!, { headers: { authorization: `Bearer ${visit.payload.access_token}` } });
    expect(after.status).toBe(401);
  });

  it('a payload sent by the trigger is answered at its own callback, which the deliveries show', async () => {
    const { workspaceTaskId } = await attachTask('task-trigger', ['post_plan']);
    const visited = service.next();
    const triggered = await control(world.server, 'POST', `/run-tasks/${workspaceTaskId}/trigger`, {});
    expect(triggered.status).toBe(200);
    expect(triggered.body['response-status']).toBe(200);
    const visit = await visited;
    expect(visit.callback).toBe(200);
    const deliveries = await control(world.server, 'GET', `/run-tasks/${workspaceTaskId}/deliveries`);
    expect(deliveries.body.deliveries[0].callback).toMatchObject({ status: 'passed', message: 'read at post_plan' });

    // A second verdict, or one with another token, is refused and changes nothing.
    const again = await fetch(visit.payload.task_result_callback_url, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${visit.payload.access_token}`, 'content-type': 'application/vnd.api+json' },
      body: JSON.stringify({ data: { type: 'task-results', attributes: { status: 'failed' } } }),
    });
    expect(again.status).toBe(422);
    const forged = await fetch(visit.payload.task_result_callback_url, {
      method: 'PATCH',
      headers: { authorization: 'Bearer not-the-token', 'content-type': 'application/vnd.api+json' },
      body: JSON.stringify({ data: { type: 'task-results', attributes: { status: 'failed' } } }),
    });
    expect(forged.status).toBe(404);
    const still = await control(world.server, 'GET', `/run-tasks/${workspaceTaskId}/deliveries`);
    expect(still.body.deliveries[0].callback.status).toBe('passed');
  });
});
