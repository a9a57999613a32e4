import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, platform, startServer, type TestServer } from '../../helpers/app.js';
import { untilRunStatus } from '../../clients/interrupt-helpers.js';
import { createRun, newWorkspace, ORG, simpleConfig, uploadConfiguration } from '../runs/helpers.js';

let directory: string;
beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'held-stage-'));
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const start = (store: string) => startServer({ UNDERSTUDY_STORE: store, UNDERSTUDY_EXECUTOR: 'simulated' });

/** A workspace whose runs fail a mandatory OPA policy in an overridable set: each run waits for an override. */
async function heldWorkspace(server: TestServer): Promise<string> {
  const ws = await newWorkspace(server, 'held-across-restart');
  await uploadConfiguration(server, ws, simpleConfig('held'));
  const policy = await platform(server, 'POST', `/organizations/${ORG}/policies`, {
    body: {
      data: {
        type: 'policies',
        attributes: { name: 'always-fails', kind: 'opa', query: 'data.held.rule', 'enforcement-level': 'mandatory' },
      },
    },
  });
  expect(policy.status).toBe(201);
  const uploaded = await fetch(`${server.baseUrl}/api/v2/policies/${policy.body.data.id}/upload`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/octet-stream' },
    body: 'package held rule["not allowed"] { true } # understudy:fail\n',
  });
  expect(uploaded.status).toBe(204);
  const set = await platform(server, 'POST', `/organizations/${ORG}/policy-sets`, {
    body: {
      data: {
        type: 'policy-sets',
        attributes: { name: 'held-set', kind: 'opa', overridable: true },
        relationships: {
          policies: { data: [{ type: 'policies', id: policy.body.data.id }] },
          workspaces: { data: [{ type: 'workspaces', id: ws }] },
        },
      },
    },
  });
  expect(set.status).toBe(201);
  return ws;
}

describe('a run held for a policy override when understudy stops', () => {
  it('after a crash, ends errored on the restart, and so does its held stage, which can no longer be overridden', async () => {
    const crashed = join(directory, 'crashed.db');
    const first = await start(join(directory, 'store.db'));
    let runId: string;
    try {
      const ws = await heldWorkspace(first);
      runId = (await createRun(first, ws)).body.data.id as string;
      await untilRunStatus(first, runId, 'post_plan_awaiting_decision');
      const stages = await platform(first, 'GET', `/runs/${runId}/task-stages`);
      expect(stages.body.data[0].attributes.status).toBe('awaiting_override');
      // The store as a crash leaves it: copied while the run is held, before any shutdown work.
      await first.app.runtime.store.sqlite.backup(crashed);
    } finally {
      await first.close();
    }

    const second = await start(crashed);
    try {
      const run = await platform(second, 'GET', `/runs/${runId}`);
      expect(run.body.data.attributes.status).toBe('errored');
      const [stage] = (await platform(second, 'GET', `/runs/${runId}/task-stages`)).body.data as {
        id: string;
        attributes: { status: string; 'status-timestamps': Record<string, string>; actions: Record<string, boolean> };
      }[];
      expect(stage?.attributes.status).toBe('errored');
      expect(stage?.attributes['status-timestamps']['errored-at']).toBeDefined();
      expect(stage?.attributes.actions['is-overridable']).toBe(false);
      const override = await platform(second, 'POST', `/task-stages/${stage!.id}/actions/override`);
      expect(override.status).toBe(409);
    } finally {
      await second.close();
    }
  });
});
