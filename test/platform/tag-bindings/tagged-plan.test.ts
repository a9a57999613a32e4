import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform } from '../../helpers/app.js';
import { listQueryPlan } from '../../../src/platform/workspaces/list-repo.js';
import { control, ORG, startWorld, type World } from '../workspaces/world.js';

/**
 * `filter[tagged]` must not read every workspace of the organization: the matches come off the
 * `tag_bindings_org_key_value` index and the workspaces by primary key, so a page costs what
 * the matches cost, whatever the store holds.
 */
describe('filter[tagged] query plan', () => {
  let world: World;
  let organizationId: string;

  beforeAll(async () => {
    world = await startWorld();
    expect((await control(world.server, 'POST', `/organizations/${ORG}/workspaces/bulk`, { count: 2000, prefix: 'bulk' })).status).toBe(
      201,
    );
    organizationId = world.server.app.runtime.store.sqlite
      .prepare('SELECT id FROM organizations WHERE name = ?')
      .pluck()
      .get(ORG) as string;
    for (const name of ['bulk-0010', 'bulk-0500', 'bulk-1500']) {
      const id = (await platform(world.server, 'GET', `/organizations/${ORG}/workspaces/${name}`)).body.data.id;
      const patched = await platform(world.server, 'PATCH', `/workspaces/${id}/tag-bindings`, {
        body: { data: [{ type: 'tag-bindings', attributes: { key: 'env', value: 'bench' } }] },
      });
      expect(patched.status).toBe(200);
    }
  });
  afterAll(() => world.close());

  it.each([
    ['key and value', { key: 'env', value: 'bench' }],
    ['key alone', { key: 'env' }],
  ])('starts from the binding index, never scanning workspaces (%s)', (_label, condition) => {
    const plan = listQueryPlan(world.server.app.runtime.store.db, organizationId, { tagged: [condition] }, 'name');
    for (const details of [plan.page, plan.total]) {
      const text = details.join('\n');
      expect(text).toMatch(/SEARCH b USING INDEX tag_bindings_org_key_value \(organization_id=\? AND key=\?/);
      // The workspaces are read by id, for the matches only; the organization's indexes would walk all of them.
      expect(details[0]).toMatch(/^SEARCH w USING INDEX sqlite_autoindex_workspaces_1 \(id=\?\)$/);
      expect(text).not.toMatch(/workspaces_org_|SCAN w\b|SCAN pw\b/);
    }
  });

  it('lists the same rows the plan was made for', async () => {
    const listed = await platform(
      world.server,
      'GET',
      `/organizations/${ORG}/workspaces?filter[tagged][0][key]=env&filter[tagged][0][value]=bench`,
    );
    expect(listed.body.data.map((entry: { attributes: { name: string } }) => entry.attributes.name)).toEqual([
      'bulk-0010',
      'bulk-0500',
      'bulk-1500',
    ]);
    expect(listed.body.meta.pagination['total-count']).toBe(3);
  });
});
