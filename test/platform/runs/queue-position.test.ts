import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform, startServer, type TestServer } from '../../helpers/app.js';
import { action, createRun, newWorkspace, run, simpleConfig, uploadConfiguration, waitFor } from './helpers.js';

let server: TestServer;

beforeAll(async () => {
  server = await startServer({ UNDERSTUDY_EXECUTOR: 'simulated' });
});
afterAll(async () => server.close());

const position = async (id: string) => (await run(server, id)).attributes['position-in-queue'];

describe('position-in-queue', () => {
  it('counts the unfinished runs ahead of a pending run in its workspace, and is 0 once a run has started', async () => {
    const ws = await newWorkspace(server, 'queue-position');
    await uploadConfiguration(server, ws, simpleConfig('q'));
    const first = (await createRun(server, ws)).body.data.id as string;
    await waitFor(server, first, 'planned');
    const second = (await createRun(server, ws)).body.data.id as string;
    const third = (await createRun(server, ws)).body.data.id as string;
    const speculative = (await createRun(server, ws, { 'plan-only': true })).body.data.id as string;

    expect([await position(first), await position(second), await position(third)]).toEqual([0, 1, 2]);
    await waitFor(server, speculative, 'planned_and_finished');
    expect(await position(speculative)).toBe(0);
    const listed = await platform(server, 'GET', `/workspaces/${ws}/runs`);
    const byId = new Map(listed.body.data.map((item: { id: string; attributes: Record<string, unknown> }) => [item.id, item]));
    expect((byId.get(third) as { attributes: Record<string, unknown> }).attributes['position-in-queue']).toBe(2);

    expect((await action(server, first, 'discard')).status).toBe(202);
    await waitFor(server, second, 'planned');
    expect([await position(second), await position(third)]).toEqual([0, 1]);
  });
});
