import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, platform, startServer, type TestServer } from '../../helpers/app.js';
import { action, createRun, newWorkspace, ORG, run, simpleConfig, uploadConfiguration, waitFor } from '../runs/helpers.js';

let server: TestServer;

beforeAll(async () => {
  server = await startServer({ UNDERSTUDY_EXECUTOR: 'simulated' });
});
afterAll(async () => server.close());

/** A workspace guarded by one sentinel policy at `level`, whose source fails when `failing`. */
async function guardedWorkspace(name: string, level: string, failing: boolean, attributes: Record<string, unknown> = {}): Promise<string> {
  const ws = await newWorkspace(server, name, attributes);
  const policy = await platform(server, 'POST', `/organizations/${ORG}/policies`, {
    body: { data: { type: 'policies', attributes: { name: `${name}-policy`, 'enforcement-level': level } } },
  });
  expect(policy.status).toBe(201);
  const source = failing ? 'main = rule { false } # understudy:fail\n' : 'main = rule { true }\n';
  const uploaded = await fetch(`${server.baseUrl}/api/v2/policies/${policy.body.data.id}/upload`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/octet-stream' },
    body: source,
  });
  expect(uploaded.status).toBe(204);
  const set = await platform(server, 'POST', `/organizations/${ORG}/policy-sets`, {
    body: {
      data: {
        type: 'policy-sets',
        attributes: { name: `${name}-set` },
        relationships: {
          policies: { data: [{ type: 'policies', id: policy.body.data.id }] },
          workspaces: { data: [{ type: 'workspaces', id: ws }] },
        },
      },
    },
  });
  expect(set.status).toBe(201);
  await uploadConfiguration(server, ws, simpleConfig(name));
  return ws;
}

async function checksOf(runId: string) {
  const listed = await platform(server, 'GET', `/runs/${runId}/policy-checks`);
  expect(listed.status).toBe(200);
  return listed.body.data as { id: string; attributes: Record<string, unknown> & { result: Record<string, unknown> } }[];
}

describe('policy checks in a run', () => {
  it('a passing check moves the run through policy_checking and policy_checked to planned', async () => {
    const ws = await guardedWorkspace('passing', 'hard-mandatory', false);
    const id = (await createRun(server, ws)).body.data.id as string;
    const planned = await waitFor(server, id, 'planned');
    const stamps = planned.attributes['status-timestamps'] as Record<string, string>;
    expect(stamps['policy-checking-at']).toBeDefined();
    expect(stamps['policy-checked-at']).toBeDefined();
    const [check] = await checksOf(id);
    expect(check?.attributes).toMatchObject({
      status: 'passed',
      scope: 'organization',
      actions: { 'is-overridable': false },
      permissions: { 'can-override': true },
    });
    expect(check?.attributes.result).toMatchObject({ result: true, passed: 1, 'total-failed': 0, 'hard-failed': 0 });
    const read = await platform(server, 'GET', `/policy-checks/${check?.id}`);
    expect(read.body.data).toEqual(check);
    const output = await fetch(`${server.baseUrl}/api/v2/policy-checks/${check?.id}/output`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(await output.text()).toBe('passing-policy (hard-mandatory): PASS\n');
  });

  it('a hard failure errors the run', async () => {
    const ws = await guardedWorkspace('hard', 'hard-mandatory', true);
    const id = (await createRun(server, ws)).body.data.id as string;
    await waitFor(server, id, 'errored');
    const [check] = await checksOf(id);
    expect(check?.attributes.status).toBe('hard_failed');
    expect(check?.attributes.result).toMatchObject({ result: false, 'hard-failed': 1, 'total-failed': 1 });
    expect(check?.id && (await platform(server, 'POST', `/policy-checks/${check.id}/actions/override`)).status).toBe(409);
  });

  it('an advisory failure is counted and the run goes on', async () => {
    const ws = await guardedWorkspace('advisory', 'advisory', true, { 'auto-apply': true });
    const id = (await createRun(server, ws)).body.data.id as string;
    await waitFor(server, id, 'applied');
    const [check] = await checksOf(id);
    expect(check?.attributes.status).toBe('passed');
    expect(check?.attributes.result).toMatchObject({ result: true, 'advisory-failed': 1, passed: 0 });
  });

  it('a soft failure waits in policy_override until overridden, then the run applies', async () => {
    const ws = await guardedWorkspace('soft', 'soft-mandatory', true, { 'auto-apply': true });
    const id = (await createRun(server, ws)).body.data.id as string;
    const waiting = await waitFor(server, id, 'policy_override');
    expect(waiting.attributes.actions).toMatchObject({ 'is-discardable': true, 'is-confirmable': false });
    expect(waiting.attributes.permissions).toMatchObject({ 'can-override-policy-check': true });
    const [check] = await checksOf(id);
    expect(check?.attributes).toMatchObject({ status: 'soft_failed', actions: { 'is-overridable': true } });
    const overridden = await platform(server, 'POST', `/policy-checks/${check?.id}/actions/override`);
    expect(overridden.status).toBe(200);
    expect(overridden.body.data.attributes.status).toBe('overridden');
    await waitFor(server, id, 'applied');
    expect((await platform(server, 'POST', `/policy-checks/${check?.id}/actions/override`)).status).toBe(409);
  });

  it('a soft-failed run can be discarded instead', async () => {
    const ws = await guardedWorkspace('discarded', 'soft-mandatory', true);
    const id = (await createRun(server, ws)).body.data.id as string;
    await waitFor(server, id, 'policy_override');
    expect((await action(server, id, 'discard')).status).toBe(202);
    expect((await run(server, id)).attributes.status).toBe('discarded');
  });

  it('a run in a workspace without policies has no check', async () => {
    const ws = await newWorkspace(server, 'unguarded');
    await uploadConfiguration(server, ws, simpleConfig('free'));
    const id = (await createRun(server, ws)).body.data.id as string;
    const planned = await waitFor(server, id, 'planned');
    expect((planned.attributes['status-timestamps'] as Record<string, string>)['policy-checking-at']).toBeUndefined();
    expect(await checksOf(id)).toEqual([]);
  });
});
