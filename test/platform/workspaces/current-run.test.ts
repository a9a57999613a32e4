import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform, startServer, type TestServer } from '../../helpers/app.js';
import { control, createRun, newWorkspace, ORG, simpleConfig, uploadConfiguration } from '../runs/helpers.js';

let server: TestServer;
// Workspaces made here, in the order their runs are created: `older` first, then `newer`; `idle` has none.
const names = { older: 'cr-older', newer: 'cr-newer', idle: 'cr-idle' };
const runIds: Record<'older' | 'newer', string> = { older: '', newer: '' };
const ids: Record<keyof typeof names, string> = { older: '', newer: '', idle: '' };

interface Resource {
  id: string;
  type: string;
  attributes: Record<string, unknown>;
  relationships?: Record<string, { data: { id: string; type: string } | null }>;
}

beforeAll(async () => {
  server = await startServer({ UNDERSTUDY_EXECUTOR: 'simulated', UNDERSTUDY_RUN_PROGRESSION: 'manual' });
  // The names sort against the run order (`cr-newer` < `cr-older`), so a name order would show up.
  for (const key of ['older', 'newer', 'idle'] as const) ids[key] = await newWorkspace(server, names[key]);
  for (const key of ['older', 'newer'] as const) {
    await uploadConfiguration(server, ids[key], simpleConfig(key));
    const created = await createRun(server, ids[key]);
    expect(created.status).toBe(201);
    runIds[key] = created.body.data.id as string;
    // A minute apart on the virtual clock, so the creation times differ whatever the machine's speed.
    expect((await control(server, 'POST', '/clock', { advance: '1m' })).status).toBe(200);
  }
});
afterAll(async () => server.close());

const ours = (data: Resource[]) => data.map((item) => item.attributes.name).filter((name) => String(name).startsWith('cr-'));

describe('workspaces and their current run', () => {
  it('show with include=current_run returns the run, as GET /runs/:id renders it, in included', async () => {
    const shown = await platform(server, 'GET', `/workspaces/${ids.newer}?include=current_run`);
    expect(shown.status).toBe(200);
    expect(shown.body.data.relationships['current-run'].data).toEqual({ id: runIds.newer, type: 'runs' });
    const direct = await platform(server, 'GET', `/runs/${runIds.newer}`);
    expect(shown.body.included).toEqual([direct.body.data]);

    const idle = await platform(server, 'GET', `/organizations/${ORG}/workspaces/${names.idle}?include=current_run`);
    expect(idle.status).toBe(200);
    expect(idle.body.data.relationships['current-run'].data).toBeNull();
    expect(idle.body.included).toBeUndefined();
  });

  it('the list includes each current run once; nested names add the plan or the configuration version', async () => {
    const listed = await platform(server, 'GET', `/organizations/${ORG}/workspaces?include=current_run`);
    expect(listed.status).toBe(200);
    const included = listed.body.included as Resource[];
    expect(included.map((item) => `${item.type}/${item.id}`).sort()).toEqual([`runs/${runIds.newer}`, `runs/${runIds.older}`].sort());

    const withPlan = await platform(server, 'GET', `/workspaces/${ids.older}?include=current_run.plan`);
    const run = await platform(server, 'GET', `/runs/${runIds.older}`);
    const planId = run.body.data.relationships.plan.data.id as string;
    expect((withPlan.body.included as Resource[]).map((item) => `${item.type}/${item.id}`)).toEqual([
      `runs/${runIds.older}`,
      `plans/${planId}`,
    ]);
    const withVersion = await platform(server, 'GET', `/workspaces/${ids.older}?include=current_run.configuration_version`);
    const versionId = run.body.data.relationships['configuration-version'].data.id as string;
    expect((withVersion.body.included as Resource[]).map((item) => `${item.type}/${item.id}`)).toEqual([
      `runs/${runIds.older}`,
      `configuration-versions/${versionId}`,
    ]);
  });

  it('sort=current-run.created-at orders by the run creation time, workspaces without a run last either way', async () => {
    const ascending = await platform(server, 'GET', `/organizations/${ORG}/workspaces?sort=current-run.created-at`);
    expect(ascending.status).toBe(200);
    expect(ours(ascending.body.data)).toEqual([names.older, names.newer, names.idle]);
    const descending = await platform(server, 'GET', `/organizations/${ORG}/workspaces?sort=-current-run.created-at`);
    expect(ours(descending.body.data)).toEqual([names.newer, names.older, names.idle]);
  });

  it('a new run moves its workspace in the order at once', async () => {
    const before = await platform(server, 'GET', `/organizations/${ORG}/workspaces?sort=-current-run.created-at&page[size]=1`);
    expect(before.body.data[0].attributes.name).toBe(names.newer);
    // The run goes to the workspace that had none: it now has the newest current run.
    await uploadConfiguration(server, ids.idle, simpleConfig('idle'));
    expect((await createRun(server, ids.idle)).status).toBe(201);
    const after = await platform(server, 'GET', `/organizations/${ORG}/workspaces?sort=-current-run.created-at&page[size]=1`);
    expect(after.body.data[0].attributes.name).toBe(names.idle);
  });
});
