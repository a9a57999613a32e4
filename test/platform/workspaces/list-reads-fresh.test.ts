import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, platform } from '../../helpers/app.js';
import { control, ORG, startWorld, tokenOf, type World } from './world.js';

type Resource = { id: string; attributes: Record<string, unknown>; relationships: Record<string, unknown> };

/**
 * A workspace list without `include` is sent from kept text (list-text-cache.ts) until a write to
 * a table it is derived from. Each write below is made between two reads of the same page: the
 * second read must show it, and every row of the page must stay what the show of that workspace
 * (never kept) answers for the same caller.
 */
describe('a workspace page, kept between writes, shows each write in the next read', () => {
  let world: World;
  const member = tokenOf('member');
  const PAGE = `/organizations/${ORG}/workspaces?search[name]=kept-&page[size]=20`;
  const relationship = (type: string, id: string) => ({ data: { type, id } });

  beforeAll(async () => {
    world = await startWorld();
  });
  afterAll(async () => world.close());

  const create = async (path: string, body: unknown): Promise<string> => {
    const created = await platform(world.server, 'POST', path, { body });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.data.id as string;
  };
  const workspace = (name: string) => create(`/organizations/${ORG}/workspaces`, { data: { type: 'workspaces', attributes: { name } } });

  /** The page twice (the second read is served from the kept text), checked row by row against the shows. */
  const pageAs = async (token: string): Promise<Map<string, Resource>> => {
    const first = await platform(world.server, 'GET', PAGE, { token });
    const second = await platform(world.server, 'GET', PAGE, { token });
    expect(first.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('content-type')).toBe('application/vnd.api+json');
    const rows = second.body.data as Resource[];
    for (const row of rows) {
      const shown = await platform(world.server, 'GET', `/workspaces/${row.id}`, { token });
      expect(row).toEqual(shown.body.data);
    }
    return new Map(rows.map((row) => [row.id, row]));
  };

  it('shows tags, variables and tag bindings added to a row', async () => {
    const id = await workspace('kept-parts');
    const before = (await pageAs(ADMIN_TOKEN)).get(id);
    expect(before?.attributes['tag-names']).toEqual([]);

    const tagged = await platform(world.server, 'POST', `/workspaces/${id}/relationships/tags`, {
      body: { data: [{ type: 'tags', attributes: { name: 'kept-tag' } }] },
    });
    expect(tagged.status).toBe(204);
    expect((await pageAs(ADMIN_TOKEN)).get(id)?.attributes['tag-names']).toEqual(['kept-tag']);

    const variable = await create(`/workspaces/${id}/vars`, {
      data: { type: 'vars', attributes: { key: 'kept', value: 'v', category: 'terraform' } },
    });
    expect((await pageAs(ADMIN_TOKEN)).get(id)?.relationships['vars']).toMatchObject({ data: [{ id: variable, type: 'vars' }] });

    const bound = await platform(world.server, 'PATCH', `/workspaces/${id}/tag-bindings`, {
      body: { data: [{ type: 'tag-bindings', attributes: { key: 'kept', value: 'bound' } }] },
    });
    expect(bound.status).toBe(200);
    const bindings = (await pageAs(ADMIN_TOKEN)).get(id)?.relationships['tag-bindings'] as { data: unknown[] };
    expect(bindings.data).toHaveLength(1);
  });

  it('shows writes made straight to each table a row is rendered from, on no repository path', async () => {
    const id = await workspace('kept-raw');
    await platform(world.server, 'POST', `/workspaces/${id}/relationships/tags`, {
      body: { data: [{ type: 'tags', attributes: { name: 'kept-raw-tag' } }] },
    });
    await create(`/workspaces/${id}/vars`, { data: { type: 'vars', attributes: { key: 'raw', value: 'v', category: 'env' } } });
    await platform(world.server, 'PATCH', `/workspaces/${id}/tag-bindings`, {
      body: { data: [{ type: 'tag-bindings', attributes: { key: 'raw', value: 'bound' } }] },
    });
    const { sqlite } = world.server.app.runtime.store;
    const row = async () => (await pageAs(ADMIN_TOKEN)).get(id) as Resource;
    expect((await row()).attributes['tag-names']).toEqual(['kept-raw-tag']);

    sqlite.prepare("UPDATE tags SET name = 'kept-raw-renamed' WHERE name = 'kept-raw-tag'").run();
    expect((await row()).attributes['tag-names']).toEqual(['kept-raw-renamed']);
    sqlite.prepare('DELETE FROM workspace_tags WHERE workspace_id = ?').run(id);
    expect((await row()).attributes['tag-names']).toEqual([]);
    sqlite.prepare('DELETE FROM workspace_variables WHERE workspace_id = ?').run(id);
    expect((await row()).relationships['vars']).toMatchObject({ data: [] });
    sqlite.prepare('DELETE FROM tag_bindings WHERE workspace_id = ?').run(id);
    expect((await row()).relationships['tag-bindings']).toMatchObject({ data: [] });
  });

  it('shows a lock, an update, an organization default and a write made straight to the store', async () => {
    const id = await workspace('kept-settings');
    await pageAs(ADMIN_TOKEN);

    expect((await platform(world.server, 'POST', `/workspaces/${id}/actions/lock`, { body: {} })).status).toBe(200);
    expect((await pageAs(ADMIN_TOKEN)).get(id)?.attributes['locked']).toBe(true);

    const patched = await platform(world.server, 'PATCH', `/workspaces/${id}`, {
      body: { data: { type: 'workspaces', attributes: { description: 'kept no more' } } },
    });
    expect(patched.status).toBe(200);
    expect((await pageAs(ADMIN_TOKEN)).get(id)?.attributes['description']).toBe('kept no more');

    const organization = await platform(world.server, 'PATCH', `/organizations/${ORG}`, {
      body: { data: { type: 'organizations', attributes: { 'default-execution-mode': 'local' } } },
    });
    expect(organization.status).toBe(200);
    try {
      expect((await pageAs(ADMIN_TOKEN)).get(id)?.attributes['execution-mode']).toBe('local');
    } finally {
      await platform(world.server, 'PATCH', `/organizations/${ORG}`, {
        body: { data: { type: 'organizations', attributes: { 'default-execution-mode': 'remote' } } },
      });
    }

    world.server.app.runtime.store.sqlite.prepare('UPDATE workspaces SET description = ? WHERE id = ?').run('written raw', id);
    expect((await pageAs(ADMIN_TOKEN)).get(id)?.attributes['description']).toBe('written raw');
  });

  it("shows a change to a caller's access, by workspace, by project and by team membership", async () => {
    const plain = world.teams['plain'] as string;
    const id = await workspace('kept-access');
    expect((await pageAs(member)).has(id)).toBe(false);

    const access = await create('/team-workspaces', {
      data: {
        type: 'team-workspaces',
        attributes: { access: 'read' },
        relationships: { team: relationship('teams', plain), workspace: relationship('workspaces', id) },
      },
    });
    const read = (await pageAs(member)).get(id)?.attributes['permissions'] as Record<string, boolean>;
    expect(read['can-update']).toBe(false);

    const raised = await platform(world.server, 'PATCH', `/team-workspaces/${access}`, {
      body: { data: { type: 'team-workspaces', attributes: { access: 'admin' } } },
    });
    expect(raised.status).toBe(200);
    expect(((await pageAs(member)).get(id)?.attributes['permissions'] as Record<string, boolean>)['can-update']).toBe(true);

    expect((await platform(world.server, 'DELETE', `/team-workspaces/${access}`)).status).toBe(204);
    expect((await pageAs(member)).has(id)).toBe(false);

    const project = await create(`/organizations/${ORG}/projects`, { data: { type: 'projects', attributes: { name: 'kept-project' } } });
    await create('/team-projects', {
      data: {
        type: 'team-projects',
        attributes: { access: 'write' },
        relationships: { team: relationship('teams', plain), project: relationship('projects', project) },
      },
    });
    const moved = await platform(world.server, 'PATCH', `/workspaces/${id}`, {
      body: { data: { type: 'workspaces', relationships: { project: relationship('projects', project) } } },
    });
    expect(moved.status).toBe(200);
    expect(((await pageAs(member)).get(id)?.attributes['permissions'] as Record<string, boolean>)['can-queue-apply']).toBe(true);

    const members = { data: [{ type: 'users', id: 'member' }] };
    expect((await platform(world.server, 'DELETE', `/teams/${plain}/relationships/users`, { body: members })).status).toBe(204);
    try {
      expect((await pageAs(member)).has(id)).toBe(false);
    } finally {
      expect((await platform(world.server, 'POST', `/teams/${plain}/relationships/users`, { body: members })).status).toBe(204);
    }
    expect((await pageAs(member)).has(id)).toBe(true);
  });

  it('shows a snapshot restore in the next read', async () => {
    expect((await control(world.server, 'POST', '/snapshots', { name: 'kept-before', replace: true })).status).toBe(201);
    const id = await workspace('kept-restored-away');
    expect((await pageAs(ADMIN_TOKEN)).has(id)).toBe(true);
    expect((await control(world.server, 'POST', '/snapshots/kept-before/restore')).status).toBe(200);
    expect((await pageAs(ADMIN_TOKEN)).has(id)).toBe(false);
  });

  it('answers each caller, each page and each include with its own document', async () => {
    const id = await workspace('kept-callers');
    const admin = await pageAs(ADMIN_TOKEN);
    expect(admin.has(id)).toBe(true);
    expect((await pageAs(member)).has(id)).toBe(false);
    const included = await platform(world.server, 'GET', `${PAGE}&include=organization`);
    expect(included.body.included).toHaveLength(1);
    const again = await platform(world.server, 'GET', PAGE);
    expect(again.body.included).toBeUndefined();
    const second = await platform(world.server, 'GET', `/organizations/${ORG}/workspaces?search[name]=kept-&page[size]=1&page[number]=2`);
    expect(second.body.data).toHaveLength(1);
    expect(second.body.links.self).toContain('page%5Bnumber%5D=2');
  });
});
