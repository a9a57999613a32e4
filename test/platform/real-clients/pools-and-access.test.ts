import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform } from '../../helpers/app.js';
import { ORG, OTHER_ORG, startWorld, type World } from '../workspaces/world.js';

/** Defects the platform's Go client found: agent-pool workspaces and custom team access. */
describe('agent pools and their workspaces', () => {
  let world: World;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    world = await startWorld();
    for (const [org, name] of [
      [ORG, 'alpha'],
      [ORG, 'beta'],
      [OTHER_ORG, 'foreign'],
    ] as const) {
      const created = await platform(world.server, 'POST', `/organizations/${org}/workspaces`, {
        body: { data: { type: 'workspaces', attributes: { name } } },
      });
      ids[name] = created.body.data.id;
    }
  });
  afterAll(() => world.close());
  const refs = (...names: string[]) => ({ data: names.map((name) => ({ type: 'workspaces', id: ids[name] })) });
  const allowed = (body: { data: { relationships: Record<string, { data: { id: string }[] }> } }) =>
    body.data.relationships['allowed-workspaces']?.data.map((ref) => ref.id);

  it('creates a pool with allowed workspaces, and a PATCH carrying only that relationship replaces them', async () => {
    const created = await platform(world.server, 'POST', `/organizations/${ORG}/agent-pools`, {
      body: {
        data: {
          type: 'agent-pools',
          attributes: { name: 'scoped', 'organization-scoped': false },
          relationships: { 'allowed-workspaces': refs('alpha') },
        },
      },
    });
    expect(created.status).toBe(201);
    expect(allowed(created.body)).toEqual([ids.alpha]);
    const id = created.body.data.id as string;

    const patched = await platform(world.server, 'PATCH', `/agent-pools/${id}`, {
      body: { data: { type: 'agent-pools', relationships: { 'allowed-workspaces': refs('alpha', 'beta') } } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data.attributes).toMatchObject({ name: 'scoped', 'organization-scoped': false });
    expect(allowed(patched.body)).toEqual([ids.alpha, ids.beta]);
    expect(allowed((await platform(world.server, 'GET', `/agent-pools/${id}`)).body)).toEqual([ids.alpha, ids.beta]);

    const cleared = await platform(world.server, 'PATCH', `/agent-pools/${id}`, {
      body: { data: { type: 'agent-pools', relationships: { 'allowed-workspaces': { data: [] } } } },
    });
    expect(allowed(cleared.body)).toEqual([]);
  });

  it('keeps excluded workspaces apart from allowed ones', async () => {
    const created = await platform(world.server, 'POST', `/organizations/${ORG}/agent-pools`, {
      body: { data: { type: 'agent-pools', attributes: { name: 'excluding' }, relationships: { 'excluded-workspaces': refs('beta') } } },
    });
    expect(created.body.data.relationships['excluded-workspaces'].data).toEqual([{ id: ids.beta, type: 'workspaces' }]);
    expect(allowed(created.body)).toEqual([]);
    const patched = await platform(world.server, 'PATCH', `/agent-pools/${created.body.data.id}`, {
      body: { data: { type: 'agent-pools', relationships: { 'allowed-workspaces': refs('alpha') } } },
    });
    expect(allowed(patched.body)).toEqual([ids.alpha]);
    expect(patched.body.data.relationships['excluded-workspaces'].data).toEqual([{ id: ids.beta, type: 'workspaces' }]);
  });

  it('refuses a workspace of another organization and changes nothing', async () => {
    const created = await platform(world.server, 'POST', `/organizations/${ORG}/agent-pools`, {
      body: { data: { type: 'agent-pools', attributes: { name: 'guarded' }, relationships: { 'allowed-workspaces': refs('beta') } } },
    });
    const id = created.body.data.id as string;
    const refused = await platform(world.server, 'PATCH', `/agent-pools/${id}`, {
      body: {
        data: { type: 'agent-pools', attributes: { name: 'renamed' }, relationships: { 'allowed-workspaces': refs('alpha', 'foreign') } },
      },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0].source.pointer).toBe('/data/relationships/allowed-workspaces/data/1/id');
    const shown = await platform(world.server, 'GET', `/agent-pools/${id}`);
    expect(shown.body.data.attributes.name).toBe('guarded');
    expect(allowed(shown.body)).toEqual([ids.beta]);
    const createRefused = await platform(world.server, 'POST', `/organizations/${ORG}/agent-pools`, {
      body: { data: { type: 'agent-pools', attributes: { name: 'never' }, relationships: { 'allowed-workspaces': refs('foreign') } } },
    });
    expect(createRefused.status).toBe(422);
    const names = (await platform(world.server, 'GET', `/organizations/${ORG}/agent-pools?page[size]=100`)).body.data.map(
      (pool: { attributes: { name: string } }) => pool.attributes.name,
    );
    expect(names).not.toContain('never');
  });

  it('filters the list to the pools a workspace may use: organization-scoped ones and those that name it', async () => {
    const pool = await platform(world.server, 'POST', `/organizations/${ORG}/agent-pools`, {
      body: {
        data: {
          type: 'agent-pools',
          attributes: { name: 'filtered', 'organization-scoped': false },
          relationships: { 'allowed-workspaces': refs('alpha') },
        },
      },
    });
    expect(pool.status).toBe(201);
    for (const [name, scoped] of [
      ['unrelated', false],
      ['everyone', true],
    ] as const) {
      await platform(world.server, 'POST', `/organizations/${ORG}/agent-pools`, {
        body: { data: { type: 'agent-pools', attributes: { name, 'organization-scoped': scoped } } },
      });
    }
    await platform(world.server, 'POST', `/organizations/${ORG}/agent-pools`, {
      body: { data: { type: 'agent-pools', attributes: { name: 'not-alpha' }, relationships: { 'excluded-workspaces': refs('alpha') } } },
    });
    const listed = await platform(
      world.server,
      'GET',
      `/organizations/${ORG}/agent-pools?filter%5Ballowed_workspaces%5D%5Bname%5D=alpha&page[size]=100`,
    );
    const names = listed.body.data.map((entry: { attributes: { name: string } }) => entry.attributes.name);
    expect(names).toContain('filtered');
    expect(names).toContain('everyone');
    expect(names).not.toContain('unrelated');
    expect(names).not.toContain('not-alpha');
    expect(listed.body.meta.pagination['total-count']).toBe(names.length);
    const none = await platform(world.server, 'GET', `/organizations/${ORG}/agent-pools?filter[allowed_workspaces][name]=nowhere`);
    expect(none.body.data).toEqual([]);
  });
});

