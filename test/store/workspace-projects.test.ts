import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { control, platform, startServer, type TestServer } from '../helpers/app.js';
import { defaultWorkspaceRow } from '../../src/platform/workspaces/defaults.js';
import { openStore } from '../../src/store/store.js';
import { workspaces } from '../../src/store/tables.js';

type Placed = { name: string; project: string | null; duration: string | null };

describe('bulk workspaces take the create defaults', () => {
  let server: TestServer;
  let defaultProject: string;

  beforeAll(async () => {
    server = await startServer();
    const made = await platform(server, 'POST', '/organizations', {
      body: { data: { type: 'organizations', attributes: { name: 'bulkorg', email: 'bulk@example.test' } } },
    });
    expect(made.status).toBe(201);
    defaultProject = made.body.data.relationships['default-project'].data.id;
    // The default project passes its inactivity duration on to workspaces created in it.
    const patched = await platform(server, 'PATCH', `/projects/${defaultProject}`, {
      body: { data: { type: 'projects', attributes: { 'auto-destroy-activity-duration': '14d' } } },
    });
    expect(patched.status).toBe(200);
  });
  afterAll(() => server.close());

  it('stores the default project and its duration on every row, as the API create does', async () => {
    const bulk = await control(server, 'POST', '/organizations/bulkorg/workspaces/bulk', { count: 3, prefix: 'bulk' });
    expect(bulk.status).toBe(201);
    const created = await platform(server, 'POST', '/organizations/bulkorg/workspaces', {
      body: { data: { type: 'workspaces', attributes: { name: 'made' } } },
    });
    expect(created.status).toBe(201);

    // The rows themselves, not a rendering that might patch a missing value on the way out.
    const rows = server.app.runtime.store.sqlite
      .prepare(
        'SELECT name, project_id AS project, auto_destroy_activity_duration AS duration FROM workspaces w ' +
          "WHERE organization_id = (SELECT id FROM organizations WHERE name = 'bulkorg') ORDER BY name",
      )
      .all() as Placed[];
    expect(rows).toEqual(['bulk-1', 'bulk-2', 'bulk-3', 'made'].map((name) => ({ name, project: defaultProject, duration: '14d' })));

    const shown = await platform(server, 'GET', '/organizations/bulkorg/workspaces/bulk-2');
    expect(shown.body.data.relationships.project.data).toEqual({ id: defaultProject, type: 'projects' });
    expect(shown.body.data.attributes['auto-destroy-activity-duration']).toBe('14d');
    // The project's workspace count and the project filter see them, with no special case for the default project.
    const listed = await platform(server, 'GET', `/organizations/bulkorg/workspaces?filter[project][id]=${defaultProject}`);
    expect(listed.body.data.map((item: { attributes: { name: string } }) => item.attributes.name).sort()).toEqual([
      'bulk-1',
      'bulk-2',
      'bulk-3',
      'made',
    ]);
    const project = await platform(server, 'GET', `/projects/${defaultProject}`);
    expect(project.body.data.attributes['workspace-count']).toBe(4);
  });
});

describe('store upgrade 5', () => {
  it('puts workspaces stored without a project into their default project, creating one where missing', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'understudy-store-')), 'old.sqlite');
    const first = openStore(file);
    const { sqlite } = first;
    sqlite.exec(`
      INSERT INTO organizations (id, name, email, created_at, updated_at) VALUES ('org-kept', 'kept', 'a@b.c', 1, 1);
      INSERT INTO organizations (id, name, email, created_at, updated_at) VALUES ('org-bare', 'bare', 'a@b.c', 2, 2);
      INSERT INTO projects (id, organization_id, name, is_default, created_at, updated_at)
        VALUES ('prj-kept', 'org-kept', 'Default Project', 1, 1, 1), ('prj-other', 'org-kept', 'Other', 0, 1, 1);
    `);
    const insert = (id: string, organizationId: string, projectId: string | null) =>
      first.db
        .insert(workspaces)
        .values({ ...defaultWorkspaceRow(first.db, organizationId, id, new Date(1), 'hosted'), id, projectId })
        .run();
    insert('ws-a', 'org-kept', null);
    insert('ws-b', 'org-kept', 'prj-other');
    insert('ws-c', 'org-bare', null);
    // As a store written before the upgrade left it.
    expect(sqlite.pragma('user_version', { simple: true })).toBe(5);
    sqlite.pragma('user_version = 4');
    first.close();

    const store = openStore(file);
    try {
      expect(store.sqlite.prepare('SELECT id, project_id AS project FROM workspaces ORDER BY id').all()).toEqual([
        { id: 'ws-a', project: 'prj-kept' },
        { id: 'ws-b', project: 'prj-other' },
        { id: 'ws-c', project: 'prj-bare' },
      ]);
      expect(store.sqlite.prepare("SELECT name, is_default AS isDefault FROM projects WHERE id = 'prj-bare'").get()).toEqual({
        name: 'Default Project',
        isDefault: 1,
      });
      expect(store.sqlite.pragma('user_version', { simple: true })).toBe(5);
    } finally {
      store.close();
    }
  });
});
