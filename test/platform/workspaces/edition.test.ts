import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform } from '../../helpers/app.js';
import { ORG, startWorld, type World } from './world.js';

const HOSTED_ONLY_ATTRIBUTES = ['assessments-enabled', 'last-assessment-result-at'];

/** What the edition switch changes about workspaces (src/core/edition.ts). */
describe.each([{ edition: 'self-hosted' }, { edition: 'hosted' }])('workspaces on the $edition edition', ({ edition }) => {
  let world: World;
  const hosted = edition === 'hosted';
  beforeAll(async () => {
    world = await startWorld({ UNDERSTUDY_EDITION: edition });
  });
  afterAll(() => world.close());
  const create = (attributes: Record<string, unknown>) =>
    platform(world.server, 'POST', `/organizations/${ORG}/workspaces`, { body: { data: { type: 'workspaces', attributes } } });

  it(
    hosted
      ? 'accepts and returns assessments-enabled and current-assessment-result'
      : 'neither accepts nor returns the hosted-only attributes',
    async () => {
      const created = await create({ name: 'assessed', 'assessments-enabled': true });
      expect(created.status).toBe(201);
      const id = created.body.data.id as string;
      const shown = await platform(world.server, 'GET', `/workspaces/${id}`);
      const listed = await platform(world.server, 'GET', `/organizations/${ORG}/workspaces?search[name]=assessed`);
      for (const document of [created.body, shown.body, listed.body]) {
        const data = Array.isArray(document.data) ? document.data[0] : document.data;
        expect('assessments-enabled' in data.attributes).toBe(hosted);
        expect('current-assessment-result' in data.relationships).toBe(hosted);
        // No assessment ever runs here, so its time never appears.
        expect('last-assessment-result-at' in data.attributes).toBe(false);
      }
      if (hosted) expect(created.body.data.attributes['assessments-enabled']).toBe(true);
      const updated = await platform(world.server, 'PATCH', `/workspaces/${id}`, {
        body: { data: { type: 'workspaces', attributes: { 'assessments-enabled': false } } },
      });
      expect(updated.status).toBe(200);
      expect(Object.keys(updated.body.data.attributes).filter((name) => HOSTED_ONLY_ATTRIBUTES.includes(name))).toEqual(
        hosted ? ['assessments-enabled'] : [],
      );
      if (!hosted) {
        const stored = world.server.app.runtime.store.sqlite
          .prepare('SELECT assessments_enabled AS value FROM workspaces WHERE id = ?')
          .get(id) as { value: number };
        expect(stored.value).toBe(0);
      }
    },
  );

  it(`defaults global-remote-state to ${hosted ? 'false' : 'the administrator setting default-remote-state-access (true)'}`, async () => {
    const created = await create({ name: 'remote-default' });
    expect(created.body.data.attributes['global-remote-state']).toBe(!hosted);
    const chosen = await create({ name: 'remote-chosen', 'global-remote-state': hosted });
    expect(chosen.body.data.attributes['global-remote-state']).toBe(hosted);
  });

  it('gives bulk fixture workspaces the same default', async () => {
    const reply = await fetch(`${world.server.baseUrl}/_emulator/organizations/${ORG}/workspaces/bulk`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ count: 2, prefix: 'bulk' }),
    });
    expect(reply.status).toBe(201);
    const listed = await platform(world.server, 'GET', `/organizations/${ORG}/workspaces?search[name]=bulk`);
    expect(listed.body.data.map((entry: { attributes: Record<string, unknown> }) => entry.attributes['global-remote-state'])).toEqual([
      !hosted,
      !hosted,
    ]);
  });
});
