import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform, startServer, type TestServer } from '../../helpers/app.js';
import { action, control, createRun, newWorkspace, ORG, run, simpleConfig, uploadConfiguration, waitFor } from './helpers.js';

let server: TestServer;

beforeAll(async () => {
  server = await startServer({ UNDERSTUDY_EXECUTOR: 'simulated' });
});
afterAll(async () => server.close());

/** A pool and an agent token for it, as go-tfe creates them. */
async function poolWithToken(name: string): Promise<{ poolId: string; token: string }> {
  const pool = await platform(server, 'POST', `/organizations/${ORG}/agent-pools`, {
    body: { data: { type: 'agent-pools', attributes: { name } } },
  });
  expect(pool.status).toBe(201);
  const token = await platform(server, 'POST', `/agent-pools/${pool.body.data.id}/authentication-tokens`, {
    body: { data: { type: 'agent-tokens', attributes: { description: name } } },
  });
  expect(token.status).toBe(201);
  return { poolId: pool.body.data.id, token: token.body.data.attributes.token };
}

/** An agent process registering with its pool's token (understudy's agent API). */
async function registerAgent(token: string, name: string): Promise<string> {
  const response = await fetch(`${server.baseUrl}/api/agent/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ name }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { agent_id: string }).agent_id;
}

/** A workspace in agent execution mode on the pool (go-tfe's WorkspaceCreateOptions), paced by hand. */
async function agentWorkspace(name: string, poolId: string): Promise<string> {
  const ws = await newWorkspace(server, name, { 'execution-mode': 'agent', 'agent-pool-id': poolId });
  expect((await control(server, 'PUT', '/runs/progression', { mode: 'manual', workspace: ws })).status).toBe(200);
  await uploadConfiguration(server, ws, simpleConfig(name));
  return ws;
}

/** Advances a manually paced run once; the control plane answers after the run stood still again. */
const advance = async (id: string) => {
  const advanced = await control(server, 'POST', `/runs/${id}/advance`);
  expect(advanced.status).toBe(200);
  return advanced.body as { status: string; waiting: boolean };
};

const agentStatus = async (id: string) => (await platform(server, 'GET', `/agents/${id}`)).body.data.attributes.status as string;
const phaseOf = async (runId: string, kind: 'plan' | 'apply') => {
  const found = await platform(server, 'GET', `/runs/${runId}/${kind}`);
  expect(found.status).toBe(200);
  return found.body.data.attributes as Record<string, unknown>;
};

describe('runs in agent execution mode', () => {
  it('wait queued with no agent in the pool, then run on the agent that registers, which is busy meanwhile', async () => {
    const { poolId, token } = await poolWithToken('agents-first');
    const ws = await agentWorkspace('agent-first', poolId);
    const id = (await createRun(server, ws)).body.data.id as string;

    expect(await advance(id)).toMatchObject({ status: 'plan_queued', waiting: true });
    // The gate opens, but no agent is there: the run stands still, queued, not at a gate.
    expect(await advance(id)).toEqual({ id, status: 'plan_queued', waiting: false });
    expect((await run(server, id)).attributes.status).toBe('plan_queued');
    expect((await phaseOf(id, 'plan'))['execution-details']).toEqual({ mode: 'remote' });

    const agentId = await registerAgent(token, 'runner-1');
    await waitFor(server, id, 'planning');
    expect(await agentStatus(agentId)).toBe('busy');
    expect((await phaseOf(id, 'plan'))['execution-details']).toEqual({
      mode: 'agent',
      'agent-id': agentId,
      'agent-name': 'runner-1',
      'agent-pool-id': poolId,
      'agent-pool-name': 'agents-first',
    });

    for (let status = 'planning'; status !== 'planned';) status = (await advance(id)).status;
    // A run waiting for its confirmation holds no agent.
    expect(await agentStatus(agentId)).toBe('idle');

    expect((await action(server, id, 'apply', { comment: 'go' })).status).toBe(202);
    for (let status = 'planned'; status !== 'applied';) {
      const advanced = await control(server, 'POST', `/runs/${id}/advance`);
      if (advanced.status === 409) break;
      status = advanced.body.status;
      if (status === 'applying') expect(await agentStatus(agentId)).toBe('busy');
    }
    expect((await run(server, id)).attributes.status).toBe('applied');
    expect((await phaseOf(id, 'apply'))['execution-details']).toMatchObject({ mode: 'agent', 'agent-id': agentId });
    expect(await agentStatus(agentId)).toBe('idle');
  });

  it('give one agent one run at a time: a second workspace waits until the first plan is done', async () => {
    const { poolId, token } = await poolWithToken('agents-shared');
    const agentId = await registerAgent(token, 'only-one');
    const first = await agentWorkspace('agent-shared-1', poolId);
    const second = await agentWorkspace('agent-shared-2', poolId);
    const a = (await createRun(server, first)).body.data.id as string;
    const b = (await createRun(server, second)).body.data.id as string;

    await advance(a);
    expect(await advance(a)).toMatchObject({ status: 'planning', waiting: true });
    await advance(b);
    expect(await advance(b)).toEqual({ id: b, status: 'plan_queued', waiting: false });

    for (let status = 'planning'; status !== 'planned';) status = (await advance(a)).status;
    await waitFor(server, b, 'planning');
    expect((await phaseOf(b, 'plan'))['execution-details']).toMatchObject({ 'agent-id': agentId });
    expect(await agentStatus(agentId)).toBe('busy');
  });

  it('a run canceled while it waits for an agent ends canceled and takes no agent later', async () => {
    const { poolId, token } = await poolWithToken('agents-cancel');
    const ws = await agentWorkspace('agent-cancel', poolId);
    const id = (await createRun(server, ws)).body.data.id as string;
    await advance(id);
    expect(await advance(id)).toMatchObject({ status: 'plan_queued', waiting: false });

    expect((await action(server, id, 'cancel', { comment: 'no agent today' })).status).toBe(202);
    await waitFor(server, id, 'canceled');
    const agentId = await registerAgent(token, 'late');
    expect(await agentStatus(agentId)).toBe('idle');
    expect((await phaseOf(id, 'plan'))['execution-details']).toEqual({ mode: 'remote' });
  });

  it('an agent that stopped pinging is not handed runs; a remote workspace never waits for agents', async () => {
    const { poolId, token } = await poolWithToken('agents-silent');
    await registerAgent(token, 'silent');
    expect((await control(server, 'POST', '/clock', { advance: '180s' })).status).toBe(200);
    const ws = await agentWorkspace('agent-silent', poolId);
    const id = (await createRun(server, ws)).body.data.id as string;
    await advance(id);
    expect(await advance(id)).toMatchObject({ status: 'plan_queued', waiting: false });

    const remote = await newWorkspace(server, 'remote-beside-agents', { 'auto-apply': true });
    await uploadConfiguration(server, remote, simpleConfig('remote'));
    const remoteRun = (await createRun(server, remote)).body.data.id as string;
    await waitFor(server, remoteRun, 'applied');
    expect((await phaseOf(remoteRun, 'apply'))['execution-details']).toEqual({ mode: 'remote' });
  });
});
