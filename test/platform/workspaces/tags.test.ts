import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform } from '../../helpers/app.js';
import { ORG, OTHER_ORG, startWorld, type World } from './world.js';

const byName = (name: string) => ({ type: 'tags', attributes: { name } });

describe('workspace tags', () => {
  let world: World;
  let id: string;
  let otherId: string;
  const path = () => `/workspaces/${id}/relationships/tags`;
  const tagNames = async () => (await platform(world.server, 'GET', `/workspaces/${id}`)).body.data.attributes['tag-names'];
  const orgTags = async () => (await platform(world.server, 'GET', `/organizations/${ORG}/tags`)).body.data;

  beforeAll(async () => {
    world = await startWorld();
    id = (
      await platform(world.server, 'POST', `/organizations/${ORG}/workspaces`, {
        body: { data: { type: 'workspaces', attributes: { name: 'tagged' } } },
      })
    ).body.data.id;
    otherId = (
      await platform(world.server, 'POST', `/organizations/${ORG}/workspaces`, {
        body: { data: { type: 'workspaces', attributes: { name: 'other' } } },
      })
    ).body.data.id;
  });
  afterAll(() => world.close());

  it('adds by name, creating organization tags, and keeps insertion order', async () => {
    const added = await platform(world.server, 'POST', path(), { body: { data: [byName('tag1'), byName('tag2'), byName('tag3')] } });
    expect(added.status).toBe(204);
    expect(added.body).toBeUndefined();
    expect(await tagNames()).toEqual(['tag1', 'tag2', 'tag3']);
    await platform(world.server, 'POST', path(), { body: { data: [byName('tag4'), byName('tag1')] } });
    expect(await tagNames()).toEqual(['tag1', 'tag2', 'tag3', 'tag4']);
    const listed = await platform(world.server, 'GET', path());
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((tag: { attributes: { name: string } }) => tag.attributes.name)).toEqual(['tag1', 'tag2', 'tag3', 'tag4']);
    expect(listed.body.data[3]).toMatchObject({
      type: 'tags',
      attributes: { name: 'tag4', 'instance-count': 1 },
      relationships: { organization: { data: { id: ORG, type: 'organizations' } } },
    });
    expect(listed.body.data[3].id).toMatch(/^tag-/);
    expect(listed.body.meta.pagination['total-count']).toBe(4);
  });

  it('filters the workspace tag list with `name` and paginates it', async () => {
    const filtered = await platform(world.server, 'GET', `${path()}?name=tag2`);
    expect(filtered.body.data.map((tag: { attributes: { name: string } }) => tag.attributes.name)).toEqual(['tag2']);
    const paged = await platform(world.server, 'GET', `${path()}?page[size]=2&page[number]=2`);
    expect(paged.body.data.map((tag: { attributes: { name: string } }) => tag.attributes.name)).toEqual(['tag3', 'tag4']);
  });

  it('adds an existing organization tag by id to another workspace', async () => {
    const tag1 = (await orgTags()).find((tag: { attributes: { name: string } }) => tag.attributes.name === 'tag1');
    const added = await platform(world.server, 'POST', `/workspaces/${otherId}/relationships/tags`, {
      body: { data: [{ type: 'tags', id: tag1.id }] },
    });
    expect(added.status).toBe(204);
    const again = (await orgTags()).find((tag: { attributes: { name: string } }) => tag.attributes.name === 'tag1');
    expect(again.attributes['instance-count']).toBe(2);
  });

  it('refuses unknown ids (404), ids of another organization, and entries without id or name (422)', async () => {
    expect((await platform(world.server, 'POST', path(), { body: { data: [{ type: 'tags', id: 'tag-nope' }] } })).status).toBe(404);
    expect((await platform(world.server, 'DELETE', path(), { body: { data: [{ type: 'tags', id: 'tag-nope' }] } })).status).toBe(404);
    const foreign = (
      await platform(world.server, 'POST', `/organizations/${OTHER_ORG}/workspaces`, {
        body: { data: { type: 'workspaces', attributes: { name: 'foreign' } } },
      })
    ).body.data.id;
    await platform(world.server, 'POST', `/workspaces/${foreign}/relationships/tags`, { body: { data: [byName('theirs')] } });
    const theirs = (await platform(world.server, 'GET', `/organizations/${OTHER_ORG}/tags`)).body.data[0];
    expect((await platform(world.server, 'POST', path(), { body: { data: [{ type: 'tags', id: theirs.id }] } })).status).toBe(404);
    expect((await platform(world.server, 'POST', path(), { body: { data: [{ type: 'tags' }] } })).status).toBe(422);
    expect((await platform(world.server, 'POST', path(), { body: { data: [{ type: 'teams', attributes: { name: 'x' } }] } })).status).toBe(
      422,
    );
    expect((await platform(world.server, 'POST', path(), { body: { data: [byName('bad name!')] } })).status).toBe(422);
    expect((await platform(world.server, 'POST', path(), { body: { data: {} } })).status).toBe(422);
    expect(
      (await platform(world.server, 'POST', '/workspaces/ws-missing/relationships/tags', { body: { data: [byName('x')] } })).status,
    ).toBe(404);
    expect(await tagNames()).toEqual(['tag1', 'tag2', 'tag3', 'tag4']);
  });

  it('removes by name or id; an unknown name is a no-op; unused tags leave the organization list', async () => {
    const tag2 = (await orgTags()).find((tag: { attributes: { name: string } }) => tag.attributes.name === 'tag2');
    const removed = await platform(world.server, 'DELETE', path(), {
      body: { data: [byName('tag4'), { type: 'tags', id: tag2.id }, byName('never-existed')] },
    });
    expect(removed.status).toBe(204);
    expect(await tagNames()).toEqual(['tag1', 'tag3']);
    await platform(world.server, 'DELETE', path(), { body: { data: [byName('tag1')] } });
    expect(await tagNames()).toEqual(['tag3']);
    const left = (await orgTags()).map((tag: { attributes: { name: string } }) => tag.attributes.name);
    // tag1 is still on the other workspace; tag2 and tag4 were on no other.
    expect(left).toEqual(['tag1', 'tag3']);
  });

  it('lists organization tags with instance counts, q and the exclude filter', async () => {
    const { body } = await platform(world.server, 'GET', `/organizations/${ORG}/tags`);
    expect(body.data[0]).toMatchObject({ type: 'tags', attributes: { name: 'tag1', 'instance-count': 1 } });
    expect(body.data[0].attributes['created-at']).toMatch(/Z$/);
    expect(
      (await platform(world.server, 'GET', `/organizations/${ORG}/tags?q=3`)).body.data.map(
        (tag: { attributes: { name: string } }) => tag.attributes.name,
      ),
    ).toEqual(['tag3']);
    const excluded = await platform(world.server, 'GET', `/organizations/${ORG}/tags?filter%5Bexclude%5D%5Btaggable%5D%5Bid%5D=${id}`);
    expect(excluded.body.data.map((tag: { attributes: { name: string } }) => tag.attributes.name)).toEqual(['tag1']);
    expect((await platform(world.server, 'GET', '/organizations/nope/tags')).status).toBe(404);
  });

  it('takes more tags in one body than SQLite binds parameters, in linear time, and drops them with their workspace', async () => {
    const crowded = (
      await platform(world.server, 'POST', `/organizations/${ORG}/workspaces`, {
        body: { data: { type: 'workspaces', attributes: { name: 'crowded' } } },
      })
    ).body.data.id;
    const body = { data: Array.from({ length: 33_000 }, (_, index) => byName(`bulk-${index}`)) };
    const tagsPath = `/workspaces/${crowded}/relationships/tags`;
    expect((await platform(world.server, 'POST', tagsPath, { body })).status).toBe(204);
    const last = await platform(world.server, 'GET', `${tagsPath}?page[size]=1&page[number]=33000`);
    expect(last.body.data[0].attributes.name).toBe('bulk-32999');
    expect((await platform(world.server, 'DELETE', `/workspaces/${crowded}`)).status).toBe(204);
    expect((await platform(world.server, 'GET', `/organizations/${ORG}/tags?q=bulk-`)).body.meta.pagination['total-count']).toBe(0);
  }, 30_000);

  it('drops tags a deleted workspace alone carried', async () => {
    await platform(world.server, 'POST', `/workspaces/${otherId}/relationships/tags`, { body: { data: [byName('only-here')] } });
    await platform(world.server, 'DELETE', `/workspaces/${otherId}`);
    const left = (await orgTags()).map((tag: { attributes: { name: string } }) => tag.attributes.name);
    expect(left).toEqual(['tag3']);
  });
});
