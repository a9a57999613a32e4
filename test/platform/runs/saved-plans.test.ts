import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform, startServer, type TestServer } from '../../helpers/app.js';
import { action, createRun, newWorkspace, run, simpleConfig, uploadConfiguration, waitFor } from './helpers.js';

/**
 * Saved-plan runs as the Go client and `terraform plan -out` create them (`"save-plan": true` in
 * the run's attributes): they plan at once without holding the workspace, stop at
 * `planned_and_saved`, and apply only on the apply action, taking the workspace then.
 */
let server: TestServer;

beforeAll(async () => {
  server = await startServer({ UNDERSTUDY_EXECUTOR: 'simulated' });
});
afterAll(async () => server.close());

const workspace = async (id: string) => (await platform(server, 'GET', `/workspaces/${id}`)).body.data;
const savedRun = async (ws: string, cv?: string) => {
  const created = await createRun(server, ws, { 'save-plan': true }, cv);
  expect(created.status).toBe(201);
  expect(created.body.data.attributes['save-plan']).toBe(true);
  return created.body.data.id as string;
};

describe('saved-plan runs', () => {
  it('plan without locking the workspace, stop at planned_and_saved, and are confirmable and discardable', async () => {
    const ws = await newWorkspace(server, 'saved-basic');
    await uploadConfiguration(server, ws, simpleConfig('saved'));
    const id = await savedRun(ws);
    const saved = await waitFor(server, id, 'planned_and_saved');
    expect(saved.attributes.actions).toEqual({
      'is-cancelable': false,
      'is-confirmable': true,
      'is-discardable': true,
      'is-force-cancelable': false,
    });
    expect(saved.attributes['has-changes']).toBe(true);
    expect(Object.keys(saved.attributes['status-timestamps'] as object)).toEqual(
      expect.arrayContaining(['plan-queued-at', 'planning-at', 'planned-and-saved-at']),
    );
    expect(saved.attributes['status-timestamps']).not.toHaveProperty('planned-at');
    const free = await workspace(ws);
    expect(free.attributes.locked).toBe(false);
    expect(free.relationships['current-run'].data).toBeNull();
    // The operation filter the Go client sends, and the status filter.
    const byOperation = await platform(server, 'GET', `/workspaces/${ws}/runs?filter%5Boperation%5D=save_plan`);
    expect(byOperation.body.data.map((item: { id: string }) => item.id)).toEqual([id]);
    const byStatus = await platform(server, 'GET', `/workspaces/${ws}/runs?filter%5Bstatus%5D=planned_and_saved`);
    expect(byStatus.body.data.map((item: { id: string }) => item.id)).toEqual([id]);
    // Not cancelable: it is waiting, not working.
    expect((await action(server, id, 'cancel')).status).toBe(409);

    expect((await action(server, id, 'discard', { comment: 'not this one' })).status).toBe(202);
    const discarded = await waitFor(server, id, 'discarded');
    expect(discarded.attributes.actions['is-confirmable']).toBe(false);
    expect((await action(server, id, 'apply')).status).toBe(409);
  });

  it('apply on the apply action: confirmed, the workspace taken for the apply, the state written', async () => {
    const ws = await newWorkspace(server, 'saved-apply', { 'auto-apply': true });
    const older = await uploadConfiguration(server, ws, simpleConfig('older'));
    // What `terraform plan -out` uploads: a provisional version, which is not current until applied.
    const provisional = await uploadConfiguration(server, ws, simpleConfig('kept'), { 'auto-queue-runs': false, provisional: true });
    const id = await savedRun(ws, provisional);
    // A saved plan is never auto-applied, even in an auto-apply workspace.
    await waitFor(server, id, 'planned_and_saved');
    expect((await workspace(ws)).relationships['current-configuration-version'].data.id).toBe(older);

    expect((await action(server, id, 'apply', { comment: 'ship it' })).status).toBe(202);
    const applied = await waitFor(server, id, 'applied');
    expect(Object.keys(applied.attributes['status-timestamps'] as object)).toEqual(
      expect.arrayContaining(['planned-and-saved-at', 'confirmed-at', 'apply-queued-at', 'applying-at', 'applied-at']),
    );
    const after = await workspace(ws);
    expect(after.attributes.locked).toBe(false);
    expect(after.relationships['current-run'].data.id).toBe(id);
    expect(after.attributes['resource-count']).toBe(3);
    expect(after.relationships['current-configuration-version'].data.id).toBe(provisional);
    const outputs = await platform(server, 'GET', `/workspaces/${ws}/current-state-version?include=outputs`);
    expect(outputs.body.included[0].attributes).toMatchObject({ name: 'greeting', value: 'kept' });
    const shown = await platform(server, 'GET', `/runs/${id}?include=apply`);
    expect(shown.body.included[0].attributes.status).toBe('finished');
    const events = await platform(server, 'GET', `/runs/${id}/run-events`);
    const actions = events.body.data.map((item: { attributes: { action: string } }) => item.attributes.action);
    expect(actions).toEqual(expect.arrayContaining(['planned_and_saved', 'confirmed', 'applied']));
  });

  it('plan alongside a run that holds the workspace; once confirmed, wait for it and apply after', async () => {
    const ws = await newWorkspace(server, 'saved-queue');
    await uploadConfiguration(server, ws, simpleConfig('q'));
    const holder = (await createRun(server, ws)).body.data.id as string;
    await waitFor(server, holder, 'planned');
    const id = await savedRun(ws);
    await waitFor(server, id, 'planned_and_saved');
    expect((await workspace(ws)).relationships['locked-by'].data.id).toBe(holder);
    // A saved plan not yet confirmed is not in the queue: a run queued after it has only the holder ahead.
    const queued = (await createRun(server, ws)).body.data.id as string;
    expect((await run(server, queued)).attributes['position-in-queue']).toBe(1);
    expect((await action(server, queued, 'discard')).status).toBe(202);

    expect((await action(server, id, 'apply')).status).toBe(202);
    const waiting = await run(server, id);
    expect(waiting.attributes.status).toBe('confirmed');
    expect((await workspace(ws)).relationships['current-run'].data.id).toBe(holder);

    // The holder is discarded (nothing applied): the saved plan is still good, and applies.
    expect((await action(server, holder, 'discard')).status).toBe(202);
    await waitFor(server, id, 'applied');
    expect((await workspace(ws)).relationships['current-run'].data.id).toBe(id);
  });

  it("plan while a user holds the workspace's lock; once confirmed, apply when it is unlocked, or end on a cancel", async () => {
    const ws = await newWorkspace(server, 'saved-user-lock');
    await uploadConfiguration(server, ws, simpleConfig('l'));
    expect((await platform(server, 'POST', `/workspaces/${ws}/actions/lock`, { body: { reason: 'mine' } })).status).toBe(200);
    const kept = await savedRun(ws);
    const dropped = await savedRun(ws);
    await waitFor(server, kept, 'planned_and_saved');
    await waitFor(server, dropped, 'planned_and_saved');
    expect((await action(server, kept, 'apply')).status).toBe(202);
    expect((await action(server, dropped, 'apply')).status).toBe(202);
    const waiting = await run(server, dropped);
    expect(waiting.attributes.status).toBe('confirmed');
    // Confirmed and waiting for the workspace, it is working as far as the actions go: a cancel ends it.
    expect(waiting.attributes.actions['is-cancelable']).toBe(true);
    expect((await action(server, dropped, 'cancel')).status).toBe(202);
    await waitFor(server, dropped, 'canceled');
    expect((await run(server, kept)).attributes.status).toBe('confirmed');

    expect((await platform(server, 'POST', `/workspaces/${ws}/actions/unlock`)).status).toBe(200);
    await waitFor(server, kept, 'applied');
    expect((await platform(server, 'GET', `/workspaces/${ws}`)).body.data.attributes.locked).toBe(false);
  });

  it('go stale when another run of the workspace applies first: discarded, and the apply action refused', async () => {
    const ws = await newWorkspace(server, 'saved-stale');
    await uploadConfiguration(server, ws, simpleConfig('s'));
    const first = await savedRun(ws);
    const second = await savedRun(ws);
    await waitFor(server, first, 'planned_and_saved');
    await waitFor(server, second, 'planned_and_saved');
    const other = await newWorkspace(server, 'saved-stale-other');
    await uploadConfiguration(server, other, simpleConfig('o'));
    const elsewhere = await savedRun(other);
    await waitFor(server, elsewhere, 'planned_and_saved');

    expect((await action(server, first, 'apply')).status).toBe(202);
    await waitFor(server, first, 'applied');
    const stale = await waitFor(server, second, 'discarded');
    expect(stale.attributes.actions['is-confirmable']).toBe(false);
    const refused = await action(server, second, 'apply');
    expect(refused.status).toBe(409);
    expect(refused.body.errors[0].detail).toBe('Run was not paused for confirmation or priority; apply not allowed');
    // A saved plan of another workspace is untouched.
    expect((await run(server, elsewhere)).attributes.status).toBe('planned_and_saved');
  });

  it('finish as planned_and_finished when the plan has no changes', async () => {
    const ws = await newWorkspace(server, 'saved-nochange');
    await uploadConfiguration(server, ws, 'locals {\n  a = 1\n}\n');
    const id = await savedRun(ws);
    const done = await waitFor(server, id, 'planned_and_finished');
    expect(done.attributes['has-changes']).toBe(false);
    expect(done.attributes.actions['is-confirmable']).toBe(false);
  });
});
