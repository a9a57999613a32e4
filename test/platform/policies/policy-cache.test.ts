import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, platform, startServer, type TestServer } from '../../helpers/app.js';
import { createRun, newWorkspace, ORG, simpleConfig, uploadConfiguration, waitFor } from '../runs/helpers.js';

/**
 * A run reads which sets apply and what they hold from caches kept between writes
 * (policies/set-evaluation.ts): each test runs once to fill them, writes, and expects the next run
 * to see the write.
 */
let server: TestServer;

beforeAll(async () => {
  server = await startServer({ UNDERSTUDY_EXECUTOR: 'simulated' });
});
afterAll(async () => server.close());

const PASSING = 'main = rule { true }\n';
const FAILING = 'main = rule { false } # understudy:fail\n';

async function uploadSource(policyId: string, source: string): Promise<void> {
  const uploaded = await fetch(`${server.baseUrl}/api/v2/policies/${policyId}/upload`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/octet-stream' },
    body: source,
  });
  expect(uploaded.status).toBe(204);
}

async function newPolicy(name: string, source: string): Promise<string> {
  const policy = await platform(server, 'POST', `/organizations/${ORG}/policies`, {
    body: { data: { type: 'policies', attributes: { name, 'enforcement-level': 'hard-mandatory' } } },
  });
  expect(policy.status).toBe(201);
  await uploadSource(policy.body.data.id, source);
  return policy.body.data.id as string;
}

async function newSet(name: string, policyId: string, workspaceId: string): Promise<string> {
  const set = await platform(server, 'POST', `/organizations/${ORG}/policy-sets`, {
    body: {
      data: {
        type: 'policy-sets',
        attributes: { name },
        relationships: {
          policies: { data: [{ type: 'policies', id: policyId }] },
          workspaces: { data: [{ type: 'workspaces', id: workspaceId }] },
        },
      },
    },
  });
  expect(set.status).toBe(201);
  return set.body.data.id as string;
}

async function configuredWorkspace(name: string): Promise<string> {
  const ws = await newWorkspace(server, name);
  await uploadConfiguration(server, ws, simpleConfig(name));
  return ws;
}

/** A plan-only run on `ws` to its end (`expected`): its policy checks' statuses. */
async function runOnce(ws: string, expected: string): Promise<string[]> {
  const id = (await createRun(server, ws, { 'plan-only': true })).body.data.id as string;
  await waitFor(server, id, expected);
  const listed = await platform(server, 'GET', `/runs/${id}/policy-checks`);
  expect(listed.status).toBe(200);
  return (listed.body.data as { attributes: { status: string } }[]).map((check) => check.attributes.status);
}

describe('policy checks read what was written last', () => {
  it('a policy uploaded again counts from the next run on, both ways', async () => {
    const ws = await configuredWorkspace('reuploaded');
    const policy = await newPolicy('reuploaded-policy', PASSING);
    await newSet('reuploaded-set', policy, ws);
    expect(await runOnce(ws, 'planned_and_finished')).toEqual(['passed']);
    await uploadSource(policy, FAILING);
    expect(await runOnce(ws, 'errored')).toEqual(['hard_failed']);
    await uploadSource(policy, PASSING);
    expect(await runOnce(ws, 'planned_and_finished')).toEqual(['passed']);
  });

  it('a policy deleted, or detached from its set, leaves the next run without a check', async () => {
    const ws = await configuredWorkspace('detached');
    const kept = await newPolicy('detached-kept', FAILING);
    const set = await newSet('detached-set', kept, ws);
    expect(await runOnce(ws, 'errored')).toEqual(['hard_failed']);
    const removed = await platform(server, 'DELETE', `/policy-sets/${set}/relationships/policies`, {
      body: { data: [{ type: 'policies', id: kept }] },
    });
    expect(removed.status).toBe(204);
    expect(await runOnce(ws, 'planned_and_finished')).toEqual([]);

    const deleted = await newPolicy('detached-deleted', FAILING);
    const added = await platform(server, 'POST', `/policy-sets/${set}/relationships/policies`, {
      body: { data: [{ type: 'policies', id: deleted }] },
    });
    expect(added.status).toBe(204);
    expect(await runOnce(ws, 'errored')).toEqual(['hard_failed']);
    expect((await platform(server, 'DELETE', `/policies/${deleted}`)).status).toBe(204);
    expect(await runOnce(ws, 'planned_and_finished')).toEqual([]);
  });

  it('a set made, then its workspace removed from it, counts from the next run on', async () => {
    const ws = await configuredWorkspace('attached');
    expect(await runOnce(ws, 'planned_and_finished')).toEqual([]);
    const policy = await newPolicy('attached-policy', FAILING);
    const set = await newSet('attached-set', policy, ws);
    expect(await runOnce(ws, 'errored')).toEqual(['hard_failed']);
    const removed = await platform(server, 'DELETE', `/policy-sets/${set}/relationships/workspaces`, {
      body: { data: [{ type: 'workspaces', id: ws }] },
    });
    expect(removed.status).toBe(204);
    expect(await runOnce(ws, 'planned_and_finished')).toEqual([]);
  });
});
