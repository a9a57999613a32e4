import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform } from '../../helpers/app.js';
import { control, ORG, startWorld, type World } from '../workspaces/world.js';

interface Received {
  headers: Record<string, string | string[] | undefined>;
  body: string;
  verified: boolean | null;
}

/**
 * A run task integration as someone would write one: it checks `X-TFC-Task-Signature` against
 * its own copy of the HMAC key and answers 401 when the signature does not match.
 */
function startReceiver(key: string | null): Promise<{ server: Server; url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let verified: boolean | null = null;
      if (key !== null) {
        const expected = Buffer.from(createHmac('sha512', key).update(body).digest('hex'));
        const given = Buffer.from(String(request.headers['x-tfc-task-signature'] ?? ''));
        verified = given.length === expected.length && timingSafeEqual(given, expected);
      }
      received.push({ headers: request.headers, body, verified });
      response
        .writeHead(verified === false ? 401 : 200, { 'content-type': 'text/plain' })
        .end(verified === false ? 'bad signature' : 'accepted');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}/task`, received }),
    ),
  );
}

describe('delivering a run task payload', () => {
  let world: World;
  let signedReceiver: Awaited<ReturnType<typeof startReceiver>>;
  let plainReceiver: Awaited<ReturnType<typeof startReceiver>>;
  let ws: string;

  const attach = async (
    name: string,
    url: string,
    hmac: string | null,
    attributes: Record<string, unknown> = { 'enforcement-level': 'mandatory', stages: ['pre_plan', 'post_plan'] },
  ) => {
    const task = await platform(world.server, 'POST', `/organizations/${ORG}/tasks`, {
      body: {
        data: {
          type: 'tasks',
          attributes: { name, url, description: 'receiver', category: 'task', ...(hmac ? { 'hmac-key': hmac } : {}) },
        },
      },
    });
    const attached = await platform(world.server, 'POST', `/workspaces/${ws}/tasks`, {
      body: { data: { type: 'workspace-tasks', attributes, relationships: { task: { data: { type: 'tasks', id: task.body.data.id } } } } },
    });
    return { taskId: task.body.data.id as string, id: attached.body.data.id as string };
  };

  beforeAll(async () => {
    world = await startWorld();
    signedReceiver = await startReceiver('shared-secret');
    plainReceiver = await startReceiver(null);
    ws = (
      await platform(world.server, 'POST', `/organizations/${ORG}/workspaces`, {
        body: {
          data: {
            type: 'workspaces',
            attributes: {
              name: 'delivered',
              'working-directory': 'infra',
              'vcs-repo': { 'oauth-token-id': 'ot-1', identifier: 'acme/infra', branch: 'main' },
            },
          },
        },
      })
    ).body.data.id;
  });
  afterAll(async () => {
    signedReceiver.server.close();
    plainReceiver.server.close();
    await world.close();
  });

  it('posts the stage payload signed with HMAC-SHA512, and the receiver verifies it', async () => {
    const { id } = await attach('signed', signedReceiver.url, 'shared-secret');
    const result = await control(world.server, 'POST', `/run-tasks/${id}/trigger`, { stage: 'post_plan', 'run-id': 'run-fixed123' });
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({
      'workspace-task-id': id,
      stage: 'post_plan',
      signed: true,
      'response-status': 200,
      'response-body': 'accepted',
      error: null,
    });
    const delivered = signedReceiver.received.at(-1)!;
    expect(delivered.verified).toBe(true);
    expect(delivered.headers['content-type']).toBe('application/json');
    const payload = JSON.parse(delivered.body);
    expect(payload).toMatchObject({
      payload_version: 1,
      stage: 'post_plan',
      run_id: 'run-fixed123',
      organization_name: ORG,
      workspace_id: ws,
      workspace_name: 'delivered',
      workspace_working_directory: 'infra',
      task_result_enforcement_level: 'mandatory',
      is_speculative: false,
      vcs_branch: 'main',
      vcs_repo_url: 'https://github.com/acme/infra',
    });
    for (const key of [
      'access_token',
      'task_result_callback_url',
      'task_result_id',
      'configuration_version_id',
      'configuration_version_download_url',
      'run_app_url',
      'workspace_app_url',
      'run_created_at',
      'plan_json_api_url',
    ]) {
      expect(payload[key], key).toEqual(expect.any(String));
    }
    expect(payload.configuration_version_download_url).toContain(
      `/api/v2/configuration-versions/${payload.configuration_version_id}/download`,
    );
    expect(payload.task_result_callback_url).toMatch(/\/api\/v2\/task-results\/[0-9a-f-]+\/callback$/);
    expect(result.body.payload).toEqual(payload);
    expect(JSON.stringify(result.body)).not.toContain('shared-secret');
  });

  it('carries the configuration version and working directory at every stage, and the plan URL only after planning', async () => {
    const { id } = await attach('every-stage', plainReceiver.url, null, {
      'enforcement-level': 'advisory',
      stages: ['pre_plan', 'post_plan', 'pre_apply', 'post_apply'],
    });
    for (const stage of ['pre_plan', 'post_plan', 'pre_apply', 'post_apply']) {
      const result = await control(world.server, 'POST', `/run-tasks/${id}/trigger`, { stage });
      expect(result.body.payload).toMatchObject({
        stage,
        workspace_working_directory: 'infra',
        configuration_version_id: expect.stringMatching(/^cv-/),
      });
      expect('plan_json_api_url' in result.body.payload).toBe(stage === 'post_plan' || stage === 'pre_apply');
    }
  });

  it('sends no signature without a key; a receiver that checks one then refuses', async () => {
    const { id } = await attach('unsigned', plainReceiver.url, null);
    const result = await control(world.server, 'POST', `/run-tasks/${id}/trigger`, {});
    expect(result.body).toMatchObject({ signed: false, 'response-status': 200, stage: 'pre_plan' });
    expect(plainReceiver.received.at(-1)!.headers['x-tfc-task-signature']).toBeUndefined();
    const mismatched = await attach('wrong-key', signedReceiver.url, 'another-secret');
    const refused = await control(world.server, 'POST', `/run-tasks/${mismatched.id}/trigger`, {});
    expect(refused.body).toMatchObject({ signed: true, 'response-status': 401, 'response-body': 'bad signature' });
    expect(signedReceiver.received.at(-1)!.verified).toBe(false);
  });

  it('records an unreachable receiver instead of failing', async () => {
    const { id } = await attach('unreachable', 'http://127.0.0.1:9/nothing-listens', null);
    const result = await control(world.server, 'POST', `/run-tasks/${id}/trigger`, {});
    expect(result.status).toBe(200);
    expect(result.body['response-status']).toBeNull();
    expect(result.body.error).toEqual(expect.any(String));
    const recorded = await control(world.server, 'GET', `/run-tasks/${id}/deliveries`);
    expect(recorded.body.deliveries).toEqual([
      expect.objectContaining({ id: result.body.id, 'response-status': null, error: result.body.error, signed: false }),
    ]);
    expect((await control(world.server, 'GET', '/run-tasks/wstask-nope/deliveries')).status).toBe(404);
  });

  it('refuses unknown attachments, stages the task does not run at, and disabled tasks', async () => {
    expect((await control(world.server, 'POST', '/run-tasks/wstask-nope/trigger', {})).status).toBe(404);
    const { id, taskId } = await attach('picky', plainReceiver.url, null, { 'enforcement-level': 'advisory', stages: ['pre_plan'] });
    expect((await control(world.server, 'POST', `/run-tasks/${id}/trigger`, { stage: 'post_apply' })).status).toBe(400);
    expect((await control(world.server, 'POST', `/run-tasks/${id}/trigger`, { stage: 'later' })).status).toBe(400);
    expect((await control(world.server, 'POST', `/run-tasks/${id}/trigger`, { 'run-id': 5 })).status).toBe(400);
    await platform(world.server, 'PATCH', `/tasks/${taskId}`, { body: { data: { type: 'tasks', attributes: { enabled: false } } } });
    expect((await control(world.server, 'POST', `/run-tasks/${id}/trigger`, {})).status).toBe(409);
  });
});
