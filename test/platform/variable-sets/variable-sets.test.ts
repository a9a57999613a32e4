import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { effectiveVariables } from '../../../src/platform/variable-sets/precedence.js';
import { platform } from '../../helpers/app.js';
import { ORG, OTHER_ORG, startWorld, type World } from '../workspaces/world.js';

const setBody = (attributes: Record<string, unknown>, relationships: Record<string, unknown> = {}) => ({
  data: { type: 'varsets', attributes, relationships },
});
const varBody = (attributes: Record<string, unknown>) => ({ data: { type: 'vars', attributes } });

describe('variable sets', () => {
  let world: World;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    world = await startWorld();
    for (const name of ['alpha', 'beta']) {
      const created = await platform(world.server, 'POST', `/organizations/${ORG}/workspaces`, {
        body: { data: { type: 'workspaces', attributes: { name: `vs-${name}` } } },
      });
      ids[name] = created.body.data.id;
    }
    const project = await platform(world.server, 'POST', `/organizations/${ORG}/projects`, {
      body: { data: { type: 'projects', attributes: { name: 'vs-project' } } },
    });
    ids.project = project.body.data.id;
    await platform(world.server, 'PATCH', `/workspaces/${ids.beta}`, {
      body: { data: { type: 'workspaces', relationships: { project: { data: { type: 'projects', id: ids.project } } } } },
    });
  });
  afterAll(() => world.close());

  const createSet = (attributes: Record<string, unknown>, relationships: Record<string, unknown> = {}, token?: string) =>
    platform(world.server, 'POST', `/organizations/${ORG}/varsets`, { body: setBody(attributes, relationships), token });
  const addVar = (setId: string, attributes: Record<string, unknown>) =>
    platform(world.server, 'POST', `/varsets/${setId}/relationships/vars`, { body: varBody(attributes) });

  it('creates, lists, shows, updates and deletes a set, with its variables and workspaces', async () => {
    const created = await createSet(
      { name: 'shared', description: 'common settings' },
      { workspaces: { data: [{ type: 'workspaces', id: ids.alpha }] } },
    );
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    expect(id).toMatch(/^varset-/);
    expect(created.body.data).toMatchObject({
      type: 'varsets',
      attributes: { name: 'shared', description: 'common settings', global: false, priority: false, 'workspace-count': 1 },
      relationships: { workspaces: { data: [{ id: ids.alpha, type: 'workspaces' }] } },
    });
    const variable = await addVar(id, { key: 'region', value: 'eu', category: 'terraform' });
    expect(variable.status).toBe(201);
    expect(variable.body.data.relationships.configurable.data).toEqual({ id, type: 'varsets' });
    const secret = await addVar(id, { key: 'TOKEN', value: 's3cret', category: 'env', sensitive: true });
    expect(secret.body.data.attributes.value).toBeNull();
    expect((await addVar(id, { key: 'region', value: 'again', category: 'terraform' })).status).toBe(422);
    expect((await addVar(id, { key: 'bad key', category: 'env' })).status).toBe(422);

    const listed = await platform(world.server, 'GET', `/varsets/${id}/relationships/vars`);
    expect(listed.body.data.map((item: { attributes: { key: string } }) => item.attributes.key)).toEqual(['region', 'TOKEN']);
    const patchedVar = await platform(world.server, 'PATCH', `/varsets/${id}/relationships/vars/${variable.body.data.id}`, {
      body: varBody({ value: 'us' }),
    });
    expect(patchedVar.body.data.attributes.value).toBe('us');

    const forWorkspace = await platform(world.server, 'GET', `/workspaces/${ids.alpha}/varsets`);
    expect(forWorkspace.body.data.map((item: { id: string }) => item.id)).toContain(id);
    expect(
      (await platform(world.server, 'GET', `/organizations/${ORG}/varsets?q=shar`)).body.data.map((s: { id: string }) => s.id),
    ).toEqual([id]);

    const renamed = await platform(world.server, 'PATCH', `/varsets/${id}`, { body: setBody({ name: 'shared-2', priority: true }) });
    expect(renamed.body.data.attributes).toMatchObject({ name: 'shared-2', priority: true, 'var-count': 2 });
    expect(
      (
        await platform(world.server, 'DELETE', `/varsets/${id}/relationships/workspaces`, {
          body: { data: [{ type: 'workspaces', id: ids.alpha }] },
        })
      ).status,
    ).toBe(204);
    expect((await platform(world.server, 'GET', `/varsets/${id}`)).body.data.attributes['workspace-count']).toBe(0);
    expect((await platform(world.server, 'DELETE', `/varsets/${id}`)).status).toBe(204);
    expect((await platform(world.server, 'GET', `/varsets/${id}`)).status).toBe(404);
    expect((await platform(world.server, 'GET', `/varsets/${id}/relationships/vars`)).status).toBe(404);
  });

  it('refuses bad names, foreign workspaces, global sets with members, and non-managers, changing nothing', async () => {
    expect((await createSet({ name: '' })).status).toBe(422);
    expect((await createSet({ name: 'dup' })).status).toBe(201);
    expect((await createSet({ name: 'dup' })).status).toBe(422);
    const foreign = await platform(world.server, 'POST', `/organizations/${OTHER_ORG}/workspaces`, {
      body: { data: { type: 'workspaces', attributes: { name: 'vs-foreign' } } },
    });
    expect(
      (await createSet({ name: 'foreign' }, { workspaces: { data: [{ type: 'workspaces', id: foreign.body.data.id }] } })).status,
    ).toBe(422);
    expect(
      (await createSet({ name: 'global-with', global: true }, { workspaces: { data: [{ type: 'workspaces', id: ids.alpha }] } })).status,
    ).toBe(422);
    expect((await createSet({ name: 'by-member' }, {}, world.principals.member)).status).toBe(404);
    const names = (await platform(world.server, 'GET', `/organizations/${ORG}/varsets?page[size]=100`)).body.data.map(
      (set: { attributes: { name: string } }) => set.attributes.name,
    );
    expect(names).not.toContain('foreign');
    expect(names).not.toContain('global-with');
    expect(names).not.toContain('by-member');
    expect((await platform(world.server, 'GET', `/organizations/${ORG}/varsets`, { token: world.principals.member })).status).toBe(200);
  });

  it('gives a workspace its variables by precedence: priority sets, own variables, then workspace, project and global sets', async () => {
    const global = (await createSet({ name: 'a-global', global: true })).body.data.id as string;
    const byProject = (await createSet({ name: 'b-project' }, { projects: { data: [{ type: 'projects', id: ids.project }] } })).body.data
      .id as string;
    const direct = (await createSet({ name: 'c-direct' }, { workspaces: { data: [{ type: 'workspaces', id: ids.beta }] } })).body.data
      .id as string;
    const priority = (await createSet({ name: 'z-priority', global: true, priority: true })).body.data.id as string;
    for (const [setId, value] of [
      [global, 'global'],
      [byProject, 'project'],
      [direct, 'direct'],
    ] as const) {
      await addVar(setId, { key: 'size', value, category: 'terraform' });
      await addVar(setId, { key: `only_${value}`, value, category: 'terraform' });
    }
    await addVar(global, { key: 'zone', value: 'global', category: 'terraform' });
    await addVar(byProject, { key: 'zone', value: 'project', category: 'terraform' });
    await addVar(priority, { key: 'locked', value: 'priority', category: 'terraform' });
    await platform(world.server, 'POST', `/workspaces/${ids.beta}/vars`, {
      body: varBody({ key: 'locked', value: 'own', category: 'terraform' }),
    });
    await platform(world.server, 'POST', `/workspaces/${ids.beta}/vars`, {
      body: varBody({ key: 'size', value: 'own', category: 'terraform' }),
    });
    await platform(world.server, 'POST', `/workspaces/${ids.beta}/vars`, {
      body: varBody({ key: 'size', value: 'env-own', category: 'env' }),
    });

    const effective = effectiveVariables(world.server.app.runtime.store.db, ids.beta as string);
    const value = (key: string, category = 'terraform') =>
      effective.find((variable) => variable.key === key && variable.category === category)?.value;
    expect(value('locked')).toBe('priority');
    expect(value('size')).toBe('own');
    expect(value('size', 'env')).toBe('env-own');
    expect(value('zone')).toBe('project');
    expect(value('only_direct')).toBe('direct');
    expect(value('only_global')).toBe('global');
    expect(effective.filter((variable) => variable.key === 'size')).toHaveLength(2);

    // alpha is in the default project: only the global sets reach it.
    const alpha = effectiveVariables(world.server.app.runtime.store.db, ids.alpha as string);
    expect(alpha.find((variable) => variable.key === 'zone')?.value).toBe('global');
    expect(alpha.find((variable) => variable.key === 'only_project')).toBeUndefined();
    const reaching = await platform(world.server, 'GET', `/workspaces/${ids.alpha}/varsets?page[size]=100`);
    expect(reaching.body.data.map((set: { id: string }) => set.id).sort()).toEqual([global, priority].sort());
  });
});
