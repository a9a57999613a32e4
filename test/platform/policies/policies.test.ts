import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform } from '../../helpers/app.js';
import { ORG, OTHER_ORG, startWorld, tokenOf, type World } from '../workspaces/world.js';

/** The bodies go-tfe sends: `PolicyCreateOptions` and `PolicySetCreateOptions` marshalled by jsonapi. */
const policyBody = (attributes: Record<string, unknown>) => ({ data: { type: 'policies', attributes } });
const setBody = (
  attributes: Record<string, unknown>,
  relationships: Record<string, string[]> = {},
  types: Record<string, string> = {},
) => ({
  data: {
    type: 'policy-sets',
    attributes,
    relationships: Object.fromEntries(
      Object.entries(relationships).map(([name, ids]) => [
        name,
        { data: ids.map((id) => ({ type: types[name] ?? (name === 'workspace-exclusions' ? 'workspaces' : name), id })) },
      ]),
    ),
  },
});

describe('policies and policy sets', () => {
  let world: World;
  let policyManager: string;
  let workspace: string;
  let otherWorkspace: string;
  const call = (method: string, path: string, body?: unknown, token?: string) =>
    platform(world.server, method, path, { ...(body === undefined ? {} : { body }), ...(token ? { token } : {}) });
  const expect422 = (response: { status: number; body: { errors: { source?: { pointer?: string } }[] } }, pointer: string) => {
    expect(response.status).toBe(422);
    expect(response.body.errors[0]?.source?.pointer).toBe(pointer);
  };

  beforeAll(async () => {
    world = await startWorld();
    const team = await call('POST', `/organizations/${ORG}/teams`, {
      data: { type: 'teams', attributes: { name: 'policy-managers', 'organization-access': { 'manage-policies': true } } },
    });
    expect(team.status).toBe(201);
    const token = await call('POST', `/teams/${team.body.data.id}/authentication-token`, { data: { type: 'authentication-tokens' } });
    expect(token.status).toBe(201);
    policyManager = token.body.data.attributes.token;
    workspace = (await call('POST', `/organizations/${ORG}/workspaces`, { data: { type: 'workspaces', attributes: { name: 'guarded' } } }))
      .body.data.id;
    otherWorkspace = (
      await call('POST', `/organizations/${OTHER_ORG}/workspaces`, { data: { type: 'workspaces', attributes: { name: 'foreign' } } })
    ).body.data.id;
  });
  afterAll(async () => world.close());

  it('creates a sentinel policy with its level, reads it back and lists it', async () => {
    const created = await call(
      'POST',
      `/organizations/${ORG}/policies`,
      policyBody({ name: 'no-public-buckets', 'enforcement-level': 'soft-mandatory' }),
      policyManager,
    );
    expect(created.status).toBe(201);
    const { data } = created.body;
    expect(data.id).toMatch(/^pol-/);
    expect(data.attributes).toMatchObject({
      name: 'no-public-buckets',
      kind: 'sentinel',
      query: null,
      'enforcement-level': 'soft-mandatory',
      enforce: [{ path: 'no-public-buckets.sentinel', mode: 'soft-mandatory' }],
      'policy-set-count': 0,
    });
    expect(data.relationships.organization.data).toEqual({ type: 'organizations', id: ORG });
    const read = await call('GET', `/policies/${data.id}`, undefined, tokenOf('reader'));
    expect(read.body.data).toEqual(data);
    const listed = await call('GET', `/organizations/${ORG}/policies?search[name]=public`);
    expect(listed.body.data.map((p: { id: string }) => p.id)).toEqual([data.id]);
    expect(listed.body.meta.pagination['total-count']).toBe(1);
  });

  it('takes the level from the deprecated enforce attribute and an opa policy with its query', async () => {
    const legacy = await call(
      'POST',
      `/organizations/${ORG}/policies`,
      policyBody({ name: 'legacy', enforce: [{ path: 'legacy.sentinel', mode: 'hard-mandatory' }] }),
    );
    expect(legacy.status).toBe(201);
    expect(legacy.body.data.attributes['enforcement-level']).toBe('hard-mandatory');
    const opa = await call(
      'POST',
      `/organizations/${ORG}/policies`,
      policyBody({ name: 'opa-one', kind: 'opa', query: 'data.terraform.deny', 'enforcement-level': 'mandatory' }),
    );
    expect(opa.status).toBe(201);
    expect(opa.body.data.attributes).toMatchObject({ kind: 'opa', query: 'data.terraform.deny', 'enforcement-level': 'mandatory' });
    const onlyOpa = await call('GET', `/organizations/${ORG}/policies?filter[kind]=opa`);
    expect(onlyOpa.body.data.map((p: { attributes: { name: string } }) => p.attributes.name)).toEqual(['opa-one']);
  });

  it('answers every bad policy body with a 422 at its pointer and creates nothing', async () => {
    const post = (attributes: Record<string, unknown>) => call('POST', `/organizations/${ORG}/policies`, policyBody(attributes));
    expect422(await post({ 'enforcement-level': 'advisory' }), '/data/attributes/name');
    expect422(await post({ name: 'has space', 'enforcement-level': 'advisory' }), '/data/attributes/name');
    expect422(await post({ name: 'nolevel' }), '/data/attributes/enforcement-level');
    expect422(await post({ name: 'badlevel', 'enforcement-level': 'mandatory' }), '/data/attributes/enforcement-level');
    expect422(
      await post({ name: 'opa-soft', kind: 'opa', query: 'data.x', 'enforcement-level': 'soft-mandatory' }),
      '/data/attributes/enforcement-level',
    );
    expect422(await post({ name: 'opa-noquery', kind: 'opa', 'enforcement-level': 'mandatory' }), '/data/attributes/query');
    expect422(await post({ name: 'badkind', kind: 'rego', 'enforcement-level': 'advisory' }), '/data/attributes/kind');
    expect422(await post({ name: 'no-public-buckets', 'enforcement-level': 'advisory' }), '/data/attributes/name');
    expect422(await post({ name: 42, 'enforcement-level': 'advisory' }), '/data/attributes/name');
    const listed = await call('GET', `/organizations/${ORG}/policies`);
    expect(listed.body.data.map((p: { attributes: { name: string } }) => p.attributes.name).sort()).toEqual([
      'legacy',
      'no-public-buckets',
      'opa-one',
    ]);
  });

  it('updates the level and description, uploads and downloads the source; kind is fixed', async () => {
    const created = await call('POST', `/organizations/${ORG}/policies`, policyBody({ name: 'editable', 'enforcement-level': 'advisory' }));
    const id = created.body.data.id;
    const patched = await call('PATCH', `/policies/${id}`, {
      data: { type: 'policies', attributes: { description: 'tags', 'enforcement-level': 'hard-mandatory' } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data.attributes).toMatchObject({ description: 'tags', 'enforcement-level': 'hard-mandatory' });
    expect422(await call('PATCH', `/policies/${id}`, { data: { type: 'policies', attributes: { kind: 'opa' } } }), '/data/attributes/kind');
    expect((await call('GET', `/policies/${id}/download`)).status).toBe(404);
    const source = 'main = rule { true }\n';
    const uploaded = await fetch(`${world.server.baseUrl}/api/v2/policies/${id}/upload`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${policyManager}`, 'content-type': 'application/octet-stream' },
      body: source,
    });
    expect(uploaded.status).toBe(204);
    const downloaded = await fetch(`${world.server.baseUrl}/api/v2/policies/${id}/download`, {
      headers: { authorization: `Bearer ${tokenOf('owner')}` },
    });
    expect(downloaded.status).toBe(200);
    expect(await downloaded.text()).toBe(source);
  });

  it('lets members read but only Manage Policies write; other organizations see nothing', async () => {
    const listed = await call('GET', `/organizations/${ORG}/policies`, undefined, tokenOf('member'));
    expect(listed.status).toBe(200);
    const id = listed.body.data[0].id;
    expect(
      (
        await call(
          'POST',
          `/organizations/${ORG}/policies`,
          policyBody({ name: 'sneaky', 'enforcement-level': 'advisory' }),
          tokenOf('manager'),
        )
      ).status,
    ).toBe(404);
    expect(
      (await call('PATCH', `/policies/${id}`, { data: { type: 'policies', attributes: { description: 'x' } } }, tokenOf('member'))).status,
    ).toBe(404);
    expect((await call('DELETE', `/policies/${id}`, undefined, tokenOf('reader'))).status).toBe(404);
    expect((await call('GET', `/policies/${id}`, undefined, tokenOf('outsider'))).status).toBe(404);
    expect((await call('GET', `/policies/${id}`)).status).toBe(200);
  });

  it('creates a policy set with policies and workspaces, and counts them on both sides', async () => {
    const policyId = (await call('GET', `/organizations/${ORG}/policies?search[name]=legacy`)).body.data[0].id;
    const created = await call(
      'POST',
      `/organizations/${ORG}/policy-sets`,
      setBody(
        { name: 'baseline', description: 'core rules', 'policy-tool-version': '0.24.0', 'agent-enabled': true },
        { policies: [policyId], workspaces: [workspace] },
      ),
      policyManager,
    );
    expect(created.status).toBe(201);
    const { data } = created.body;
    expect(data.id).toMatch(/^polset-/);
    expect(data.attributes).toMatchObject({
      name: 'baseline',
      description: 'core rules',
      kind: 'sentinel',
      global: false,
      overridable: false,
      'agent-enabled': true,
      'policy-tool-version': '0.24.0',
      'policy-count': 1,
      'workspace-count': 1,
      'project-count': 0,
    });
    expect(data.relationships.policies.data).toEqual([{ type: 'policies', id: policyId }]);
    expect(data.relationships.workspaces.data).toEqual([{ type: 'workspaces', id: workspace }]);
    expect((await call('GET', `/policy-sets/${data.id}`)).body.data).toEqual(data);
    const policy = await call('GET', `/policies/${policyId}`);
    expect(policy.body.data.attributes['policy-set-count']).toBe(1);
    expect(policy.body.data.relationships['policy-sets'].data).toEqual([{ type: 'policy-sets', id: data.id }]);
  });

  it('adds and removes members through the relationship endpoints', async () => {
    const set = (await call('POST', `/organizations/${ORG}/policy-sets`, setBody({ name: 'attachable' }))).body.data;
    const project = (
      await call('POST', `/organizations/${ORG}/projects`, { data: { type: 'projects', attributes: { name: 'guarded-project' } } })
    ).body.data.id;
    const rel = (kind: string, method: string, type: string, ids: string[]) =>
      call(method, `/policy-sets/${set.id}/relationships/${kind}`, { data: ids.map((id) => ({ type, id })) });
    expect((await rel('workspaces', 'POST', 'workspaces', [workspace])).status).toBe(204);
    expect((await rel('projects', 'POST', 'projects', [project])).status).toBe(204);
    let read = (await call('GET', `/policy-sets/${set.id}`)).body.data;
    expect(read.attributes['workspace-count']).toBe(1);
    expect(read.relationships.projects.data).toEqual([{ type: 'projects', id: project }]);
    expect((await rel('workspaces', 'DELETE', 'workspaces', [workspace])).status).toBe(204);
    read = (await call('GET', `/policy-sets/${set.id}`)).body.data;
    expect(read.relationships.workspaces.data).toEqual([]);
    const foreign = await rel('workspaces', 'POST', 'workspaces', [workspace, otherWorkspace]);
    expect422(foreign, '/data/1');
    read = (await call('GET', `/policy-sets/${set.id}`)).body.data;
    expect(read.relationships.workspaces.data).toEqual([]);
    const opaPolicy = (await call('GET', `/organizations/${ORG}/policies?filter[kind]=opa`)).body.data[0].id;
    expect422(await rel('policies', 'POST', 'policies', [opaPolicy]), '/data/0');
  });

  it('keeps global sets off workspaces but lets them exclude some; answers bad set bodies with 422s', async () => {
    const post = (attributes: Record<string, unknown>, relationships: Record<string, string[]> = {}) =>
      call('POST', `/organizations/${ORG}/policy-sets`, setBody(attributes, relationships));
    expect422(await post({ name: 'g1', global: true }, { workspaces: [workspace] }), '/data/relationships/workspaces');
    const global = await post({ name: 'everywhere', global: true }, { 'workspace-exclusions': [workspace] });
    expect(global.status).toBe(201);
    expect(global.body.data.relationships['workspace-exclusions'].data).toEqual([{ type: 'workspaces', id: workspace }]);
    expect422(await post({ name: 'baseline' }), '/data/attributes/name');
    expect422(await post({}), '/data/attributes/name');
    expect422(await post({ name: 'ovr', overridable: true }), '/data/attributes/overridable');
    expect422(await post({ name: 'vcs', 'vcs-repo': { identifier: 'a/b' } }), '/data/attributes/vcs-repo');
    expect422(await post({ name: 'foreign' }, { workspaces: [otherWorkspace] }), '/data/relationships/workspaces/data/0');
    expect422(await post({ name: 'badglobal', global: 'yes' }), '/data/attributes/global');
    const names = (await call('GET', `/organizations/${ORG}/policy-sets`)).body.data.map(
      (s: { attributes: { name: string } }) => s.attributes.name,
    );
    expect(names.sort()).toEqual(['attachable', 'baseline', 'everywhere']);
    const opa = await post({ name: 'opa-set', kind: 'opa', overridable: true });
    expect(opa.status).toBe(201);
    expect(opa.body.data.attributes).toMatchObject({ kind: 'opa', overridable: true });
  });

  it('updates a set (a named relationship replaces its members) and deletes it', async () => {
    const set = (await call('POST', `/organizations/${ORG}/policy-sets`, setBody({ name: 'changing' }, { workspaces: [workspace] }))).body
      .data;
    const patched = await call('PATCH', `/policy-sets/${set.id}`, setBody({ name: 'changed', description: 'd' }, { workspaces: [] }));
    expect(patched.status).toBe(200);
    expect(patched.body.data.attributes).toMatchObject({ name: 'changed', description: 'd', 'workspace-count': 0 });
    expect422(await call('PATCH', `/policy-sets/${set.id}`, setBody({ kind: 'opa' })), '/data/attributes/kind');
    expect((await call('PATCH', `/policy-sets/${set.id}`, setBody({ name: 'x' }), tokenOf('member'))).status).toBe(404);
    expect((await call('DELETE', `/policy-sets/${set.id}`, undefined, policyManager)).status).toBe(204);
    expect((await call('GET', `/policy-sets/${set.id}`)).status).toBe(404);
  });
});
