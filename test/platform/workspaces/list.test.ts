import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform } from '../../helpers/app.js';
import { control, ORG, startWorld, workspaceWithLevels, type World } from './world.js';

const names = (body: { data: { attributes: { name: string } }[] }) => body.data.map((item) => item.attributes.name);
const LIST = `/organizations/${ORG}/workspaces`;

/** 300 bulk workspaces (`bulk-001` … `bulk-300`), every third tagged `even`/`odd`, every fifth `five`. */
describe('listing workspaces', () => {
  let world: World;
  const tagged = { three: [] as string[], five: [] as string[], both: [] as string[] };

  beforeAll(async () => {
    world = await startWorld();
    const bulk = await control(world.server, 'POST', `/organizations/${ORG}/workspaces/bulk`, { count: 300, prefix: 'bulk' });
    expect(bulk.status).toBe(201);
    expect(bulk.body).toMatchObject({ created: 300, first: 'bulk-001', last: 'bulk-300' });
    const all = [];
    for (let page = 1; page <= 3; page++)
      all.push(...(await platform(world.server, 'GET', `${LIST}?page[size]=100&page[number]=${page}`)).body.data);
    for (const [index, workspace] of all.entries()) {
      const number = index + 1;
      const tags = [];
      if (number % 3 === 0) tags.push('three');
      if (number % 5 === 0) tags.push('five');
      if (tags.length === 0) continue;
      const added = await platform(world.server, 'POST', `/workspaces/${workspace.id}/relationships/tags`, {
        body: { data: tags.map((name) => ({ type: 'tags', attributes: { name } })) },
      });
      expect(added.status).toBe(204);
      if (number % 3 === 0) tagged.three.push(workspace.attributes.name);
      if (number % 5 === 0) tagged.five.push(workspace.attributes.name);
      if (number % 15 === 0) tagged.both.push(workspace.attributes.name);
    }
    // Three more with distinct creation and update times, for the timestamp orders.
    for (const name of ['zeta-late', 'alpha-later', 'mid-latest']) {
      world.server.app.runtime.clock.advance(1000);
      await platform(world.server, 'POST', LIST, { body: { data: { type: 'workspaces', attributes: { name } } } });
    }
  });
  afterAll(() => world.close());

  it('pages by 20 by default, with full links and meta', async () => {
    const { status, body } = await platform(world.server, 'GET', LIST);
    expect(status).toBe(200);
    expect(body.data).toHaveLength(20);
    expect(body.meta.pagination).toEqual({
      'current-page': 1,
      'page-size': 20,
      'prev-page': null,
      'next-page': 2,
      'total-pages': 16,
      'total-count': 303,
    });
    expect(body.links.next).toContain('page%5Bnumber%5D=2');
    expect(names(body)[0]).toBe('alpha-later');
  });

  it('answers an empty page far past the end with the real total', async () => {
    const { body } = await platform(world.server, 'GET', `${LIST}?page%5Bnumber%5D=999&page%5Bsize%5D=100`);
    expect(body.data).toEqual([]);
    expect(body.meta.pagination).toMatchObject({ 'current-page': 999, 'total-count': 303 });
  });

  it('search[name] matches part of the name, case-insensitively', async () => {
    const { body } = await platform(world.server, 'GET', `${LIST}?search[name]=BULK-00&page[size]=100`);
    expect(names(body)).toEqual([
      'bulk-001',
      'bulk-002',
      'bulk-003',
      'bulk-004',
      'bulk-005',
      'bulk-006',
      'bulk-007',
      'bulk-008',
      'bulk-009',
    ]);
    const literal = await platform(world.server, 'GET', `${LIST}?search[name]=${encodeURIComponent('bulk_0')}`);
    expect(literal.body.data).toEqual([]);
  });

  it('search[wildcard-name] takes * as prefix, suffix or both; without * it is the exact name', async () => {
    expect(names((await platform(world.server, 'GET', `${LIST}?search[wildcard-name]=*late`)).body)).toEqual(['zeta-late']);
    expect(names((await platform(world.server, 'GET', `${LIST}?search[wildcard-name]=bulk-29*`)).body)).toHaveLength(10);
    expect(names((await platform(world.server, 'GET', `${LIST}?search[wildcard-name]=*late*`)).body)).toEqual([
      'alpha-later',
      'mid-latest',
      'zeta-late',
    ]);
    expect(names((await platform(world.server, 'GET', `${LIST}?search[wildcard-name]=bulk-100`)).body)).toEqual(['bulk-100']);
  });

  it('search[tags] needs every tag; search[exclude-tags] drops any match', async () => {
    const three = await platform(world.server, 'GET', `${LIST}?search[tags]=three&page[size]=100`);
    expect(three.body.meta.pagination['total-count']).toBe(tagged.three.length);
    const both = await platform(world.server, 'GET', `${LIST}?search%5Btags%5D=three%2Cfive&page[size]=100`);
    expect(names(both.body)).toEqual(tagged.both);
    const excluded = await platform(world.server, 'GET', `${LIST}?search[exclude-tags]=three,five&page[size]=100`);
    expect(excluded.body.meta.pagination['total-count']).toBe(303 - tagged.three.length - tagged.five.length + tagged.both.length);
    const combined = await platform(world.server, 'GET', `${LIST}?search[tags]=five&search[exclude-tags]=three&page[size]=100`);
    expect(names(combined.body)).toEqual(tagged.five.filter((name) => !tagged.both.includes(name)));
    expect((await platform(world.server, 'GET', `${LIST}?search[tags]=missing`)).body.data).toEqual([]);
  });

  it('sorts by name, created-at and updated-at, either way', async () => {
    const first = async (sort: string) => names((await platform(world.server, 'GET', `${LIST}?sort=${sort}&page[size]=3`)).body);
    expect(await first('name')).toEqual(['alpha-later', 'bulk-001', 'bulk-002']);
    expect(await first('-name')).toEqual(['zeta-late', 'mid-latest', 'bulk-300']);
    expect(await first('-created-at')).toEqual(['mid-latest', 'alpha-later', 'zeta-late']);
    expect(await first('created-at')).toEqual(['bulk-001', 'bulk-002', 'bulk-003']);
    world.server.app.runtime.clock.advance(1000);
    const bulk = (await platform(world.server, 'GET', `${LIST}?search[wildcard-name]=bulk-150`)).body.data[0];
    await platform(world.server, 'PATCH', `/workspaces/${bulk.id}`, {
      body: { data: { type: 'workspaces', attributes: { description: 'touched' } } },
    });
    expect(await first('-updated-at')).toEqual(['bulk-150', 'mid-latest', 'alpha-later']);
    expect((await first('updated-at'))[0]).toBe('bulk-001');
    expect((await platform(world.server, 'GET', `${LIST}?sort=size`)).status).toBe(400);
  });

  it('never lists workspaces the caller cannot read', async () => {
    const { id } = await workspaceWithLevels(world, 'granted-one');
    for (const role of ['wsread', 'wsplan', 'wswrite', 'wsadmin']) {
      const { body } = await platform(world.server, 'GET', LIST, { token: world.principals[role] });
      expect(body.data.map((item: { id: string }) => item.id)).toEqual([id]);
      expect(body.meta.pagination['total-count']).toBe(1);
    }
    expect((await platform(world.server, 'GET', LIST, { token: world.principals.member })).body.data).toEqual([]);
    expect((await platform(world.server, 'GET', LIST, { token: world.principals.reader })).body.meta.pagination['total-count']).toBe(304);
    expect((await platform(world.server, 'GET', LIST, { token: world.principals.outsider })).status).toBe(404);
  });

  it('bulk refuses bad input and names already taken', async () => {
    expect((await control(world.server, 'POST', `/organizations/${ORG}/workspaces/bulk`, { count: 0 })).status).toBe(400);
    expect((await control(world.server, 'POST', `/organizations/${ORG}/workspaces/bulk`, { count: 2, prefix: 'bad prefix' })).status).toBe(
      400,
    );
    expect((await control(world.server, 'POST', `/organizations/${ORG}/workspaces/bulk`, { count: 300, prefix: 'bulk' })).status).toBe(409);
    expect((await control(world.server, 'POST', '/organizations/nope/workspaces/bulk', { count: 1 })).status).toBe(404);
  });
});
