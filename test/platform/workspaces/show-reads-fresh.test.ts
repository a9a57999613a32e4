import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, platform } from '../../helpers/app.js';
import { ORG, startWorld, tokenOf, type World } from './world.js';

/**
 * A user's workspace show (by id, and by organization and name) reads the workspace, its
 * organization and the caller's membership and teams in one joined statement, and a page builds
 * one permissions object per access level. Each piece of state that read joins must show in the
 * very next read after a write: the workspace, the organization's settings, the caller's team
 * access (on the workspace, on its project, and the team membership itself), and the project the
 * workspace sits in.
 */
describe('the workspace show sees every write at once', () => {
  let world: World;
  const relationship = (type: string, id: string) => ({ data: { type, id } });
  const members = (...ids: string[]) => ({ data: ids.map((id) => ({ type: 'users', id })) });

  beforeAll(async () => {
    world = await startWorld();
  });
  afterAll(async () => world.close());

  const create = async (path: string, body: unknown): Promise<string> => {
    const created = await platform(world.server, 'POST', path, { body });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.data.id as string;
  };
  const workspace = async (name: string) => {
    const id = await create(`/organizations/${ORG}/workspaces`, {
      data: { type: 'workspaces', attributes: { name } },
    });
    names.set(id, name);
    return id;
  };
  const names = new Map<string, string>();
  /** The show by id, after checking that the show by organization and name answers the same. */
  const showAs = async (token: string, id: string) => {
    const byId = await platform(world.server, 'GET', `/workspaces/${id}`, { token });
    const byName = await platform(world.server, 'GET', `/organizations/${ORG}/workspaces/${names.get(id)}`, { token });
    expect(byName.status).toBe(byId.status);
    expect(byName.body).toEqual(byId.body);
    return byId;
  };
  const member = tokenOf('member');
  const plain = () => world.teams['plain'] as string;
  const grant = (id: string, access: string) =>
    create('/team-workspaces', {
      data: {
        type: 'team-workspaces',
        attributes: { access },
        relationships: { team: relationship('teams', plain()), workspace: relationship('workspaces', id) },
      },
    });

  it('shows a change to the team access, and to the team membership, in the next read', async () => {
    const id = await workspace('fresh-access');
    expect((await showAs(member, id)).status).toBe(404);

    const access = await grant(id, 'read');
    const read = await showAs(member, id);
    expect(read.status).toBe(200);
    expect(read.body.data.attributes.permissions['can-read-settings']).toBe(true);
    expect(read.body.data.attributes.permissions['can-update']).toBe(false);

    const raised = await platform(world.server, 'PATCH', `/team-workspaces/${access}`, {
      body: { data: { type: 'team-workspaces', attributes: { access: 'admin' } } },
    });
    expect(raised.status).toBe(200);
    expect((await showAs(member, id)).body.data.attributes.permissions['can-update']).toBe(true);

    expect((await platform(world.server, 'DELETE', `/teams/${plain()}/relationships/users`, { body: members('member') })).status).toBe(204);
    expect((await showAs(member, id)).status).toBe(404);
    expect((await platform(world.server, 'POST', `/teams/${plain()}/relationships/users`, { body: members('member') })).status).toBe(204);
    expect((await showAs(member, id)).body.data.attributes.permissions['can-update']).toBe(true);

    expect((await platform(world.server, 'DELETE', `/team-workspaces/${access}`)).status).toBe(204);
    expect((await showAs(member, id)).status).toBe(404);
  });

  it('shows a change to the workspace and to the organization settings in the next read', async () => {
    const id = await workspace('fresh-settings');
    await grant(id, 'read');
    const before = await showAs(member, id);
    expect(before.body.data.attributes.description).toBeNull();
    expect(before.body.data.attributes['execution-mode']).toBe('remote');

    const patched = await platform(world.server, 'PATCH', `/workspaces/${id}`, {
      body: { data: { type: 'workspaces', attributes: { description: 'now described' } } },
    });
    expect(patched.status).toBe(200);
    expect((await showAs(member, id)).body.data.attributes.description).toBe('now described');

    const organization = await platform(world.server, 'PATCH', `/organizations/${ORG}`, {
      body: { data: { type: 'organizations', attributes: { 'default-execution-mode': 'local' } } },
    });
    expect(organization.status).toBe(200);
    try {
      const after = await showAs(member, id);
      expect(after.body.data.attributes['execution-mode']).toBe('local');
      expect(after.body.data.attributes.operations).toBe(false);
    } finally {
      await platform(world.server, 'PATCH', `/organizations/${ORG}`, {
        body: { data: { type: 'organizations', attributes: { 'default-execution-mode': 'remote' } } },
      });
    }
  });

  it('shows a move to another project, and the access a project grants, in the next read', async () => {
    const project = await create(`/organizations/${ORG}/projects`, { data: { type: 'projects', attributes: { name: 'fresh-project' } } });
    const id = await workspace('fresh-moved');
    expect((await showAs(member, id)).status).toBe(404);

    await create('/team-projects', {
      data: {
        type: 'team-projects',
        attributes: { access: 'write' },
        relationships: { team: relationship('teams', plain()), project: relationship('projects', project) },
      },
    });
    expect((await showAs(member, id)).status).toBe(404);

    const moved = await platform(world.server, 'PATCH', `/workspaces/${id}`, {
      body: { data: { type: 'workspaces', relationships: { project: relationship('projects', project) } } },
    });
    expect(moved.status).toBe(200);
    const shown = await showAs(member, id);
    expect(shown.status).toBe(200);
    expect(shown.body.data.relationships.project.data.id).toBe(project);
    expect(shown.body.data.attributes.permissions['can-queue-apply']).toBe(true);
    expect(shown.body.data.attributes.permissions['can-update']).toBe(false);
  });

  it('shows a write made straight to the store, on no repository path, in the next read', async () => {
    const id = await workspace('fresh-raw');
    await grant(id, 'read');
    for (const token of [member, undefined]) {
      expect((await showAs(token ?? ADMIN_TOKEN, id)).body.data.attributes.description).toBeNull();
    }
    const { sqlite } = world.server.app.runtime.store;
    sqlite.prepare('UPDATE workspaces SET description = ? WHERE id = ?').run('written raw', id);
    expect((await showAs(member, id)).body.data.attributes.description).toBe('written raw');
    expect((await showAs(ADMIN_TOKEN, id)).body.data.attributes.description).toBe('written raw');

    sqlite.prepare('DELETE FROM team_members WHERE team_id = ?').run(plain());
    try {
      expect((await showAs(member, id)).status).toBe(404);
    } finally {
      expect((await platform(world.server, 'POST', `/teams/${plain()}/relationships/users`, { body: members('member') })).status).toBe(204);
    }
    expect((await showAs(member, id)).status).toBe(200);
  });

  it('shows every write in the next read of the same page', async () => {
    const pageOf = async (token: string, query = 'search[name]=fresh-list') => {
      const page = await platform(world.server, 'GET', `/organizations/${ORG}/workspaces?${query}`, { token });
      expect(page.status).toBe(200);
      return (page.body.data as { id: string; attributes: { name: string; description: string | null } }[]).map(
        ({ attributes }) => `${attributes.name}:${attributes.description ?? ''}`,
      );
    };
    expect(await pageOf(ADMIN_TOKEN)).toEqual([]);
    const first = await workspace('fresh-list-1');
    expect(await pageOf(ADMIN_TOKEN)).toEqual(['fresh-list-1:']);
    expect(await pageOf(member)).toEqual([]);
    await grant(first, 'read');
    expect(await pageOf(member)).toEqual(['fresh-list-1:']);

    const { sqlite } = world.server.app.runtime.store;
    sqlite.prepare('UPDATE workspaces SET description = ? WHERE id = ?').run('raw', first);
    expect(await pageOf(ADMIN_TOKEN)).toEqual(['fresh-list-1:raw']);

    const tagged = 'filter[tagged][0][key]=fresh&filter[tagged][0][value]=list';
    expect(await pageOf(ADMIN_TOKEN, tagged)).toEqual([]);
    const bound = await platform(world.server, 'PATCH', `/workspaces/${first}/tag-bindings`, {
      body: { data: [{ type: 'tag-bindings', attributes: { key: 'fresh', value: 'list' } }] },
    });
    expect(bound.status).toBe(200);
    expect(await pageOf(ADMIN_TOKEN, tagged)).toEqual(['fresh-list-1:raw']);

    expect((await platform(world.server, 'DELETE', `/workspaces/${first}`)).status).toBe(204);
    expect(await pageOf(ADMIN_TOKEN)).toEqual([]);
    expect(await pageOf(ADMIN_TOKEN, tagged)).toEqual([]);
  });

  it('gives each row of a page the permissions of its own level', async () => {
    const readable = await workspace('fresh-page-read');
    const administered = await workspace('fresh-page-admin');
    await grant(readable, 'read');
    await grant(administered, 'admin');
    const page = await platform(world.server, 'GET', `/organizations/${ORG}/workspaces?search[name]=fresh-page`, { token: member });
    expect(page.status).toBe(200);
    const byName = new Map(
      (page.body.data as { attributes: { name: string; permissions: Record<string, boolean> } }[]).map((row) => [
        row.attributes.name,
        row.attributes.permissions,
      ]),
    );
    expect(byName.get('fresh-page-read')?.['can-update']).toBe(false);
    expect(byName.get('fresh-page-admin')?.['can-update']).toBe(true);
    expect(byName.get('fresh-page-read')?.['can-read-settings']).toBe(true);
  });
});
