import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform } from '../../helpers/app.js';
import { ORG, OTHER_ORG, startWorld, workspaceWithLevels, type World } from './world.js';

const refs = (...ids: string[]) => ({ data: ids.map((id) => ({ type: 'workspaces', id })) });
const ids = (body: { data: { id: string }[] }) => body.data.map((item) => item.id).sort();

describe('remote state consumers', () => {
  let world: World;
  let producer: string;
  let a: string;
  let b: string;
  let c: string;
  const path = (id = producer) => `/workspaces/${id}/relationships/remote-state-consumers`;
  const make = async (name: string, attributes: Record<string, unknown> = {}) =>
    (
      await platform(world.server, 'POST', `/organizations/${ORG}/workspaces`, {
        body: { data: { type: 'workspaces', attributes: { name, ...attributes } } },
      })
    ).body.data.id as string;

  beforeAll(async () => {
    world = await startWorld();
    producer = (await workspaceWithLevels(world, 'producer', { 'global-remote-state': false })).id;
    a = await make('consumer-a');
    b = await make('consumer-b');
    c = await make('consumer-c');
  });
  afterAll(() => world.close());

  it('starts empty when global-remote-state is false', async () => {
    const { status, body } = await platform(world.server, 'GET', path());
    expect(status).toBe(200);
    expect(body.data).toEqual([]);
    expect(body.meta.pagination['total-count']).toBe(0);
  });

  it('adds consumers (an already present one is skipped) and lists exactly them', async () => {
    expect((await platform(world.server, 'POST', path(), { body: refs(a, b) })).status).toBe(204);
    expect((await platform(world.server, 'POST', path(), { body: refs(b) })).status).toBe(204);
    const { body } = await platform(world.server, 'GET', path());
    expect(ids(body)).toEqual([a, b].sort());
  });

  it('removes consumers; an absent one is skipped', async () => {
    expect((await platform(world.server, 'DELETE', path(), { body: refs(a, c) })).status).toBe(204);
    expect(ids((await platform(world.server, 'GET', path())).body)).toEqual([b]);
    expect((await platform(world.server, 'DELETE', path(), { body: refs(b) })).status).toBe(204);
    expect((await platform(world.server, 'GET', path())).body.data).toEqual([]);
  });

  it('replaces the whole list with PATCH, including with an empty list', async () => {
    await platform(world.server, 'POST', path(), { body: refs(a) });
    expect((await platform(world.server, 'PATCH', path(), { body: refs(b, c) })).status).toBe(204);
    expect(ids((await platform(world.server, 'GET', path())).body)).toEqual([b, c].sort());
    expect((await platform(world.server, 'PATCH', path(), { body: refs() })).status).toBe(204);
    expect((await platform(world.server, 'GET', path())).body.data).toEqual([]);
  });

  it('uses only type and id of each element, as real clients send whole workspace objects', async () => {
    const element = {
      type: 'workspaces',
      id: a,
      attributes: { name: '', actions: null },
      relationships: { organization: { data: null }, outputs: { data: [] } },
    };
    expect((await platform(world.server, 'POST', path(), { body: { data: [element] } })).status).toBe(204);
    expect(ids((await platform(world.server, 'GET', path())).body)).toEqual([a]);
    await platform(world.server, 'PATCH', path(), { body: refs() });
  });

  it('answers a body naming more workspaces than SQLite takes parameters with a 4xx, and handles many repeats of one id', async () => {
    const unknown = Array.from({ length: 40_000 }, (_, index) => `ws-unknown-${index}`);
    for (const method of ['POST', 'PATCH', 'DELETE']) {
      expect((await platform(world.server, method, path(), { body: refs(...unknown) })).status).toBe(422);
    }
    // A workspace admin's standing is looked up per consumer through team access, too.
    expect((await platform(world.server, 'POST', path(), { body: refs(...unknown), token: world.principals.wsadmin })).status).toBe(422);
    const repeated = Array.from({ length: 40_000 }, () => a);
    expect((await platform(world.server, 'POST', path(), { body: refs(...repeated) })).status).toBe(204);
    expect(ids((await platform(world.server, 'GET', path())).body)).toEqual([a]);
    expect((await platform(world.server, 'DELETE', path(), { body: refs(...repeated) })).status).toBe(204);
    expect((await platform(world.server, 'GET', path())).body.data).toEqual([]);
  });

  it('refuses the workspace itself, unknown workspaces and workspaces of another organization (422)', async () => {
    const foreign = (
      await platform(world.server, 'POST', `/organizations/${OTHER_ORG}/workspaces`, {
        body: { data: { type: 'workspaces', attributes: { name: 'foreign' } } },
      })
    ).body.data.id;
    for (const method of ['POST', 'PATCH', 'DELETE']) {
      expect((await platform(world.server, method, path(), { body: refs(producer) })).status).toBe(422);
      expect((await platform(world.server, method, path(), { body: refs('ws-nope') })).status).toBe(422);
      expect((await platform(world.server, method, path(), { body: refs(foreign) })).status).toBe(422);
      expect((await platform(world.server, method, path(), { body: { data: [{ type: 'teams', id: a }] } })).status).toBe(422);
      expect((await platform(world.server, method, path(), { body: { data: [{ type: 'workspaces' }] } })).status).toBe(422);
      expect((await platform(world.server, method, path(), { body: { data: {} } })).status).toBe(422);
    }
    expect((await platform(world.server, 'POST', path(), { body: refs() })).status).toBe(422);
  });

  it('refuses consumers the caller cannot read', async () => {
    // wsadmin administers `producer` but cannot read `consumer-a`.
    expect((await platform(world.server, 'POST', path(), { token: world.principals.wsadmin, body: refs(a) })).status).toBe(422);
    const readable = (await workspaceWithLevels(world, 'readable-consumer')).id;
    expect((await platform(world.server, 'POST', path(), { token: world.principals.wsadmin, body: refs(readable) })).status).toBe(204);
    expect((await platform(world.server, 'DELETE', path(), { token: world.principals.wsadmin, body: refs(readable) })).status).toBe(204);
  });

  it('keeps PATCH for organization-wide managers; workspace admins use POST and DELETE', async () => {
    expect((await platform(world.server, 'PATCH', path(), { token: world.principals.wsadmin, body: refs() })).status).toBe(404);
    expect((await platform(world.server, 'PATCH', path(), { token: world.principals.manager, body: refs(a) })).status).toBe(204);
    expect((await platform(world.server, 'PATCH', path(), { token: world.principals.orgtoken, body: refs() })).status).toBe(204);
    expect((await platform(world.server, 'POST', path(), { token: world.principals.wswrite, body: refs(a) })).status).toBe(404);
  });

  it('lists every other workspace when global-remote-state is true, and refuses changes then', async () => {
    const global = await make('global-producer', { 'global-remote-state': true });
    const { body } = await platform(world.server, 'GET', `${path(global)}?page[size]=100`);
    expect(body.data.map((item: { id: string }) => item.id)).not.toContain(global);
    const all = (await platform(world.server, 'GET', `/organizations/${ORG}/workspaces?page[size]=100`)).body.meta.pagination[
      'total-count'
    ];
    expect(body.meta.pagination['total-count']).toBe(all - 1);
    for (const method of ['POST', 'PATCH', 'DELETE'])
      expect((await platform(world.server, method, path(global), { body: refs(a) })).status).toBe(422);
  });

  it('omits consumers the caller cannot read, and pages the list', async () => {
    await platform(world.server, 'PATCH', path(), { body: refs(a, b, c) });
    const readable = (await workspaceWithLevels(world, 'visible-consumer')).id;
    await platform(world.server, 'POST', path(), { body: refs(readable) });
    const seen = await platform(world.server, 'GET', path(), { token: world.principals.wsread });
    expect(ids(seen.body)).toEqual([readable]);
    const paged = await platform(world.server, 'GET', `${path()}?page[size]=2&page[number]=2`);
    expect(paged.body.meta.pagination).toMatchObject({ 'total-count': 4, 'total-pages': 2, 'current-page': 2 });
    expect(paged.body.data).toHaveLength(2);
  });

  it('answers 404 for unknown workspaces and callers who cannot read the producer', async () => {
    expect((await platform(world.server, 'GET', path('ws-nope'))).status).toBe(404);
    expect((await platform(world.server, 'POST', path('ws-nope'), { body: refs(a) })).status).toBe(404);
    expect((await platform(world.server, 'GET', path(a), { token: world.principals.member })).status).toBe(404);
  });
});