describe('custom team access', () => {
  let world: World;
  let workspaceId: string;
  beforeAll(async () => {
    world = await startWorld();
    const created = await platform(world.server, 'POST', `/organizations/${ORG}/workspaces`, {
      body: { data: { type: 'workspaces', attributes: { name: 'custom-ws' } } },
    });
    workspaceId = created.body.data.id;
  });
  afterAll(() => world.close());

  const grant = (team: string, attributes: Record<string, unknown>) =>
    platform(world.server, 'POST', '/team-workspaces', {
      body: {
        data: {
          type: 'team-workspaces',
          attributes,
          relationships: {
            team: { data: { type: 'teams', id: world.teams[team] } },
            workspace: { data: { type: 'workspaces', id: workspaceId } },
          },
        },
      },
    });

  it('adds custom access with its permissions, updates them, and the team member gets what they grant', async () => {
    const added = await grant('level-plan', {
      access: 'custom',
      runs: 'apply',
      variables: 'write',
      'state-versions': 'write',
      'sentinel-mocks': 'read',
      'workspace-locking': true,
    });
    expect(added.status).toBe(201);
    expect(added.body.data.attributes).toEqual({
      access: 'custom',
      runs: 'apply',
      variables: 'write',
      'state-versions': 'write',
      'sentinel-mocks': 'read',
      'workspace-locking': true,
      'run-tasks': false,
    });
    const asMember = await platform(world.server, 'GET', `/workspaces/${workspaceId}`, { token: world.principals.wsplan });
    expect(asMember.body.data.attributes.permissions).toMatchObject({ 'can-queue-apply': true, 'can-lock': true, 'can-update': false });

    const updated = await platform(world.server, 'PATCH', `/team-workspaces/${added.body.data.id}`, {
      body: {
        data: { type: 'team-workspaces', attributes: { runs: 'read', 'state-versions': 'read-outputs', 'workspace-locking': false } },
      },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data.attributes).toMatchObject({
      access: 'custom',
      runs: 'read',
      variables: 'write',
      'state-versions': 'read-outputs',
      'workspace-locking': false,
    });
    const after = await platform(world.server, 'GET', `/workspaces/${workspaceId}`, { token: world.principals.wsplan });
    expect(after.body.data.attributes.permissions).toMatchObject({
      'can-queue-apply': false,
      'can-queue-run': false,
      'can-read-settings': true,
    });

    const fixed = await platform(world.server, 'PATCH', `/team-workspaces/${added.body.data.id}`, {
      body: { data: { type: 'team-workspaces', attributes: { access: 'write' } } },
    });
    expect(fixed.body.data.attributes).toMatchObject({ access: 'write', runs: 'apply', 'workspace-locking': true });
  });

  it('gives a custom grant without details read-only runs, and refuses unknown permission values', async () => {
    const bare = await grant('level-read', { access: 'custom' });
    expect(bare.body.data.attributes).toMatchObject({ access: 'custom', runs: 'read', variables: 'none', 'state-versions': 'none' });
    const refused = await grant('level-write', { access: 'custom', runs: 'everything' });
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0].source.pointer).toBe('/data/attributes/runs');
    const listed = await platform(world.server, 'GET', `/team-workspaces?filter[workspace][id]=${workspaceId}`);
    expect(
      listed.body.data.map((entry: { relationships: { team: { data: { id: string } } } }) => entry.relationships.team.data.id),
    ).not.toContain(world.teams['level-write']);
  });

  it('refuses a custom permission next to a fixed level, with the text the client asserts, and grants nothing', async () => {
    for (const [access, attributes, label] of [
      ['read', { runs: 'apply' }, 'Runs'],
      ['plan', { variables: 'write' }, 'Variables'],
      ['write', { 'state-versions': 'read' }, 'State versions'],
      ['admin', { 'workspace-locking': true }, 'Workspace locking'],
    ] as const) {
      const refused = await grant('level-admin', { access, ...attributes });
      expect(refused.status).toBe(422);
      expect(refused.body.errors[0]).toMatchObject({
        title: 'invalid attribute',
        detail: `${label} is read-only when access level is '${access}'; use the 'custom' access level to set this attribute.`,
      });
    }
    const listed = await platform(world.server, 'GET', `/team-workspaces?filter[workspace][id]=${workspaceId}`);
    expect(
      listed.body.data.map((entry: { relationships: { team: { data: { id: string } } } }) => entry.relationships.team.data.id),
    ).not.toContain(world.teams['level-admin']);
  });
});
