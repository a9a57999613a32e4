import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform } from '../../helpers/app.js';
import { control, ORG, startWorld, type World } from './world.js';

/**
 * The workspace list reads its total from `list_counts`, searches names through the
 * `workspace_names` trigram index and remembers page boundaries (all kept by triggers): every
 * write path must keep them right. Each check compares the API's answer with SQL over the table.
 */
type Listed = { data: { id: string; attributes: { name: string } }[]; meta: { pagination: { 'total-count': number } } };
const LIST = `/organizations/${ORG}/workspaces`;

describe('workspace list totals, search and pages stay right under every write', () => {
  let world: World;
  const sqlite = () => world.server.app.runtime.store.sqlite;
  const list = async (query: string): Promise<Listed> => {
    const response = await platform(world.server, 'GET', `${LIST}?${query}`);
    expect(response.status).toBe(200);
    return response.body as Listed;
  };
  const names = (body: Listed) => body.data.map((item) => item.attributes.name);
  const tableCount = () =>
    (
      sqlite()
        .prepare('SELECT count(*) AS n FROM workspaces w JOIN organizations o ON o.id = w.organization_id WHERE o.name = ?')
        .get(ORG) as { n: number }
    ).n;
  const allNames = () =>
    sqlite()
      .prepare('SELECT w.name FROM workspaces w JOIN organizations o ON o.id = w.organization_id WHERE o.name = ? ORDER BY w.name')
      .pluck()
      .all(ORG) as string[];
  const ftsIntact = () => sqlite().exec("INSERT INTO workspace_names (workspace_names) VALUES ('integrity-check')");
  const idOf = async (name: string) => (await platform(world.server, 'GET', `${LIST}/${name}`)).body.data.id as string;

  beforeAll(async () => {
    world = await startWorld();
    expect((await control(world.server, 'POST', `/organizations/${ORG}/workspaces/bulk`, { count: 250, prefix: 'item' })).status).toBe(201);
  });
  afterAll(() => world.close());

  it('counts bulk creates, API creates and deletes', async () => {
    expect((await list('page[size]=1')).meta.pagination['total-count']).toBe(tableCount());
    const created = await platform(world.server, 'POST', LIST, {
      body: { data: { type: 'workspaces', attributes: { name: 'extra-one' } } },
    });
    expect(created.status).toBe(201);
    expect(await platform(world.server, 'DELETE', `${LIST}/item-007`)).toMatchObject({ status: 204 });
    expect(await platform(world.server, 'DELETE', `/workspaces/${await idOf('item-008')}`)).toMatchObject({ status: 204 });
    const total = (await list('page[size]=1')).meta.pagination['total-count'];
    expect(total).toBe(tableCount());
    expect(names(await list('search[name]=item-00'))).toEqual([
      'item-001',
      'item-002',
      'item-003',
      'item-004',
      'item-005',
      'item-006',
      'item-009',
    ]);
    ftsIntact();
  });

  it('finds a renamed workspace by its new name only, by substring and by wildcard', async () => {
    const renamed = await platform(world.server, 'PATCH', `${LIST}/item-042`, {
      body: { data: { type: 'workspaces', attributes: { name: 'Renamed-Quokka' } } },
    });
    expect(renamed.status).toBe(200);
    expect(names(await list('search[name]=quokka'))).toEqual(['Renamed-Quokka']);
    expect(names(await list('search[name]=item-042'))).toEqual([]);
    expect(names(await list('search[wildcard-name]=*okka'))).toEqual(['Renamed-Quokka']);
    expect(names(await list('search[wildcard-name]=renamed-q*'))).toEqual(['Renamed-Quokka']);
    expect(names(await list('search[wildcard-name]=item-04*')).length).toBe(9);
    // Two-character searches cannot use the trigram index and still match.
    expect(names(await list('search[name]=kk'))).toEqual(['Renamed-Quokka']);
    ftsIntact();
  });

  it('walks every page in every order exactly once, also from the end and after a change between pages', async () => {
    for (const sort of ['name', '-name', 'created-at', '-created-at', 'updated-at', '-updated-at']) {
      const walked: string[] = [];
      for (let page = 1; page <= 13; page++) walked.push(...names(await list(`sort=${sort}&page[size]=20&page[number]=${page}`)));
      expect(new Set(walked).size).toBe(tableCount());
      expect([...walked].sort()).toEqual([...allNames()].sort());
    }
    const byName = allNames();
    expect(names(await list('page[size]=20&page[number]=13'))).toEqual(byName.slice(240, 260));
    expect(names(await list('page[size]=20&page[number]=7'))).toEqual(byName.slice(120, 140));
    // A rename that moves a workspace from page 2 to the end must show on page 7 at once.
    const moved = byName[25] as string;
    expect(
      (
        await platform(world.server, 'PATCH', `${LIST}/${moved}`, {
          body: { data: { type: 'workspaces', attributes: { name: 'zz-moved' } } },
        })
      ).status,
    ).toBe(200);
    expect(names(await list('page[size]=20&page[number]=7'))).toEqual(allNames().slice(120, 140));
    expect(names(await list('page[size]=20&page[number]=13'))).toEqual(allNames().slice(240, 260));
  });

  it('counts tag-filtered lists from the tags as they are now', async () => {
    const id = await idOf('item-100');
    expect(
      (
        await platform(world.server, 'POST', `/workspaces/${id}/relationships/tags`, {
          body: { data: [{ type: 'tags', attributes: { name: 'blue' } }] },
        })
      ).status,
    ).toBe(204);
    expect((await list('search[tags]=blue')).meta.pagination['total-count']).toBe(1);
    expect(
      (
        await platform(world.server, 'DELETE', `/workspaces/${id}/relationships/tags`, {
          body: { data: [{ type: 'tags', attributes: { name: 'blue' } }] },
        })
      ).status,
    ).toBe(204);
    expect((await list('search[tags]=blue')).meta.pagination['total-count']).toBe(0);
  });

  it('keeps counts and the name index right through a reset and an organization delete', async () => {
    expect((await control(world.server, 'POST', '/reset')).status).toBe(200);
    expect((await list('page[size]=1')).meta.pagination['total-count']).toBe(tableCount());
    expect(names(await list('search[name]=quokka'))).toEqual([]);
    ftsIntact();
    expect((await control(world.server, 'POST', `/organizations/${ORG}/workspaces/bulk`, { count: 30, prefix: 'again' })).status).toBe(201);
    expect((await list('page[size]=1')).meta.pagination['total-count']).toBe(tableCount());
    expect(names(await list('search[name]=again-0'))).toEqual([
      'again-01',
      'again-02',
      'again-03',
      'again-04',
      'again-05',
      'again-06',
      'again-07',
      'again-08',
      'again-09',
    ]);
    expect((await platform(world.server, 'DELETE', `/organizations/${ORG}`)).status).toBe(204);
    // Every count left agrees with its table, and none outlives its organization.
    const stale = sqlite()
      .prepare(
        "SELECT count(*) FROM list_counts c WHERE c.list = 'workspaces' AND c.total <> (SELECT count(*) FROM workspaces w WHERE w.organization_id = c.organization_id)",
      )
      .pluck()
      .get();
    expect(stale).toBe(0);
    expect(
      sqlite()
        .prepare('SELECT count(*) FROM list_counts c LEFT JOIN organizations o ON o.id = c.organization_id WHERE o.id IS NULL')
        .pluck()
        .get(),
    ).toBe(0);
    ftsIntact();
  });
});
