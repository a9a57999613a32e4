import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform } from '../helpers/app.js';
import { control, ORG, startWorld, type World } from './workspaces/world.js';

/**
 * Team, membership and run-task lists answer their totals from `list_counts` (kept by triggers)
 * when unfiltered. After every kind of write, each total must equal a count over the table.
 */
describe('list totals kept by triggers', () => {
  let world: World;
  const sqlite = () => world.server.app.runtime.store.sqlite;
  const organizationId = () => sqlite().prepare('SELECT id FROM organizations WHERE name = ?').pluck().get(ORG) as string;
  const counted = (table: string, where = '') =>
    sqlite().prepare(`SELECT count(*) FROM ${table} WHERE organization_id = ? ${where}`).pluck().get(organizationId()) as number;
  const total = async (path: string) => {
    const response = await platform(world.server, 'GET', `${path}${path.includes('?') ? '&' : '?'}page[size]=5`);
    expect(response.status).toBe(200);
    return response.body;
  };
  const expectTotals = async () => {
    expect((await total(`/organizations/${ORG}/teams`)).meta.pagination['total-count']).toBe(counted('teams'));
    expect((await total(`/organizations/${ORG}/tasks`)).meta.pagination['total-count']).toBe(counted('run_tasks'));
    const memberships = await total(`/organizations/${ORG}/organization-memberships`);
    expect(memberships.meta.pagination['total-count']).toBe(counted('organization_memberships'));
    expect(memberships.meta['status-counts']).toMatchObject({
      total: counted('organization_memberships'),
      active: counted('organization_memberships', "AND status = 'active'"),
      invited: counted('organization_memberships', "AND status = 'invited'"),
    });
    const invited = await total(`/organizations/${ORG}/organization-memberships?filter[status]=invited`);
    expect(invited.meta.pagination['total-count']).toBe(counted('organization_memberships', "AND status = 'invited'"));
  };

  beforeAll(async () => {
    world = await startWorld();
  });
  afterAll(() => world.close());

  it('counts bulk rows', async () => {
    for (const kind of ['teams', 'run-tasks', 'memberships']) {
      const made = await control(world.server, 'POST', `/organizations/${ORG}/${kind}/bulk`, { count: 12, prefix: `bulk-${kind}` });
      expect(made.status, kind).toBe(201);
    }
    expect((await control(world.server, 'POST', `/organizations/${ORG}/teams/bulk`, { count: 12, prefix: 'bulk-teams' })).status).toBe(409);
    expect((await control(world.server, 'POST', `/organizations/${ORG}/teams/bulk`, { count: 0 })).status).toBe(400);
    await expectTotals();
  });

  it('follows creates, deletes and status changes through the API and the control plane', async () => {
    const team = await platform(world.server, 'POST', `/organizations/${ORG}/teams`, {
      body: { data: { type: 'teams', attributes: { name: 'counted-team' } } },
    });
    expect(team.status, JSON.stringify(team.body)).toBe(201);
    const task = await platform(world.server, 'POST', `/organizations/${ORG}/tasks`, {
      body: {
        data: {
          type: 'tasks',
          attributes: { name: 'counted-task', url: 'https://example.invalid/hook', description: 'counted', category: 'task' },
        },
      },
    });
    expect(task.status, JSON.stringify(task.body)).toBe(201);
    const invite = await platform(world.server, 'POST', `/organizations/${ORG}/organization-memberships`, {
      body: {
        data: {
          type: 'organization-memberships',
          attributes: { email: 'counted@example.invalid' },
          relationships: { teams: { data: [{ type: 'teams', id: team.body.data.id }] } },
        },
      },
    });
    expect(invite.status, JSON.stringify(invite.body)).toBe(201);
    await expectTotals();
    expect((await control(world.server, 'POST', `/organization-memberships/${invite.body.data.id}/accept`)).status).toBe(200);
    await expectTotals();
    expect((await platform(world.server, 'DELETE', `/organization-memberships/${invite.body.data.id}`)).status).toBe(204);
    expect((await platform(world.server, 'DELETE', `/teams/${team.body.data.id}`)).status).toBe(204);
    expect((await platform(world.server, 'DELETE', `/tasks/${task.body.data.id}`)).status).toBe(204);
    await expectTotals();
  });

  const walk = async (path: string, size: number, pages: number) => {
    const walked: string[] = [];
    for (let page = 1; page <= pages; page++) {
      const response = await platform(
        world.server,
        'GET',
        `${path}${path.includes('?') ? '&' : '?'}page[size]=${size}&page[number]=${page}`,
      );
      walked.push(...(response.body.data as { id: string }[]).map((item) => item.id));
    }
    return walked;
  };
  /** Each list, its order in SQL, and the first of the rows this test made (deleted between walks). */
  const PAGED_LISTS = [
    {
      path: `/organizations/${ORG}/teams`,
      sql: 'SELECT id FROM teams WHERE organization_id = ? ORDER BY name, id',
      removable: "SELECT '/teams/' || id FROM teams WHERE organization_id = ? AND name LIKE 'walk-%' ORDER BY name LIMIT 1",
    },
    {
      path: `/organizations/${ORG}/tasks`,
      sql: 'SELECT id FROM run_tasks WHERE organization_id = ? ORDER BY created_at, id',
      removable: "SELECT '/tasks/' || id FROM run_tasks WHERE organization_id = ? AND name LIKE 'walk-%' ORDER BY created_at, id LIMIT 1",
    },
    {
      path: `/organizations/${ORG}/organization-memberships?filter[status]=active`,
      sql: "SELECT id FROM organization_memberships WHERE organization_id = ? AND status = 'active' ORDER BY created_at, id",
      removable:
        "SELECT '/organization-memberships/' || m.id FROM organization_memberships m JOIN users u ON u.id = m.user_id " +
        "WHERE m.organization_id = ? AND u.username LIKE 'walk-%' ORDER BY m.created_at, m.id LIMIT 1",
    },
    {
      path: `/organizations/${ORG}/organization-memberships`,
      sql: 'SELECT id FROM organization_memberships WHERE organization_id = ? ORDER BY created_at, id',
      removable:
        "SELECT '/organization-memberships/' || m.id FROM organization_memberships m JOIN users u ON u.id = m.user_id " +
        "WHERE m.organization_id = ? AND u.username LIKE 'walk-%' ORDER BY m.created_at, m.id LIMIT 1",
    },
  ];

  it('pages through each list in its order, the second half read from the end', async () => {
    const lists = [
      { path: `/organizations/${ORG}/teams`, sql: 'SELECT id FROM teams WHERE organization_id = ? ORDER BY name, id' },
      { path: `/organizations/${ORG}/tasks`, sql: 'SELECT id FROM run_tasks WHERE organization_id = ? ORDER BY created_at, id' },
      {
        path: `/organizations/${ORG}/organization-memberships`,
        sql: 'SELECT id FROM organization_memberships WHERE organization_id = ? ORDER BY created_at, id',
      },
      {
        path: `/organizations/${ORG}/organization-memberships?filter[status]=active`,
        sql: "SELECT id FROM organization_memberships WHERE organization_id = ? AND status = 'active' ORDER BY created_at, id",
      },
    ];
    for (const list of lists) {
      const expected = sqlite().prepare(list.sql).pluck().all(organizationId()) as string[];
      const walked: string[] = [];
      for (let page = 1; page <= Math.ceil(expected.length / 5) + 1; page++) {
        const response = await platform(
          world.server,
          'GET',
          `${list.path}${list.path.includes('?') ? '&' : '?'}page[size]=5&page[number]=${page}`,
        );
        walked.push(...(response.body.data as { id: string }[]).map((item) => item.id));
      }
      expect(walked, list.path).toEqual(expected);
    }
  });

  it('searches team names and member names and addresses through their trigram indexes, renames included', async () => {
    const names = async (path: string) => ((await total(path)).data as { attributes: { name?: string; email?: string } }[]).length;
    const teamId = sqlite().prepare("SELECT id FROM teams WHERE name = 'bulk-teams-03'").pluck().get() as string;
    expect(
      (
        await platform(world.server, 'PATCH', `/teams/${teamId}`, {
          body: { data: { type: 'teams', attributes: { name: 'Renamed-Wombat' } } },
        })
      ).status,
    ).toBe(200);
    const found = await total(`/organizations/${ORG}/teams?q=wombat`);
    expect(found.data.map((team: { attributes: { name: string } }) => team.attributes.name)).toEqual(['Renamed-Wombat']);
    expect(await names(`/organizations/${ORG}/teams?q=bulk-teams-03`)).toBe(0);
    expect((await total(`/organizations/${ORG}/teams?q=mb`)).meta.pagination['total-count']).toBe(1);
    const members = await total(`/organizations/${ORG}/organization-memberships?q=BULK-MEMBERSHIPS-1`);
    expect(members.meta.pagination['total-count']).toBe(3);
    expect((await total(`/organizations/${ORG}/organization-memberships?q=bulk.invalid`)).meta.pagination['total-count']).toBe(12);
    for (const index of ['team_names', 'user_names']) sqlite().exec(`INSERT INTO ${index} (${index}) VALUES ('integrity-check')`);
  });

  it('starts over on reset', async () => {
    expect((await control(world.server, 'POST', '/reset')).status).toBe(200);
    await expectTotals();
    for (const index of ['workspace_names', 'team_names', 'user_names'])
      sqlite().exec(`INSERT INTO ${index} (${index}) VALUES ('integrity-check')`);
    expect(
      sqlite()
        .prepare(
          "SELECT count(*) FROM list_counts WHERE list = 'teams' AND total <> " +
            '(SELECT count(*) FROM teams t WHERE t.organization_id = list_counts.organization_id)',
        )
        .pluck()
        .get(),
    ).toBe(0);
  });

  it('reads middle pages from remembered page starts only while the list is unchanged, across writes and a reset', async () => {
    for (const kind of ['teams', 'run-tasks', 'memberships']) {
      expect(
        (await control(world.server, 'POST', `/organizations/${ORG}/${kind}/bulk`, { count: 20, prefix: `walk-${kind}` })).status,
      ).toBe(201);
    }
    for (const list of PAGED_LISTS) {
      const expected = () => sqlite().prepare(list.sql).pluck().all(organizationId()) as string[];
      // Twice: the second walk starts each page from the key the first one remembered.
      expect(await walk(list.path, 3, 6), list.path).toEqual(expected().slice(0, 18));
      expect(await walk(list.path, 3, 6), list.path).toEqual(expected().slice(0, 18));
      // A row removed before the last pages walked moves every later row up one place.
      const removable = sqlite().prepare(list.removable).pluck().get(organizationId()) as string;
      expect(expected().indexOf(removable.split('/').pop()!)).toBeLessThan(15);
      expect((await platform(world.server, 'DELETE', removable)).status).toBe(204);
      expect(await walk(list.path, 3, 6), list.path).toEqual(expected().slice(0, 18));
    }
    // A reset, then as many rows again under other names: the same number of writes, other keys.
    expect((await control(world.server, 'POST', '/reset')).status).toBe(200);
    for (const kind of ['teams', 'run-tasks', 'memberships']) {
      expect(
        (await control(world.server, 'POST', `/organizations/${ORG}/${kind}/bulk`, { count: 20, prefix: `again-${kind}` })).status,
      ).toBe(201);
    }
    for (const list of PAGED_LISTS) {
      const expected = sqlite().prepare(list.sql).pluck().all(organizationId()) as string[];
      expect(await walk(list.path, 3, 6), list.path).toEqual(expected.slice(0, 18));
    }
  });
});
