import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, platform, startServer, type TestServer } from '../../helpers/app.js';
import { createRun, newWorkspace, simpleConfig, uploadConfiguration, waitFor } from '../runs/helpers.js';

let server: TestServer;
let planId: string;

/** `PlanExportCreateOptions` as go-tfe marshals it. */
const exportBody = (attributes: Record<string, unknown>, plan?: string) => ({
  data: { type: 'plan-exports', attributes, ...(plan ? { relationships: { plan: { data: { type: 'plans', id: plan } } } } : {}) },
});
const get = (path: string) => fetch(`${server.baseUrl}/api/v2${path}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });

beforeAll(async () => {
  server = await startServer({ UNDERSTUDY_EXECUTOR: 'simulated' });
  const ws = await newWorkspace(server, 'exported');
  await uploadConfiguration(server, ws, simpleConfig('exported'));
  const runId = (await createRun(server, ws)).body.data.id as string;
  await waitFor(server, runId, 'planned');
  planId = (await platform(server, 'GET', `/runs/${runId}`)).body.data.relationships.plan.data.id;
});
afterAll(async () => server.close());

describe('plan exports', () => {
  it('exports a finished plan as a sentinel mock bundle holding the plan JSON, then deletes it', async () => {
    const created = await platform(server, 'POST', '/plan-exports', {
      body: exportBody({ 'data-type': 'sentinel-mock-bundle-v0' }, planId),
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      type: 'plan-exports',
      attributes: { 'data-type': 'sentinel-mock-bundle-v0', status: 'finished' },
      relationships: { plan: { data: { id: planId, type: 'plans' } } },
    });
    expect(created.body.data.attributes['status-timestamps']['queued-at']).toBeDefined();
    const id = created.body.data.id as string;
    expect((await platform(server, 'GET', `/plan-exports/${id}`)).body.data).toEqual(created.body.data);

    const download = await get(`/plan-exports/${id}/download`);
    expect(download.status).toBe(200);
    const bundle = Buffer.from(await download.arrayBuffer());
    // The real tar reads the bundle; its plan.json is the plan's JSON as the plans API serves it.
    const listed = execFileSync('tar', ['-tzf', '-'], { input: bundle }).toString().trim().split('\n');
    expect(listed).toEqual(['plan.json']);
    const inside = execFileSync('tar', ['-xzOf', '-', 'plan.json'], { input: bundle });
    const planJson = Buffer.from(await (await get(`/plans/${planId}/json-output`)).arrayBuffer());
    expect(inside.equals(planJson)).toBe(true);
    expect(JSON.parse(inside.toString())).toHaveProperty('format_version');

    expect((await platform(server, 'DELETE', `/plan-exports/${id}`)).status).toBe(204);
    expect((await platform(server, 'GET', `/plan-exports/${id}`)).status).toBe(404);
    expect((await platform(server, 'DELETE', '/plan-exports/pe-doesntexist')).status).toBe(404);
  });

  it('refuses bad bodies with the pointer', async () => {
    const refused = async (body: unknown, pointer: string) => {
      const response = await platform(server, 'POST', '/plan-exports', { body });
      expect(response.status).toBe(422);
      expect(response.body.errors[0].source.pointer).toBe(pointer);
    };
    await refused(exportBody({}, planId), '/data/attributes/data-type');
    await refused(exportBody({ 'data-type': 'sentinel-mock-bundle-v9' }, planId), '/data/attributes/data-type');
    await refused(exportBody({ 'data-type': 'sentinel-mock-bundle-v0' }), '/data/relationships/plan');
    await refused(
      {
        data: {
          type: 'plan-exports',
          attributes: { 'data-type': 'sentinel-mock-bundle-v0' },
          relationships: { plan: { data: { id: 5 } } },
        },
      },
      '/data/relationships/plan/data/id',
    );
    const missing = await platform(server, 'POST', '/plan-exports', {
      body: exportBody({ 'data-type': 'sentinel-mock-bundle-v0' }, 'plan-missing'),
    });
    expect(missing.status).toBe(404);
  });
});
