import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform, startServer, type TestServer } from '../../helpers/app.js';
import { action, control, createRun, newWorkspace, nextRunCreated, run, simpleConfig, uploadConfiguration, waitFor } from './helpers.js';

let server: TestServer;

beforeAll(async () => {
  server = await startServer({ UNDERSTUDY_EXECUTOR: 'simulated' });
});
afterAll(async () => server.close());

const workspace = async (id: string) => (await platform(server, 'GET', `/workspaces/${id}`)).body.data;

describe('runs with the simulated executor', () => {
  it('plans, waits for confirmation, applies on the apply action, and writes the state with its outputs', async () => {
    const ws = await newWorkspace(server, 'runs-confirm');
    await uploadConfiguration(server, ws, simpleConfig('hello'));
    const created = await createRun(server, ws, { message: 'first' });
    expect(created.status).toBe(201);
    expect(created.body.data.attributes.source).toBe('svc-api');
    expect(created.body.data.attributes.message).toBe('first');
    const planned = await waitFor(server, created.body.data.id, 'planned');
    expect(planned.attributes.actions).toEqual({
      'is-cancelable': false,
      'is-confirmable': true,
      'is-discardable': true,
      'is-force-cancelable': false,
    });
    expect(planned.attributes['has-changes']).toBe(true);
    const locked = await workspace(ws);
    expect(locked.attributes.locked).toBe(true);
    expect(locked.relationships['locked-by'].data).toEqual({ id: created.body.data.id, type: 'runs' });

    expect((await action(server, created.body.data.id, 'apply', { comment: 'looks good' })).status).toBe(202);
    const applied = await waitFor(server, created.body.data.id, 'applied');
    expect(Object.keys(applied.attributes['status-timestamps'] as object)).toEqual(
      expect.arrayContaining([
        'plan-queued-at',
        'planning-at',
        'planned-at',
        'confirmed-at',
        'apply-queued-at',
        'applying-at',
        'applied-at',
      ]),
    );
    const after = await workspace(ws);
    expect(after.attributes.locked).toBe(false);
    expect(after.attributes['resource-count']).toBe(3);
    const outputs = await platform(server, 'GET', `/workspaces/${ws}/current-state-version?include=outputs`);
    expect(outputs.body.included[0].attributes).toMatchObject({ name: 'greeting', value: 'hello' });
    const comments = await platform(server, 'GET', `/runs/${created.body.data.id}/comments`);
    expect(comments.body.data[0].attributes.body).toBe('looks good');

    // The plan and apply as resources.
    const shown = await platform(server, 'GET', `/runs/${created.body.data.id}?include=plan,apply,workspace,task_stages`);
    const plan = shown.body.included.find((item: { type: string }) => item.type === 'plans');
    expect(plan.attributes).toMatchObject({ status: 'finished', 'resource-additions': 3, 'has-changes': true });
    expect(shown.body.included.find((item: { type: string }) => item.type === 'workspaces').id).toBe(ws);
    const log = await (await fetch(plan.attributes['log-read-url'])).text();
    expect(log).toContain('Plan: 3 to add, 0 to change, 0 to destroy.');

    // Every action on a finished run is a 409 with the real text.
    const refused = await action(server, created.body.data.id, 'apply');
    expect(refused.status).toBe(409);
    expect(refused.body.errors[0].detail).toBe('Run was not paused for confirmation or priority; apply not allowed');
    expect((await action(server, created.body.data.id, 'discard')).body.errors[0].detail).toBe(
      'Run was not paused for confirmation or priority; discard not allowed',
    );
    expect((await action(server, created.body.data.id, 'cancel')).body.errors[0].detail).toBe(
      'Run was not planning or applying; cancel not allowed',
    );
    expect((await action(server, created.body.data.id, 'force-cancel')).status).toBe(409);
    expect((await action(server, created.body.data.id, 'force-execute')).status).toBe(409);
  });

  it('auto-queues a run when a configuration version is uploaded, and auto-applies when asked', async () => {
    const ws = await newWorkspace(server, 'runs-auto', { 'auto-apply': true });
    await uploadConfiguration(server, ws, simpleConfig('auto'), {});
    const list = await platform(server, 'GET', `/workspaces/${ws}/runs`);
    expect(list.body.data).toHaveLength(1);
    const applied = await waitFor(server, list.body.data[0].id, 'applied');
    expect(applied.attributes.source).toBe('svc-configuration-version');
    expect(applied.attributes['auto-apply']).toBe(true);
    const stats = (await workspace(ws)).attributes;
    expect(stats['workspace-kpis-runs-count']).toBe(1);
    expect(stats['run-failures']).toBe(0);
  });

  it('keeps one active run per workspace: later runs wait, discarding the first starts the next', async () => {
    const ws = await newWorkspace(server, 'runs-queue');
    await uploadConfiguration(server, ws, simpleConfig('q'));
    const first = (await createRun(server, ws)).body.data.id;
    await waitFor(server, first, 'planned');
    const second = (await createRun(server, ws)).body.data.id;
    const waiting = await run(server, second);
    expect(waiting.attributes.status).toBe('pending');
    expect(waiting.attributes.actions['is-cancelable']).toBe(true);
    const queue = await platform(server, 'GET', `/workspaces/${ws}/runs?filter[status]=pending`);
    expect(queue.body.data.map((item: { id: string }) => item.id)).toEqual([second]);
    // A speculative run goes alongside.
    const speculative = (await createRun(server, ws, { 'plan-only': true })).body.data.id;
    expect((await waitFor(server, speculative, 'planned_and_finished')).attributes['plan-only']).toBe(true);

    expect((await action(server, first, 'discard')).status).toBe(202);
    await waitFor(server, first, 'discarded');
    await waitFor(server, second, 'planned');
    expect((await workspace(ws)).relationships['current-run'].data.id).toBe(second);
    const filtered = await platform(server, 'GET', `/workspaces/${ws}/runs?filter[operation]=plan_only`);
    expect(filtered.body.data.map((item: { id: string }) => item.id)).toEqual([speculative]);
    const byOrg = await platform(server, 'GET', `/organizations/understudy/runs?filter[status]=discarded`);
    expect(byOrg.body.data.map((item: { id: string }) => item.id)).toContain(first);
  });

  it('errors a run whose configuration asks for a failing plan or apply, counts it, and frees the workspace', async () => {
    const ws = await newWorkspace(server, 'runs-fail', { 'auto-apply': true });
    await uploadConfiguration(server, ws, simpleConfig('f', 'locals {\n  understudy_simulate_failure = "apply"\n}\n'));
    const failing = (await createRun(server, ws)).body.data.id;
    await waitFor(server, failing, 'errored');
    const shown = await platform(server, 'GET', `/runs/${failing}?include=apply`);
    const apply = shown.body.included[0];
    expect(apply.attributes.status).toBe('errored');
    expect(await (await fetch(apply.attributes['log-read-url'])).text()).toContain('simulated apply failure');
    const after = await workspace(ws);
    expect(after.attributes.locked).toBe(false);
    expect(after.attributes['run-failures']).toBe(1);
    expect(after.relationships['current-state-version'].data).toBeNull();
  });

  it('refuses bad run requests with 4xx, never 5xx', async () => {
    const ws = await newWorkspace(server, 'runs-bad', { 'allow-destroy-plan': false });
    expect((await createRun(server, ws)).status).toBe(422);
    await uploadConfiguration(server, ws, simpleConfig('b'));
    expect((await createRun(server, ws, { 'is-destroy': true })).status).toBe(422);
    expect((await createRun(server, ws, {}, 'cv-nope')).status).toBe(422);
    expect((await createRun(server, ws, { 'terraform-version': '1.5.0' })).status).toBe(422);
    expect((await createRun(server, ws, { variables: 'x' })).status).toBe(422);
    expect((await createRun(server, 'ws-nope')).status).toBe(404);
    expect((await platform(server, 'POST', '/runs', { body: '{"data":' })).status).toBe(422);
    expect((await platform(server, 'POST', '/runs', { body: { data: { type: 'runs' } } })).status).toBe(422);
    expect((await platform(server, 'GET', '/runs/run-nope')).status).toBe(404);
    expect((await platform(server, 'GET', '/runs/run-nope?include=bogus')).status).toBeLessThan(500);
    expect((await action(server, 'run-nope', 'apply')).status).toBe(404);
    expect((await platform(server, 'GET', '/plans/plan-nope')).status).toBe(404);
    expect((await fetch(`${server.baseUrl}/_archivist/v1/runs/logs/plan-x.forged`)).status).toBe(404);
  });
});

