import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform } from '../../helpers/app.js';
import { ORG, startWorld, type World } from '../workspaces/world.js';

const grant = (team: string, project: string, attributes: Record<string, unknown>) => ({
  data: {
    type: 'team-projects',
    attributes,
    relationships: { team: { data: { type: 'teams', id: team } }, project: { data: { type: 'projects', id: project } } },
  },
});

describe('custom team project access', () => {
  let world: World;
  const as = (role: string, method: string, path: string, body?: unknown) =>
    platform(world.server, method, path, { token: world.principals[role], ...(body ? { body } : {}) });
  const admin = (method: string, path: string, body?: unknown) => platform(world.server, method, path, body ? { body } : {});

  async function newProject(name: string): Promise<string> {
    const created = await admin('POST', `/organizations/${ORG}/projects`, { data: { type: 'projects', attributes: { name } } });
    expect(created.status).toBe(201);
    return created.body.data.id as string;
  }
  async function newWorkspace(name: string, project: string): Promise<string> {
    const relationships = { project: { data: { type: 'projects', id: project } } };
    const created = await admin('POST', `/organizations/${ORG}/workspaces`, {
      data: { type: 'workspaces', attributes: { name }, relationships },
    });
    expect(created.status).toBe(201);
    return created.body.data.id as string;
  }

  beforeAll(async () => {
    world = await startWorld();
  });
  afterAll(() => world.close());

  it('stores the permissions the client sends and reports a fixed level in the same two documents', async () => {
    const project = await newProject('custom-shapes');
    const team = world.teams['level-read'] as string;
    const created = await admin(
      'POST',
      '/team-projects',
      grant(team, project, {
        access: 'custom',
        'project-access': {},
        'workspace-access': {
          runs: 'apply',
          'sentinel-mocks': 'read',
          'state-versions': 'write',
          variables: 'write',
          create: true,
          locking: true,
          move: true,
          delete: false,
          'run-tasks': false,
        },
      }),
    );
    expect(created.status).toBe(201);
    const expected = {
      access: 'custom',
      'project-access': { settings: 'read', teams: 'none', 'variable-sets': 'none' },
      'workspace-access': {
        runs: 'apply',
        'sentinel-mocks': 'read',
        'state-versions': 'write',
        variables: 'write',
        create: true,
        locking: true,
        move: true,
        delete: false,
        'run-tasks': false,
      },
    };
    expect(created.body.data.attributes).toMatchObject(expected);
    const id = created.body.data.id as string;
    expect((await admin('GET', `/team-projects/${id}`)).body.data.attributes).toMatchObject(expected);

    // Only what the body names changes; the rest stays as it was.
    const updated = await admin('PATCH', `/team-projects/${id}`, {
      data: {
        type: 'team-projects',
        attributes: { access: 'custom', 'project-access': { teams: 'manage' }, 'workspace-access': { create: false } },
      },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data.attributes['project-access']).toEqual({ settings: 'read', teams: 'manage', 'variable-sets': 'none' });
    expect(updated.body.data.attributes['workspace-access']).toMatchObject({ runs: 'apply', create: false, move: true, locking: true });

    // Back to a fixed level: the documents describe the level, and custom values cannot ride along.
    const fixed = await admin('PATCH', `/team-projects/${id}`, { data: { type: 'team-projects', attributes: { access: 'admin' } } });
    expect(fixed.body.data.attributes).toMatchObject({
      access: 'admin',
      'project-access': { settings: 'delete', teams: 'manage' },
      'workspace-access': { runs: 'apply', create: true, delete: true, move: true },
    });
    const mixed = await admin('PATCH', `/team-projects/${id}`, {
      data: { type: 'team-projects', attributes: { access: 'read', 'workspace-access': { runs: 'apply' } } },
    });
    expect(mixed.status).toBe(422);
    expect(mixed.body.errors[0].source.pointer).toBe('/data/attributes/workspace-access');
    expect((await admin('GET', `/team-projects/${id}`)).body.data.attributes.access).toBe('admin');

    // From admin to custom: the admin level's permissions are the starting point.
    const fromAdmin = await admin('PATCH', `/team-projects/${id}`, {
      data: { type: 'team-projects', attributes: { access: 'custom', 'workspace-access': { delete: false } } },
    });
    expect(fromAdmin.body.data.attributes['project-access']).toMatchObject({ settings: 'delete', teams: 'manage' });
    expect(fromAdmin.body.data.attributes['workspace-access']).toMatchObject({ delete: false, create: true });
  });

  it('refuses unknown values and custom permissions with a fixed level on create', async () => {
    const project = await newProject('custom-refusals');
    const team = world.teams['level-plan'] as string;
    const bad = await admin(
      'POST',
      '/team-projects',
      grant(team, project, { access: 'custom', 'project-access': { teams: 'everything' } }),
    );
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].source.pointer).toBe('/data/attributes/project-access/teams');
    const badRuns = await admin(
      'POST',
      '/team-projects',
      grant(team, project, { access: 'custom', 'workspace-access': { runs: 'destroy' } }),
    );
    expect(badRuns.status).toBe(422);
    const badFlag = await admin(
      'POST',
      '/team-projects',
      grant(team, project, { access: 'custom', 'workspace-access': { create: 'yes' } }),
    );
    expect(badFlag.status).toBe(422);
    const fixed = await admin(
      'POST',
      '/team-projects',
      grant(team, project, { access: 'write', 'project-access': { settings: 'update' } }),
    );
    expect(fixed.status).toBe(422);
    expect(fixed.body.errors[0].detail).toContain("read-only when access level is 'write'");
    // None of the refusals left a grant behind.
    expect((await admin('GET', `/team-projects?filter[project][id]=${project}`)).body.data).toEqual([]);
  });

  it('enforces the custom permissions on the project and its workspaces for a team member', async () => {
    const project = await newProject('custom-enforced');
    const other = await newProject('custom-elsewhere');
    const workspace = await newWorkspace('custom-ws', project);
    const team = world.teams['plain'] as string;
    const created = await admin(
      'POST',
      '/team-projects',
      grant(team, project, { access: 'custom', 'workspace-access': { runs: 'read', variables: 'read', 'state-versions': 'read' } }),
    );
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const set = (attributes: Record<string, unknown>) =>
      admin('PATCH', `/team-projects/${id}`, { data: { type: 'team-projects', attributes: { access: 'custom', ...attributes } } });

    // Read-only: the workspace is visible, nothing else is allowed.
    expect((await as('member', 'GET', `/workspaces/${workspace}`)).status).toBe(200);
    expect((await as('member', 'POST', `/workspaces/${workspace}/actions/lock`)).status).toBe(404);
    const rename = { data: { type: 'projects', attributes: { description: 'by member' } } };
    expect((await as('member', 'PATCH', `/projects/${project}`, rename)).status).toBe(404);
    const shown = await as('member', 'GET', `/projects/${project}`);
    expect(shown.body.data.attributes.permissions).toMatchObject({
      'can-update': false,
      'can-destroy': false,
      'can-create-workspace': false,
    });
    const wsBody = (name: string, target: string) => ({
      data: { type: 'workspaces', attributes: { name }, relationships: { project: { data: { type: 'projects', id: target } } } },
    });
    expect((await as('member', 'POST', `/organizations/${ORG}/workspaces`, wsBody('by-member', project))).status).toBe(404);

    // Runs, variables, state and locking at their highest: the member locks and unlocks.
    await set({ 'workspace-access': { runs: 'apply', variables: 'write', 'state-versions': 'write', locking: true } });
    expect((await as('member', 'POST', `/workspaces/${workspace}/actions/lock`)).status).toBe(200);
    expect((await as('member', 'POST', `/workspaces/${workspace}/actions/unlock`)).status).toBe(200);
    expect(
      (await as('member', 'PATCH', `/workspaces/${workspace}`, { data: { type: 'workspaces', attributes: { description: 'x' } } })).status,
    ).toBe(404);

    // Settings: update lets the member change the project, not delete it.
    await set({ 'project-access': { settings: 'update' } });
    expect((await as('member', 'PATCH', `/projects/${project}`, rename)).status).toBe(200);
    expect((await as('member', 'GET', `/projects/${project}`)).body.data.attributes.permissions['can-update']).toBe(true);
    expect((await as('member', 'PATCH', `/projects/${other}`, rename)).status).toBe(404);

    // Teams: manage lets the member grant another team access to this project only.
    const readers = world.teams['readers'] as string;
    expect((await as('member', 'POST', '/team-projects', grant(readers, project, { access: 'read' }))).status).toBe(404);
    await set({ 'project-access': { teams: 'manage' } });
    const granted = await as('member', 'POST', '/team-projects', grant(readers, project, { access: 'read' }));
    expect(granted.status).toBe(201);
    expect((await as('member', 'POST', '/team-projects', grant(readers, other, { access: 'read' }))).status).toBe(404);

    // Create and delete workspaces: in this project only.
    await set({ 'workspace-access': { create: true, delete: true } });
    const made = await as('member', 'POST', `/organizations/${ORG}/workspaces`, wsBody('by-member', project));
    expect(made.status).toBe(201);
    expect((await as('member', 'POST', `/organizations/${ORG}/workspaces`, wsBody('by-member-2', other))).status).toBe(404);
    expect(
      (await as('member', 'POST', `/organizations/${ORG}/workspaces`, { data: { type: 'workspaces', attributes: { name: 'nowhere' } } }))
        .status,
    ).toBe(404);
    expect((await as('member', 'DELETE', `/workspaces/${made.body.data.id}`)).status).toBe(204);

    // Settings delete: the member deletes the (now empty) project; then the grant is gone too.
    expect((await as('member', 'DELETE', `/workspaces/${workspace}`)).status).toBe(204);
    await set({ 'project-access': { settings: 'delete' } });
    expect((await as('member', 'GET', `/projects/${project}`)).body.data.attributes.permissions['can-destroy']).toBe(true);
    expect((await as('member', 'DELETE', `/projects/${project}`)).status).toBe(204);
    expect((await admin('GET', `/team-projects/${id}`)).status).toBe(404);
  });
});
