import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform } from '../../helpers/app.js';
import { ORG, OTHER_ORG, startWorld, type World } from '../workspaces/world.js';

describe('organization tags as the Go client drives them', () => {
  let world: World;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    world = await startWorld();
    for (const [org, name] of [
      [ORG, 'one'],
      [ORG, 'two'],
      [ORG, 'three'],
      [OTHER_ORG, 'theirs'],
    ] as const) {
      const created = await platform(world.server, 'POST', `/organizations/${org}/workspaces`, {
        body: { data: { type: 'workspaces', attributes: { name } } },
      });
      ids[name] = created.body.data.id;
    }
  });
  afterAll(() => world.close());

  const tagWorkspace = (workspace: string, ...names: string[]) =>
    platform(world.server, 'POST', `/workspaces/${ids[workspace]}/relationships/tags`, {
      body: { data: names.map((name) => ({ type: 'tags', attributes: { name } })) },
    });
  const orgTags = async () => {
    const listed = await platform(world.server, 'GET', `/organizations/${ORG}/tags?page[size]=100`);
    return Object.fromEntries(listed.body.data.map((tag: { id: string; attributes: { name: string } }) => [tag.attributes.name, tag]));
  };
  const tagNames = async (workspace: string) =>
    (await platform(world.server, 'GET', `/workspaces/${ids[workspace]}/relationships/tags`)).body.data.map(
      (tag: { attributes: { name: string } }) => tag.attributes.name,
    );

  it('gives every tag a links.self', async () => {
    await tagWorkspace('one', 'linked');
    const tag = (await orgTags())['linked'];
    expect(tag.links).toEqual({ self: `/api/v2/tags/${tag.id}` });
  });

  it('adds one tag to several workspaces with POST /tags/:id/relationships/workspaces', async () => {
    await tagWorkspace('one', 'shared');
    const tag = (await orgTags())['shared'];
    const added = await platform(world.server, 'POST', `/tags/${tag.id}/relationships/workspaces`, {
      body: {
        data: [
          { type: 'workspaces', id: ids.two },
          { type: 'workspaces', id: ids.three },
        ],
      },
    });
    expect(added.status).toBe(204);
    expect(await tagNames('two')).toContain('shared');
    expect(await tagNames('three')).toContain('shared');
    expect((await orgTags())['shared'].attributes['instance-count']).toBe(3);
  });

  it('refuses a workspace of another organization, an unknown tag, and callers without tag management', async () => {
    await tagWorkspace('one', 'local');
    const tag = (await orgTags())['local'];
    const foreign = await platform(world.server, 'POST', `/tags/${tag.id}/relationships/workspaces`, {
      body: {
        data: [
          { type: 'workspaces', id: ids.two },
          { type: 'workspaces', id: ids.theirs },
        ],
      },
    });
    expect(foreign.status).toBe(422);
    expect(await tagNames('two')).not.toContain('local');
    expect(
      (
        await platform(world.server, 'POST', '/tags/tag-nope/relationships/workspaces', {
          body: { data: [{ type: 'workspaces', id: ids.two }] },
        })
      ).status,
    ).toBe(404);
    const reader = await platform(world.server, 'POST', `/tags/${tag.id}/relationships/workspaces`, {
      token: world.principals.reader,
      body: { data: [{ type: 'workspaces', id: ids.two }] },
    });
    expect(reader.status).toBe(404);
  });

  it('deletes organization tags in bulk with DELETE /organizations/:org/tags, from every workspace', async () => {
    await tagWorkspace('one', 'gone-a', 'gone-b', 'kept');
    await tagWorkspace('two', 'gone-a');
    const before = await orgTags();
    const deleted = await platform(world.server, 'DELETE', `/organizations/${ORG}/tags`, {
      body: {
        data: [
          { type: 'tags', id: before['gone-a'].id },
          { type: 'tags', id: before['gone-b'].id },
        ],
      },
    });
    expect(deleted.status).toBe(204);
    const after = await orgTags();
    expect(after['gone-a']).toBeUndefined();
    expect(after['gone-b']).toBeUndefined();
    expect(after['kept']).toBeDefined();
    expect(await tagNames('one')).not.toContain('gone-a');
    expect(await tagNames('two')).not.toContain('gone-a');
  });

  it('deletes nothing when one id is unknown, and only for callers who manage workspaces', async () => {
    await tagWorkspace('three', 'survivor');
    const survivor = (await orgTags())['survivor'];
    const partial = await platform(world.server, 'DELETE', `/organizations/${ORG}/tags`, {
      body: {
        data: [
          { type: 'tags', id: survivor.id },
          { type: 'tags', id: 'tag-unknown' },
        ],
      },
    });
    expect(partial.status).toBe(404);
    expect((await orgTags())['survivor']).toBeDefined();
    const member = await platform(world.server, 'DELETE', `/organizations/${ORG}/tags`, {
      token: world.principals.member,
      body: { data: [{ type: 'tags', id: survivor.id }] },
    });
    expect(member.status).toBe(404);
    expect((await orgTags())['survivor']).toBeDefined();
    const manager = await platform(world.server, 'DELETE', `/organizations/${ORG}/tags`, {
      token: world.principals.manager,
      body: { data: [{ type: 'tags', id: survivor.id }] },
    });
    expect(manager.status).toBe(204);
  });
});