describe('progression', () => {
  it('manual: a run waits in each state until advanced through the control plane', async () => {
    const ws = await newWorkspace(server, 'runs-manual', { 'auto-apply': true });
    expect((await control(server, 'PUT', '/runs/progression', { mode: 'manual', workspace: ws })).status).toBe(200);
    await uploadConfiguration(server, ws, simpleConfig('m'));
    const id = (await createRun(server, ws)).body.data.id;
    const seen: string[] = [];
    for (let step = 0; step < 20; step++) {
      const advanced = await control(server, 'POST', `/runs/${id}/advance`);
      if (advanced.status === 409) break;
      expect(advanced.status).toBe(200);
      seen.push(advanced.body.status);
    }
    expect(seen).toEqual(['plan_queued', 'planning', 'planned', 'confirmed', 'apply_queued', 'applying', 'applied']);
    expect((await run(server, id)).attributes.status).toBe('applied');
  });

  it('clock: each state lasts five virtual seconds', async () => {
    const ws = await newWorkspace(server, 'runs-clock', { 'auto-apply': true });
    expect((await control(server, 'PUT', '/runs/progression', { mode: 'clock', workspace: ws })).status).toBe(200);
    await uploadConfiguration(server, ws, simpleConfig('c'));
    const id = (await createRun(server, ws)).body.data.id;
    expect((await run(server, id)).attributes.status).toBe('pending');
    await control(server, 'POST', '/clock', { advance: '5s' });
    expect((await run(server, id)).attributes.status).toBe('plan_queued');
    await control(server, 'POST', '/clock', { advance: '1m' });
    expect((await run(server, id)).attributes.status).toBe('applied');
  });
});

