import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform } from '../../helpers/app.js';
import { ORG, startWorld, tokenOf, workspaceWithLevels, type World } from '../workspaces/world.js';

type Binding = { id: string; type: string; attributes: { key: string; value: string }; links?: Record<string, string> };
const binding = (key: string, value?: string) => ({ type: 'tag-bindings', attributes: value === undefined ? { key } : { key, value } });
const pairs = (data: Binding[]) => data.map((entry) => [entry.attributes.key, entry.attributes.value]);

describe.each([
  { edition: 'self-hosted', dialect: 'spec' },
  { edition: 'hosted', dialect: 'upstream' },
])('tag bindings ($edition edition, $dialect dialect)', ({ edition, dialect }) => {
  let world: World;
  let projectId: string;
  const call = (method: string, path: string, body?: unknown, token?: string) =>
    platform(world.server, method, path, { ...(body === undefined ? {} : { body }), ...(token ? { token } : {}) });
  const createWorkspace = async (name: string, bindings?: unknown[], project?: string) => {
    const relationships: Record<string, unknown> = {};
    if (bindings) relationships['tag-bindings'] = { data: bindings };
    if (project) relationships['project'] = { data: { type: 'projects', id: project } };
    return call('POST', `/organizations/${ORG}/workspaces`, { data: { type: 'workspaces', attributes: { name }, relationships } });
  };
  const listNames = async (query: string) => {
    const listed = await call('GET', `/organizations/${ORG}/workspaces?${query}`);
    expect(listed.status).toBe(200);
    return (listed.body.data as { attributes: { name: string } }[]).map((entry) => entry.attributes.name).sort();
  };

  beforeAll(async () => {
    world = await startWorld({ UNDERSTUDY_EDITION: edition, UNDERSTUDY_DIALECT: dialect });
    const project = await call('POST', `/organizations/${ORG}/projects`, {
      data: {
        type: 'projects',
        attributes: { name: 'tagged-project' },
        relationships: { 'tag-bindings': { data: [binding('team', 'infra')] } },
      },
    });
    expect(project.status).toBe(201);
    projectId = project.body.data.id;
  });
  afterAll(() => world.close());

  it('creates a workspace with bindings, lists them and shows them as relationships', async () => {
    const created = await createWorkspace('with-bindings', [binding('env', 'prod'), binding('owner')]);
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    const own = await call('GET', `/workspaces/${id}/tag-bindings`);
    expect(own.status).toBe(200);
    expect(pairs(own.body.data)).toEqual([
      ['env', 'prod'],
      ['owner', ''],
    ]);
    expect(own.body.data[0].type).toBe('tag-bindings');
    expect(own.body.data[0].id).toMatch(/^tb-/);
    expect(own.body.meta.pagination['total-count']).toBe(2);
    expect(created.body.data.relationships['tag-bindings'].data).toEqual(
      own.body.data.map((entry: Binding) => ({ id: entry.id, type: 'tag-bindings' })),
    );
    expect(created.body.data.relationships['effective-tag-bindings'].links.related).toBe(`/api/v2/workspaces/${id}/effective-tag-bindings`);
    // The flat tags are a separate concept and stay empty.
    expect(created.body.data.attributes['tag-names']).toEqual([]);
  });

  it('PATCH adds keys and changes values in place, answering with the whole set', async () => {
    const id = (await createWorkspace('patched', [binding('a', '1'), binding('b', '2')])).body.data.id;
    const patched = await call('PATCH', `/workspaces/${id}/tag-bindings`, { data: [binding('b', 'two'), binding('c', '3')] });
    expect(patched.status).toBe(200);
    expect(pairs(patched.body.data)).toEqual([
      ['a', '1'],
      ['b', 'two'],
      ['c', '3'],
    ]);
  });

  it('a workspace update replaces the bindings, and an empty relationship removes them all', async () => {
    const id = (await createWorkspace('replaced', [binding('a', '1'), binding('b', '2')])).body.data.id;
    const updated = await call('PATCH', `/workspaces/${id}`, {
      data: { type: 'workspaces', attributes: { description: 'x' }, relationships: { 'tag-bindings': { data: [binding('foo', 'bar')] } } },
    });
    expect(updated.status).toBe(200);
    expect(pairs((await call('GET', `/workspaces/${id}/tag-bindings`)).body.data)).toEqual([['foo', 'bar']]);
    // An update that does not name the relationship leaves the bindings alone.
    await call('PATCH', `/workspaces/${id}`, { data: { type: 'workspaces', attributes: { description: 'y' } } });
    expect(pairs((await call('GET', `/workspaces/${id}/tag-bindings`)).body.data)).toEqual([['foo', 'bar']]);
    // The real client's DeleteAllTagBindings: a PATCH of the workspace with no attributes at all.
    const cleared = await call('PATCH', `/workspaces/${id}`, {
      data: { type: 'workspaces', relationships: { 'tag-bindings': { data: [] } } },
    });
    expect(cleared.status).toBe(200);
    expect((await call('GET', `/workspaces/${id}/tag-bindings`)).body.data).toEqual([]);
  });

  it('effective bindings inherit the project, marked with links.inherited-from, and the own key wins', async () => {
    const id = (await createWorkspace('inherits', [binding('env', 'dev')], projectId)).body.data.id;
    const effective = await call('GET', `/workspaces/${id}/effective-tag-bindings`);
    expect(effective.status).toBe(200);
    expect(effective.body.data.map((entry: Binding) => [entry.type, entry.attributes.key, entry.attributes.value, entry.links])).toEqual([
      ['effective-tag-bindings', 'env', 'dev', undefined],
      ['effective-tag-bindings', 'team', 'infra', { 'inherited-from': `/api/v2/projects/${projectId}` }],
    ]);
    await call('PATCH', `/workspaces/${id}/tag-bindings`, { data: [binding('team', 'apps')] });
    const overridden = await call('GET', `/workspaces/${id}/effective-tag-bindings`);
    expect(pairs(overridden.body.data)).toEqual([
      ['env', 'dev'],
      ['team', 'apps'],
    ]);
    expect(overridden.body.data.every((entry: Binding) => entry.links === undefined)).toBe(true);
    // include=effective_tag_bindings puts them beside the workspace.
    await call('PATCH', `/workspaces/${id}/tag-bindings`, { data: [binding('team', 'infra')] });
    const shown = await call('GET', `/workspaces/${id}?include=effective_tag_bindings`);
    const relationship = shown.body.data.relationships['effective-tag-bindings'].data as { id: string; type: string }[];
    expect(relationship).toHaveLength(2);
    const included = (shown.body.included as Binding[]).filter((entry) => entry.type === 'effective-tag-bindings');
    expect(included.map((entry) => entry.id).sort()).toEqual(relationship.map((entry) => entry.id).sort());
  });

  it('projects: create, PATCH adds, list, effective (no inheritance), update replaces and clears', async () => {
    const created = await call('POST', `/organizations/${ORG}/projects`, {
      data: { type: 'projects', attributes: { name: 'project-two' }, relationships: { 'tag-bindings': { data: [binding('a', '1')] } } },
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    const added = await call('PATCH', `/projects/${id}/tag-bindings`, { data: [binding('b', '2')] });
    expect(added.status).toBe(200);
    expect(pairs(added.body.data)).toEqual([
      ['a', '1'],
      ['b', '2'],
    ]);
    const effective = await call('GET', `/projects/${id}/effective-tag-bindings`);
    expect(effective.body.data.map((entry: Binding) => [entry.type, entry.attributes.key, entry.links])).toEqual([
      ['effective-tag-bindings', 'a', undefined],
      ['effective-tag-bindings', 'b', undefined],
    ]);
    const updated = await call('PATCH', `/projects/${id}`, {
      data: {
        type: 'projects',
        attributes: { name: 'project-two-renamed' },
        relationships: { 'tag-bindings': { data: [binding('foo', 'bar')] } },
      },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data.attributes.name).toBe('project-two-renamed');
    expect(pairs((await call('GET', `/projects/${id}/tag-bindings`)).body.data)).toEqual([['foo', 'bar']]);
    const cleared = await call('PATCH', `/projects/${id}`, { data: { type: 'projects', relationships: { 'tag-bindings': { data: [] } } } });
    expect(cleared.status).toBe(200);
    expect((await call('GET', `/projects/${id}/tag-bindings`)).body.data).toEqual([]);
  });

  it('projects carry their bindings as relationships, include=effective_tag_bindings adds them, filter[tagged] lists by them', async () => {
    const shown = await call('GET', `/projects/${projectId}?include=effective_tag_bindings`);
    expect(shown.status).toBe(200);
    const ids = shown.body.data.relationships['effective-tag-bindings'].data.map((entry: { id: string }) => entry.id);
    expect(shown.body.data.relationships['tag-bindings'].data.map((entry: { id: string }) => entry.id)).toEqual(ids);
    expect(pairs(shown.body.included)).toEqual([['team', 'infra']]);
    expect(shown.body.included[0].type).toBe('effective-tag-bindings');
    expect((await call('GET', `/projects/${projectId}`)).body.included).toBeUndefined();
    expect((await call('GET', `/projects/${projectId}?include=nonsense`)).status).toBe(400);
    await call('POST', `/organizations/${ORG}/projects`, {
      data: { type: 'projects', attributes: { name: 'team-apps' }, relationships: { 'tag-bindings': { data: [binding('team', 'apps')] } } },
    });
    const projectNames = async (query: string) =>
      ((await call('GET', `/organizations/${ORG}/projects?${query}`)).body.data as { attributes: { name: string } }[])
        .map((entry) => entry.attributes.name)
        .sort();
    expect(await projectNames('filter[tagged][0][key]=team&filter[tagged][0][value]=')).toEqual(['tagged-project', 'team-apps']);
    expect(await projectNames('filter[tagged][0][key]=team&filter[tagged][0][value]=apps')).toEqual(['team-apps']);
    const listed = await call('GET', `/organizations/${ORG}/projects?filter[tagged][0][key]=team&include=effective_tag_bindings`);
    expect(listed.body.included).toHaveLength(2);
  });

  it('filter[tagged] matches own and inherited bindings; several conditions are ANDed; a key alone matches any value', async () => {
    await createWorkspace('f-one', [binding('key1', 'value1'), binding('key2', 'value2a')]);
    await createWorkspace('f-two', [binding('key2', 'value2b'), binding('key3', 'value3')]);
    await createWorkspace('f-three', [binding('key3', 'other')], projectId);
    const tagged = (...conditions: [string, string][]) =>
      conditions
        .flatMap(([key, value], index) => [`filter[tagged][${index}][key]=${key}`, `filter[tagged][${index}][value]=${value}`])
        .join('&');
    expect(await listNames(tagged(['key1', '']))).toEqual(['f-one']);
    expect(await listNames(tagged(['key2', '']))).toEqual(['f-one', 'f-two']);
    expect(await listNames(tagged(['key2', 'value2b']))).toEqual(['f-two']);
    expect(await listNames(tagged(['key2', ''], ['key3', 'value3']))).toEqual(['f-two']);
    expect(await listNames(tagged(['key1', ''], ['key3', '']))).toEqual([]);
    // Inherited from the project, and not where the workspace overrides the key.
    const inTeam = await listNames(`${tagged(['team', 'infra'])}&page[size]=100`);
    expect(inTeam).toContain('f-three');
    expect(inTeam).toContain('inherits');
    expect(await listNames(tagged(['team', 'apps']))).toEqual([]);
    // The total counts the matches.
    const listed = await call('GET', `/organizations/${ORG}/workspaces?${tagged(['key2', ''])}`);
    expect(listed.body.meta.pagination['total-count']).toBe(2);
    // A value without a key is the caller's mistake.
    const keyless = await call('GET', `/organizations/${ORG}/workspaces?filter[tagged][0][value]=x`);
    expect(keyless.status).toBe(400);
    expect(keyless.body.errors[0].source.parameter).toBe('filter[tagged][0][key]');
  });

  it('bindings the default project carries reach workspaces without a project id', async () => {
    const projects = await call('GET', `/organizations/${ORG}/projects?filter[names]=Default Project`);
    const defaultId = projects.body.data[0].id;
    await createWorkspace('in-default');
    await call('PATCH', `/projects/${defaultId}/tag-bindings`, { data: [binding('tier', 'base')] });
    expect(await listNames(`filter[tagged][0][key]=tier&filter[tagged][0][value]=base&page[size]=100`)).toContain('in-default');
    await call('PATCH', `/projects/${defaultId}`, { data: { type: 'projects', relationships: { 'tag-bindings': { data: [] } } } });
    expect(await listNames('filter[tagged][0][key]=tier')).toEqual([]);
  });

  it.each([
    ['a reserved key', [binding('hc:owner', 'x')], '/data/0/attributes/key', /reserved/],
    ['an empty key', [binding('', 'x')], '/data/0/attributes/key', /key is required/],
    ['a key with spaces', [binding('bad key', 'x')], '/data/0/attributes/key', /letters, numbers/],
    ['a key over 128 characters', [binding('k'.repeat(129), 'x')], '/data/0/attributes/key', /128/],
    ['a value over 256 characters', [binding('k', 'v'.repeat(257))], '/data/0/attributes/value', /256/],
    ['a value with a newline', [binding('k', 'a\nb')], '/data/0/attributes/value', /letters, numbers/],
    ['a key given twice', [binding('k', '1'), binding('k', '2')], '/data/1/attributes/key', /more than once/],
    ['the wrong type', [{ type: 'tags', attributes: { key: 'k' } }], '/data/0/type', /tag-bindings/],
  ])('refuses %s with a 422 and changes nothing', async (_label, data, pointer, detail) => {
    const id = (await createWorkspace(`refuse-${Math.random().toString(36).slice(2, 8)}`, [binding('keep', 'me')])).body.data.id;
    const refused = await call('PATCH', `/workspaces/${id}/tag-bindings`, { data });
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0].source.pointer).toBe(pointer);
    expect(refused.body.errors[0].detail).toMatch(detail);
    expect(pairs((await call('GET', `/workspaces/${id}/tag-bindings`)).body.data)).toEqual([['keep', 'me']]);
  });

  it('refuses more than 10 bindings per resource, on PATCH and on create, changing nothing', async () => {
    const id = (await createWorkspace('limited', [binding('keep', 'me')])).body.data.id;
    const many = Array.from({ length: 10 }, (_, index) => binding(`k${index}`));
    const refused = await call('PATCH', `/workspaces/${id}/tag-bindings`, { data: many });
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0].detail).toMatch(/cannot exceed 10 bindings per resource/);
    expect(pairs((await call('GET', `/workspaces/${id}/tag-bindings`)).body.data)).toEqual([['keep', 'me']]);
    const create = await createWorkspace('too-many', [...many, binding('eleven')]);
    expect(create.status).toBe(422);
    expect(create.body.errors[0].source.pointer).toBe('/data/relationships/tag-bindings/data');
    expect((await call('GET', `/organizations/${ORG}/workspaces/too-many`)).status).toBe(404);
    const badCreate = await createWorkspace('bad-binding', [binding('hc:x')]);
    expect(badCreate.status).toBe(422);
    expect(badCreate.body.errors[0].source.pointer).toBe('/data/relationships/tag-bindings/data/0/attributes/key');
  });

  it('readers see bindings but cannot write them; outsiders see nothing', async () => {
    const { id } = await workspaceWithLevels(world, 'guarded');
    await call('PATCH', `/workspaces/${id}/tag-bindings`, { data: [binding('env', 'prod')] });
    const read = await call('GET', `/workspaces/${id}/tag-bindings`, undefined, tokenOf('wsread'));
    expect(read.status).toBe(200);
    expect(pairs(read.body.data)).toEqual([['env', 'prod']]);
    for (const role of ['wsread', 'wswrite', 'reader'] as const) {
      const written = await call('PATCH', `/workspaces/${id}/tag-bindings`, { data: [binding('env', 'dev')] }, tokenOf(role));
      expect(written.status).toBe(404);
      const updated = await call(
        'PATCH',
        `/workspaces/${id}`,
        { data: { type: 'workspaces', relationships: { 'tag-bindings': { data: [] } } } },
        tokenOf(role),
      );
      expect(updated.status).toBe(404);
    }
    const admin = await call('PATCH', `/workspaces/${id}/tag-bindings`, { data: [binding('env', 'dev')] }, tokenOf('wsadmin'));
    expect(admin.status).toBe(200);
    expect((await call('GET', `/workspaces/${id}/tag-bindings`, undefined, tokenOf('outsider'))).status).toBe(404);
    expect((await call('PATCH', `/projects/${projectId}/tag-bindings`, { data: [binding('x')] }, tokenOf('reader'))).status).toBe(404);
    expect((await call('GET', `/projects/${projectId}/tag-bindings`, undefined, tokenOf('reader'))).status).toBe(200);
    expect(pairs((await call('GET', `/workspaces/${id}/tag-bindings`)).body.data)).toEqual([['env', 'dev']]);
  });

  it('answers 4xx, never 5xx, to malformed bodies', async () => {
    const id = (await createWorkspace('malformed')).body.data.id;
    for (const body of [{}, { data: {} }, { data: [null] }, { data: [{ type: 'tag-bindings', attributes: { key: 5 } }] }, { data: 'x' }]) {
      const answer = await call('PATCH', `/workspaces/${id}/tag-bindings`, body);
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
    }
    for (const relationship of [{ data: 'x' }, { data: [{ type: 'tag-bindings' }] }, { data: [{}] }]) {
      const answer = await call('PATCH', `/workspaces/${id}`, {
        data: { type: 'workspaces', relationships: { 'tag-bindings': relationship } },
      });
      expect(answer.status).toBe(422);
    }
    expect((await call('GET', '/workspaces/ws-missing/tag-bindings')).status).toBe(404);
    expect((await call('GET', '/projects/prj-missing/effective-tag-bindings')).status).toBe(404);
  });
});
