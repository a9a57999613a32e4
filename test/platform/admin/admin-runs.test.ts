import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform } from '../../helpers/app.js';
import { control, createRun, newWorkspace, run, simpleConfig, uploadConfiguration, waitFor } from '../runs/helpers.js';
import { startWorld, type World } from '../workspaces/world.js';

let world: World;
let first: string;
let waiting: string;
let workspaceId: string;
let createdBetween: { from: string; to: string };

beforeAll(async () => {
  world = await startWorld({ UNDERSTUDY_EXECUTOR: 'simulated' });
  workspaceId = await newWorkspace(world.server, 'admin-runs-ws');
  await uploadConfiguration(world.server, workspaceId, simpleConfig('admin'));
  first = (await createRun(world.server, workspaceId)).body.data.id;
  await waitFor(world.server, first, 'planned');
  // The second run is created a virtual hour later, so the date filters can tell them apart.
  const before = new Date(Date.parse((await control(world.server, 'GET', '/clock')).body.now) + 30 * 60_000).toISOString();
  expect((await control(world.server, 'POST', '/clock', { advance: '1h' })).status).toBe(200);
  waiting = (await createRun(world.server, workspaceId)).body.data.id;
  createdBetween = { from: before, to: new Date(Date.parse(before) + 60 * 60_000).toISOString() };
});
afterAll(() => world.close());

const ids = (body: { data: { id: string }[] }) => body.data.map((item) => item.id);

describe('/admin/runs', () => {
  it('lists every run newest first in go-tfe AdminRun shapes, with status, q and date filters', async () => {
    const all = await platform(world.server, 'GET', '/admin/runs');
    expect(all.status).toBe(200);
    expect(ids(all.body)).toEqual([waiting, first]);
    expect(all.body.data[1]).toMatchObject({
      type: 'runs',
      attributes: { status: 'planned', 'has-changes': true },
      relationships: { workspace: { data: { id: workspaceId, type: 'workspaces' } } },
    });
    expect(all.body.data[1].attributes['created-at']).toMatch(/Z$/);
    expect(all.body.meta.pagination['total-count']).toBe(2);

    expect(ids((await platform(world.server, 'GET', '/admin/runs?filter[status]=pending,applied')).body)).toEqual([waiting]);
    expect(ids((await platform(world.server, 'GET', '/admin/runs?q=admin-runs')).body)).toEqual([waiting, first]);
    expect(ids((await platform(world.server, 'GET', `/admin/runs?q=${first}`)).body)).toEqual([first]);
    expect(ids((await platform(world.server, 'GET', '/admin/runs?q=nothing-like-it')).body)).toEqual([]);
    const from = await platform(world.server, 'GET', `/admin/runs?filter[from]=${createdBetween.from}`);
    expect(ids(from.body)).toEqual([waiting]);
    expect(ids((await platform(world.server, 'GET', `/admin/runs?filter[to]=${createdBetween.from}`)).body)).toEqual([first]);
  });

  it('includes the workspace and its organization', async () => {
    const listed = await platform(world.server, 'GET', '/admin/runs?include=workspace,workspace.organization');
    const included = listed.body.included as { id: string; type: string }[];
    expect(included.filter((item) => item.type === 'workspaces').map((item) => item.id)).toEqual([workspaceId]);
    expect(included.filter((item) => item.type === 'organizations').map((item) => item.id)).toEqual(['understudy']);
  });

  it('refuses a bad status or date with a 400 naming the parameter, and non-admins with 404', async () => {
    const status = await platform(world.server, 'GET', '/admin/runs?filter[status]=planned,bogus');
    expect([status.status, status.body.errors[0].detail]).toEqual([400, 'invalid value bogus for run status']);
    const date = await platform(world.server, 'GET', '/admin/runs?filter[from]=yesterday');
    expect([date.status, date.body.errors[0].source.parameter]).toEqual([400, 'filter[from]']);
    for (const role of ['owner', 'member']) {
      const token = world.principals[role];
      expect((await platform(world.server, 'GET', '/admin/runs', { token })).status).toBe(404);
      expect((await platform(world.server, 'POST', `/admin/runs/${first}/actions/force-cancel`, { token })).status).toBe(404);
    }
    expect((await run(world.server, first)).attributes.status).toBe('planned');
  });

  it('force-cancels any unfinished run at once, and refuses a finished one with 409', async () => {
    const canceled = await platform(world.server, 'POST', `/admin/runs/${first}/actions/force-cancel`, { body: { comment: 'stuck' } });
    expect(canceled.status).toBe(202);
    await waitFor(world.server, first, 'force_canceled');
    await waitFor(world.server, waiting, 'planned');
    const again = await platform(world.server, 'POST', `/admin/runs/${first}/actions/force-cancel`);
    expect([again.status, again.body.errors[0].title]).toEqual([409, 'transition not allowed']);
    expect((await platform(world.server, 'POST', '/admin/runs/run-nope/actions/force-cancel')).status).toBe(404);
  });
});
