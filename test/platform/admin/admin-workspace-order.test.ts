import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform, startServer, type TestServer } from '../../helpers/app.js';
import { control, createRun, newWorkspace, simpleConfig, uploadConfiguration } from '../runs/helpers.js';

// The order of the admin workspace list as the Go client's admin_workspace tests read it.
let server: TestServer;
const ids: Record<'first' | 'second' | 'idle', string> = { first: '', second: '', idle: '' };
const runIds: Record<'first' | 'second', string> = { first: '', second: '' };
type Item = { id: string; type: string; attributes: Record<string, unknown>; relationships: Record<string, { data: unknown }> };

beforeAll(async () => {
  server = await startServer({ UNDERSTUDY_EXECUTOR: 'simulated', UNDERSTUDY_RUN_PROGRESSION: 'manual' });
  // Names that sort against the run order, so a name order would show up.
  ids.idle = await newWorkspace(server, 'aaa-idle');
  ids.second = await newWorkspace(server, 'bbb-second');
  ids.first = await newWorkspace(server, 'ccc-first');
  for (const key of ['first', 'second'] as const) {
    await uploadConfiguration(server, ids[key], simpleConfig(key));
    const created = await createRun(server, ids[key]);
    expect(created.status).toBe(201);
    runIds[key] = created.body.data.id as string;
    // A minute apart on the virtual clock, so the runs' creation times differ on any machine.
    expect((await control(server, 'POST', '/clock', { advance: '1m' })).status).toBe(200);
  }
});
afterAll(async () => server.close());

const order = (data: Item[]) => data.map((item) => item.id).filter((id) => Object.values(ids).includes(id));

describe('the admin workspace list', () => {
  it('without sort lists the newest current run first and workspaces that never ran after it', async () => {
    const listed = await platform(server, 'GET', '/admin/workspaces?include=current_run&page[size]=100');
    expect(listed.status).toBe(200);
    expect(order(listed.body.data)).toEqual([ids.second, ids.first, ids.idle]);
    // The client's check: the first item's current run is the run it queued last, included.
    expect(listed.body.data[0].relationships['current-run'].data).toEqual({ id: runIds.second, type: 'runs' });
    const included = listed.body.included as Item[];
    expect(included.map((item) => item.id).sort()).toEqual([runIds.first, runIds.second].sort());
    // Without the include nothing is sent along.
    expect((await platform(server, 'GET', '/admin/workspaces')).body.included).toBeUndefined();
  });

  it('sort=current-run.created-at runs oldest first and sends the runs it sorted on, with their created-at', async () => {
    const ascending = await platform(server, 'GET', '/admin/workspaces?sort=current-run.created-at&page[size]=100');
    expect(ascending.status).toBe(200);
    expect(order(ascending.body.data)).toEqual([ids.first, ids.second, ids.idle]);
    const created = new Map((ascending.body.included as Item[]).map((run) => [run.id, Date.parse(String(run.attributes['created-at']))]));
    expect(created.get(runIds.second)! - created.get(runIds.first)!).toBeGreaterThanOrEqual(60_000);
    const descending = await platform(server, 'GET', '/admin/workspaces?sort=-current-run.created-at&page[size]=100');
    expect(order(descending.body.data)).toEqual([ids.second, ids.first, ids.idle]);
  });

  it('keeps name sorts by name, and refuses the internal default as a sort value', async () => {
    const named = await platform(server, 'GET', '/admin/workspaces?sort=name&page[size]=100');
    expect(order(named.body.data)).toEqual([ids.idle, ids.second, ids.first]);
    expect(named.body.included).toBeUndefined();
    expect((await platform(server, 'GET', '/admin/workspaces?sort=recent')).status).toBe(400);
  });
});
