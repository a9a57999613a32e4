import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform, startServer, type TestServer } from '../../helpers/app.js';
import { createRun, newWorkspace, simpleConfig, uploadConfiguration, waitFor } from './helpers.js';

let server: TestServer;

beforeAll(async () => {
  server = await startServer({ UNDERSTUDY_EXECUTOR: 'simulated' });
});
afterAll(async () => server.close());

// go-tfe's ConfigurationVersions.Archive: a bodiless POST; errors carry the title and the detail.
const archive = (id: string) => platform(server, 'POST', `/configuration-versions/${id}/actions/archive`);
const version = async (id: string) => (await platform(server, 'GET', `/configuration-versions/${id}`)).body.data;

describe('configuration version archive', () => {
  it('refuses the current version with the real text, archives an older one, which then has no slug', async () => {
    const ws = await newWorkspace(server, 'cv-archive');
    const older = await uploadConfiguration(server, ws, simpleConfig('old'));

    const refused = await archive(older);
    expect(refused.status).toBe(409);
    expect(refused.body.errors[0]).toMatchObject({
      title: 'transition not allowed',
      detail: 'configuration could not be archived because it is current',
    });
    expect((await version(older)).attributes.status).toBe('uploaded');

    await uploadConfiguration(server, ws, simpleConfig('new'));
    expect((await archive(older)).status).toBe(202);
    const archived = await version(older);
    expect(archived.attributes.status).toBe('archived');
    expect(archived.attributes['status-timestamps']['archived-at']).toMatch(/Z$/);
    expect((await platform(server, 'GET', `/configuration-versions/${older}/download`)).status).toBe(404);

    const again = await archive(older);
    expect([again.status, again.body.errors[0].detail]).toEqual([409, 'configuration could not be archived because it is archived']);
    const run = await createRun(server, ws, {}, older);
    expect(run.status).toBeGreaterThanOrEqual(400);
    expect(run.status).toBeLessThan(500);
  });

  it('refuses a version an unfinished run still reads, and an unknown id with 404', async () => {
    const ws = await newWorkspace(server, 'cv-archive-in-use');
    const used = await uploadConfiguration(server, ws, simpleConfig('used'));
    const runId = (await createRun(server, ws, {}, used)).body.data.id as string;
    await waitFor(server, runId, 'planned');
    await uploadConfiguration(server, ws, simpleConfig('later'));

    const refused = await archive(used);
    expect([refused.status, refused.body.errors[0].detail]).toEqual([409, 'configuration could not be archived because it is current']);
    expect((await archive('cv-nope')).status).toBe(404);
  });
});
