import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform } from '../../helpers/app.js';
import { ORG, OTHER_ORG, startWorld, tokenOf, type World } from '../workspaces/world.js';

type Item = { id: string; type?: string; attributes: Record<string, unknown>; relationships?: Record<string, { data: unknown }> };

describe('self-hosted administration of organizations, workspaces and users', () => {
  let world: World;
  const admin = (method: string, path: string, body?: unknown) => platform(world.server, method, path, body ? { body } : {});
  const as = (role: string, method: string, path: string, body?: unknown) =>
    platform(world.server, method, path, { token: world.principals[role], ...(body ? { body } : {}) });
  const newOrganization = async (name: string) => {
    const created = await admin('POST', '/organizations', {
      data: { type: 'organizations', attributes: { name, email: `${name}@x.test` } },
    });
    expect(created.status).toBe(201);
  };
  const newWorkspace = async (organization: string, name: string) => {
    const created = await admin('POST', `/organizations/${organization}/workspaces`, {
      data: { type: 'workspaces', attributes: { name } },
    });
    expect(created.status).toBe(201);
    return created.body.data.id as string;
  };

  beforeAll(async () => {
    world = await startWorld();
  });
  afterAll(() => world.close());

  it('is for site administrators only: everyone else meets a 404, whatever they send', async () => {
    for (const role of ['owner', 'member', 'orgtoken']) {
      expect((await as(role, 'GET', '/admin/organizations')).status).toBe(404);
      expect((await as(role, 'GET', `/admin/organizations/${ORG}`)).status).toBe(404);
      expect((await as(role, 'PATCH', `/admin/organizations/${ORG}`, { junk: true })).status).toBe(404);
      expect((await as(role, 'DELETE', `/admin/organizations/${ORG}`)).status).toBe(404);
      expect((await as(role, 'GET', '/admin/workspaces')).status).toBe(404);
      expect((await as(role, 'POST', `/admin/users/user-x/actions/suspend`)).status).toBe(404);
      expect((await as(role, 'DELETE', `/admin/users/user-x`)).status).toBe(404);
    }
    expect((await admin('GET', `/organizations/${ORG}`)).status).toBe(200);
  });

  it('lists organizations with q, pages and owners; shows, updates and deletes one', async () => {
    const listed = await admin('GET', '/admin/organizations?include=owners');
    expect(listed.status).toBe(200);
    const acme = listed.body.data.find((item: Item) => item.id === ORG);
    expect(acme.attributes).toMatchObject({
      'is-disabled': false,
      'access-beta-tools': false,
      'workspace-limit': null,
      'notification-email': 'owners@acme.test',
    });
    const ownerIds = (acme.relationships.owners.data as { id: string }[]).map((owner) => owner.id);
    const included = listed.body.included.filter((item: Item) => ownerIds.includes(item.id));
    expect(included.map((user: Item) => user.attributes.username)).toEqual(['owner']);

    const queried = await admin('GET', `/admin/organizations?q=${ORG.toUpperCase()}`);
    expect(queried.body.data.map((item: Item) => item.id)).toEqual([ORG]);
    expect(queried.body.meta.pagination['total-count']).toBe(1);
    const none = await admin('GET', '/admin/organizations?q=random-org-name');
    expect(none.body.data).toEqual([]);
    expect(none.body.meta.pagination['total-count']).toBe(0);
    const paged = await admin('GET', '/admin/organizations?page[number]=999&page[size]=100');
    expect(paged.body.data).toEqual([]);
    expect(paged.body.meta.pagination['current-page']).toBe(999);
    const small = await admin('GET', '/admin/organizations?page[size]=1&page[number]=2');
    expect(small.body.data).toHaveLength(1);

    await newOrganization('admin-managed');
    const update = {
      data: {
        type: 'organizations',
        attributes: {
          'access-beta-tools': true,
          'global-module-sharing': false,
          'is-disabled': false,
          'terraform-build-worker-apply-timeout': '24h',
          'plan-timeout': '24h',
          'terraform-worker-sudo-enabled': true,
        },
      },
    };
    const updated = await admin('PATCH', '/admin/organizations/admin-managed', update);
    expect(updated.status).toBe(200);
    expect(updated.body.data.attributes).toMatchObject({
      'access-beta-tools': true,
      'plan-timeout': '24h',
      'terraform-worker-sudo-enabled': true,
    });
    const limited = await admin('PATCH', '/admin/organizations/admin-managed', {
      data: { type: 'organizations', attributes: { 'is-disabled': true, 'global-module-sharing': true, 'workspace-limit': 42 } },
    });
    expect(limited.body.data.attributes).toMatchObject({
      'is-disabled': true,
      'global-module-sharing': true,
      'workspace-limit': 42,
      'access-beta-tools': true,
    });
    const refused = await admin('PATCH', '/admin/organizations/admin-managed', {
      data: { type: 'organizations', attributes: { 'plan-timeout': 'forever' } },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0].source.pointer).toBe('/data/attributes/plan-timeout');
    expect(
      (
        await admin('PATCH', '/admin/organizations/admin-managed', {
          data: { type: 'organizations', attributes: { 'workspace-limit': -1 } },
        })
      ).status,
    ).toBe(422);
    expect((await admin('GET', '/admin/organizations/admin-managed')).body.data.attributes['plan-timeout']).toBe('24h');

    expect((await admin('GET', '/admin/organizations/non-existing-org')).status).toBe(404);
    expect(
      (await admin('PATCH', '/admin/organizations/non-existing-org', { data: { type: 'organizations', attributes: {} } })).status,
    ).toBe(404);
    expect((await admin('DELETE', '/admin/organizations/non-existing-org')).status).toBe(404);
    expect((await admin('DELETE', '/admin/organizations/admin-managed')).status).toBe(204);
    expect((await admin('GET', '/admin/organizations/admin-managed')).status).toBe(404);
    expect((await admin('GET', '/organizations/admin-managed')).status).toBe(404);
  });

  it('lists and replaces module consumers, and filters organizations by module producer', async () => {
    await newOrganization('producer');
    await newOrganization('consumer-a');
    await newOrganization('consumer-b');
    const path = '/admin/organizations/producer/relationships/module-consumers';
    const set = (names: string[]) => admin('PATCH', path, { data: names.map((id) => ({ type: 'organizations', id })) });
    expect((await set(['consumer-a'])).status).toBe(204);
    expect((await admin('GET', path)).body.data.map((item: Item) => item.id)).toEqual(['consumer-a']);
    expect((await set(['consumer-b'])).status).toBe(204);
    expect((await admin('GET', path)).body.data.map((item: Item) => item.id)).toEqual(['consumer-b']);
    const missing = await set(['1Hello!']);
    expect(missing.status).toBe(422);
    expect(missing.body.errors[0].detail).toBe('Organization 1Hello! not found');
    expect((await admin('GET', path)).body.data.map((item: Item) => item.id)).toEqual(['consumer-b']);
    const filtered = await admin('GET', '/admin/organizations?filter[module_producer]=producer');
    expect(filtered.body.data.map((item: Item) => item.id)).toEqual(['consumer-b']);
  });

  it('lists workspaces of every organization with q, sort, filters and includes; shows and deletes one', async () => {
    const first = await newWorkspace(ORG, 'admin-alpha');
    const second = await newWorkspace(OTHER_ORG, 'admin-beta');
    const all = await admin('GET', '/admin/workspaces?sort=name&page[size]=100&include=organization');
    expect(all.status).toBe(200);
    const names = all.body.data.map((item: Item) => item.attributes.name);
    expect(names).toEqual([...names].sort());
    expect(all.body.data.map((item: Item) => item.id)).toEqual(expect.arrayContaining([first, second]));
    const organizations = all.body.included.map((item: Item) => item.id);
    expect(organizations).toEqual(expect.arrayContaining([ORG, OTHER_ORG]));
    const descending = await admin('GET', '/admin/workspaces?sort=-name&page[size]=100');
    expect(descending.body.data.map((item: Item) => item.attributes.name)).toEqual([...names].reverse());

    const searched = await admin('GET', '/admin/workspaces?q=admin-alpha');
    expect(searched.body.data.map((item: Item) => item.id)).toEqual([first]);
    expect(searched.body.meta.pagination['total-count']).toBe(1);
    expect((await admin('GET', '/admin/workspaces?q=nonexisting')).body.meta.pagination['total-count']).toBe(0);
    expect((await admin('GET', '/admin/workspaces?filter[current_run][status]=applied')).body.data).toEqual([]);
    expect((await admin('GET', '/admin/workspaces?page[number]=999&page[size]=100')).body.data).toEqual([]);
    expect((await admin('GET', '/admin/workspaces?sort=size')).status).toBe(400);
    expect((await admin('GET', '/admin/workspaces?include=everything')).status).toBe(400);

    const shown = await admin('GET', `/admin/workspaces/${first}?include=organization.owners`);
    expect(shown.body.data).toMatchObject({
      id: first,
      type: 'workspaces',
      attributes: { name: 'admin-alpha', locked: false, 'vcs-repo': null },
    });
    expect(shown.body.data.relationships.organization.data).toEqual({ id: ORG, type: 'organizations' });
    expect(shown.body.included.map((item: Item) => item.type).sort()).toEqual(['organizations', 'users']);
    expect((await admin('GET', '/admin/workspaces/non-existent-ws')).status).toBe(404);
    expect((await admin('DELETE', '/admin/workspaces/non-existent-ws')).status).toBe(404);
    expect((await admin('DELETE', `/admin/workspaces/${second}`)).status).toBe(204);
    expect((await admin('GET', `/admin/workspaces/${second}`)).status).toBe(404);
    expect((await admin('GET', `/workspaces/${second}`)).status).toBe(404);
  });

  it('suspends, unsuspends, grants and revokes administrator rights, filters and deletes users', async () => {
    const found = await admin('GET', '/admin/users?q=wsread&include=organizations');
    expect(found.body.meta.pagination['total-count']).toBe(1);
    const user = found.body.data[0] as Item;
    expect(user.attributes).toMatchObject({ username: 'wsread', 'is-suspended': false, 'is-admin': false });
    expect((user.relationships?.organizations?.data as { id: string }[]).map((organization) => organization.id)).toEqual([ORG]);
    expect(found.body.included.map((item: Item) => item.id)).toEqual([ORG]);
    const token = tokenOf('wsread');
    expect((await platform(world.server, 'GET', '/account/details', { token })).status).toBe(200);

    const suspended = await admin('POST', `/admin/users/${user.id}/actions/suspend`);
    expect(suspended.status).toBe(200);
    expect(suspended.body.data.attributes['is-suspended']).toBe(true);
    // A suspended user's tokens stop working.
    expect((await platform(world.server, 'GET', '/account/details', { token })).status).toBe(401);
    const listed = await admin('GET', '/admin/users?filter[suspended]=true');
    expect(listed.body.data.map((item: Item) => item.attributes.username)).toEqual(['wsread']);
    expect((await admin('GET', '/admin/users?filter[suspended]=maybe')).status).toBe(400);
    const unsuspended = await admin('POST', `/admin/users/${user.id}/actions/unsuspend`);
    expect(unsuspended.body.data.attributes['is-suspended']).toBe(false);
    expect((await platform(world.server, 'GET', '/account/details', { token })).status).toBe(200);

    expect((await platform(world.server, 'GET', '/admin/organizations', { token })).status).toBe(404);
    const granted = await admin('POST', `/admin/users/${user.id}/actions/grant_admin`);
    expect(granted.body.data.attributes['is-admin']).toBe(true);
    expect((await platform(world.server, 'GET', '/admin/organizations', { token })).status).toBe(200);
    const admins = await admin('GET', '/admin/users?filter[admin]=true');
    expect(admins.body.data.map((item: Item) => item.attributes.username)).toContain('wsread');
    const revoked = await admin('POST', `/admin/users/${user.id}/actions/revoke_admin`);
    expect(revoked.body.data.attributes['is-admin']).toBe(false);
    expect((await platform(world.server, 'GET', '/admin/organizations', { token })).status).toBe(404);
    expect((await admin('POST', `/admin/users/${user.id}/actions/disable_two_factor`)).status).toBe(200);

    expect((await admin('POST', '/admin/users/user-missing/actions/suspend')).status).toBe(404);
    expect((await admin('DELETE', '/admin/users/non-existing-user-id')).status).toBe(404);
    expect((await admin('DELETE', `/admin/users/${user.id}`)).status).toBe(204);
    expect((await admin('GET', '/admin/users?q=wsread')).body.meta.pagination['total-count']).toBe(0);
    expect((await platform(world.server, 'GET', '/account/details', { token })).status).toBe(401);
  });
});

describe('self-hosted administration on the hosted edition', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld({ UNDERSTUDY_EDITION: 'hosted' });
  });
  afterAll(() => world.close());

  it('is absent: a 404 even for a site administrator', async () => {
    for (const [method, path] of [
      ['GET', '/admin/organizations'],
      ['GET', `/admin/organizations/${ORG}`],
      ['DELETE', `/admin/organizations/${ORG}`],
      ['GET', '/admin/workspaces'],
      ['POST', '/admin/users/user-x/actions/suspend'],
      ['DELETE', '/admin/users/user-x'],
    ] as const) {
      expect((await platform(world.server, method, path)).status).toBe(404);
    }
    expect((await platform(world.server, 'GET', `/organizations/${ORG}`)).status).toBe(200);
  });
});