describe('run triggers', () => {
  it('an apply that finishes in a source workspace queues a run in the workspaces that name it', async () => {
    const source = await newWorkspace(server, 'trigger-source', { 'auto-apply': true });
    const target = await newWorkspace(server, 'trigger-target', { 'auto-apply-run-trigger': true });
    await uploadConfiguration(server, target, simpleConfig('downstream'));
    const created = await platform(server, 'POST', `/workspaces/${target}/run-triggers`, {
      body: { data: { type: 'run-triggers', relationships: { sourceable: { data: { type: 'workspaces', id: source } } } } },
    });
    expect(created.status).toBe(201);
    expect(created.body.data.attributes['sourceable-name']).toBe('trigger-source');
    const again = await platform(server, 'POST', `/workspaces/${target}/run-triggers`, {
      body: { data: { type: 'run-triggers', relationships: { sourceable: { data: { type: 'workspaces', id: source } } } } },
    });
    expect(again.status).toBe(422);
    const inbound = await platform(server, 'GET', `/workspaces/${target}/run-triggers?filter[run-trigger][type]=inbound`);
    expect(inbound.body.data.map((item: { id: string }) => item.id)).toEqual([created.body.data.id]);
    expect((await platform(server, 'GET', `/workspaces/${target}/run-triggers`)).status).toBe(400);

    await uploadConfiguration(server, source, simpleConfig('upstream'));
    const triggered = nextRunCreated(server, target);
    const upstream = (await createRun(server, source)).body.data.id;
    await waitFor(server, upstream, 'applied');
    const triggeredId = await triggered;
    const downstream: { id: string; attributes: Record<string, unknown> }[] = (await platform(server, 'GET', `/workspaces/${target}/runs`))
      .body.data;
    expect(downstream.map((item) => item.id)).toEqual([triggeredId]);
    expect(downstream[0]!.attributes['trigger-reason']).toBe('run_trigger');
    await waitFor(server, downstream[0]!.id, 'applied');
    expect((await platform(server, 'DELETE', `/run-triggers/${created.body.data.id}`)).status).toBe(204);
  });
});
