import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { platform } from '../../helpers/app.js';
import { ORG, startWorld, workspaceWithLevels, type World } from '../workspaces/world.js';

const varBody = (attributes: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  data: { type: 'vars', attributes, ...extra },
});

describe('workspace variables', () => {
  let world: World;
  let workspace: string;
  let name: string;
  let counter = 0;
  const path = (suffix = '') => `/workspaces/${workspace}/vars${suffix}`;
  const create = (attributes: Record<string, unknown>, token?: string) =>
    platform(world.server, 'POST', path(), { body: varBody(attributes), ...(token ? { token } : {}) });

  beforeAll(async () => {
    world = await startWorld();
  });
  afterAll(() => world.close());
  beforeEach(async () => {
    name = `vars-${++counter}`;
    workspace = (await workspaceWithLevels(world, name)).id;
  });

  it('refuses a description over 512 characters with the real text, and versions a PATCH that sets nothing', async () => {
    const long = await create({ key: 'long', value: 'v', category: 'terraform', description: 'd'.repeat(513) });
    expect(long.status).toBe(422);
    expect(long.body.errors[0]).toMatchObject({
      title: 'invalid attribute',
      detail: 'Description is too long (maximum is 512 characters)',
      source: { pointer: '/data/attributes/description' },
    });
    expect((await platform(world.server, 'GET', path())).body.data).toEqual([]);

    const created = await create({ key: 'edge', value: 'v', category: 'terraform', description: 'd'.repeat(512) });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const tooLong = await platform(world.server, 'PATCH', path(`/${id}`), { body: varBody({ description: 'e'.repeat(600) }, { id }) });
    expect(tooLong.status).toBe(422);
    const empty = await platform(world.server, 'PATCH', path(`/${id}`), { body: varBody({}, { id }) });
    expect(empty.status).toBe(200);
    const { 'version-id': version, ...rest } = created.body.data.attributes;
    expect(empty.body.data.attributes['version-id']).not.toBe(version);
    expect(empty.body.data.attributes).toMatchObject(rest);
    const shown = await platform(world.server, 'GET', path(`/${id}`));
    expect(shown.body.data.attributes['version-id']).toBe(empty.body.data.attributes['version-id']);
  });

  it('creates, lists, shows, updates and deletes a variable', async () => {
    const created = await create({ key: 'region', value: 'eu-west-1', category: 'terraform', description: 'where' });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    expect(id).toMatch(/^var-/);
    expect(created.body.data.attributes).toMatchObject({
      key: 'region',
      value: 'eu-west-1',
      category: 'terraform',
      hcl: false,
      sensitive: false,
      description: 'where',
    });
    expect(created.body.data.relationships.configurable.data).toEqual({ id: workspace, type: 'workspaces' });
    const shownWorkspace = await platform(world.server, 'GET', `/workspaces/${workspace}`);
    expect(shownWorkspace.body.data.relationships.vars.data).toEqual([{ id: created.body.data.id, type: 'vars' }]);
    const version = created.body.data.attributes['version-id'] as string;

    const list = await platform(world.server, 'GET', path());
    expect(list.body.data.map((item: { id: string }) => item.id)).toEqual([id]);
    expect((await platform(world.server, 'GET', path(`/${id}`))).body.data).toEqual(created.body.data);

    const updated = await platform(world.server, 'PATCH', path(`/${id}`), { body: varBody({ value: 'us-east-1' }, { id }) });
    expect(updated.status).toBe(200);
    expect(updated.body.data.attributes).toMatchObject({ key: 'region', value: 'us-east-1', description: 'where' });
    expect(updated.body.data.attributes['version-id']).not.toBe(version);

    expect((await platform(world.server, 'DELETE', path(`/${id}`))).status).toBe(204);
    expect((await platform(world.server, 'GET', path(`/${id}`))).status).toBe(404);
    expect((await platform(world.server, 'DELETE', path(`/${id}`))).status).toBe(404);
  });

  it('never returns a sensitive value, and refuses to unset sensitive', async () => {
    const created = await create({ key: 'TOKEN', value: 's3cret', category: 'env', sensitive: true });
    expect(created.status).toBe(201);
    expect(created.body.data.attributes).toMatchObject({ value: null, sensitive: true });
    const id = created.body.data.id as string;
    const list = await platform(world.server, 'GET', path());
    expect(JSON.stringify(list.body)).not.toContain('s3cret');
    const unset = await platform(world.server, 'PATCH', path(`/${id}`), { body: varBody({ sensitive: false }) });
    expect(unset.status).toBe(422);
    const changed = await platform(world.server, 'PATCH', path(`/${id}`), { body: varBody({ value: 'n3w' }) });
    expect(changed.body.data.attributes.value).toBeNull();
    const plain = (await create({ key: 'later', value: 'visible', category: 'terraform' })).body.data.id as string;
    const madeSensitive = await platform(world.server, 'PATCH', path(`/${plain}`), { body: varBody({ sensitive: true }) });
    expect(madeSensitive.body.data.attributes).toMatchObject({ value: null, sensitive: true });
  });

  it('keeps keys unique per category and validates with 422s, creating nothing', async () => {
    expect((await create({ key: 'name', value: 'a', category: 'terraform' })).status).toBe(201);
    expect((await create({ key: 'name', value: 'b', category: 'terraform' })).status).toBe(422);
    expect((await create({ key: 'name', value: 'c', category: 'env' })).status).toBe(201);
    expect((await create({ key: '', category: 'terraform' })).status).toBe(422);
    expect((await create({ key: 'no category' })).status).toBe(422);
    expect((await create({ key: 'x', category: 'secret' })).status).toBe(422);
    expect((await create({ key: 'has space', category: 'env' })).status).toBe(422);
    // Terraform keys are not HCL identifiers necessarily: the Go client's tests use UUIDs.
    const uuidKey = await create({ key: '6f1c8a0e-1111-2222-3333-444455556666', value: 'v', category: 'terraform' });
    expect(uuidKey.status).toBe(201);
    expect(uuidKey.body.data.attributes.key).toBe('6f1c8a0e-1111-2222-3333-444455556666');
    expect((await create({ key: '   ', category: 'terraform' })).status).toBe(422);
    expect((await create({ key: 'HCL_ENV', category: 'env', hcl: true })).status).toBe(422);
    expect((await create({ key: 'flag', category: 'terraform', hcl: 'yes' })).status).toBe(422);
    expect((await platform(world.server, 'GET', path())).body.data).toHaveLength(3);
    const hcl = await create({ key: 'tags', value: '{ a = 1 }', category: 'terraform', hcl: true });
    expect(hcl.body.data.attributes.hcl).toBe(true);
  });

  it('reads with read access, writes with write access; others get 404', async () => {
    const id = (await create({ key: 'shared', value: 'v', category: 'terraform' })).body.data.id as string;
    expect((await platform(world.server, 'GET', path(), { token: world.principals['wsread'] })).status).toBe(200);
    expect((await platform(world.server, 'GET', path(), { token: world.principals['member'] })).status).toBe(404);
    expect((await create({ key: 'by_reader', category: 'terraform' }, world.principals['wsread'])).status).toBe(404);
    expect(
      (await platform(world.server, 'PATCH', path(`/${id}`), { body: varBody({ value: 'w' }), token: world.principals['wsplan'] })).status,
    ).toBe(404);
    expect((await create({ key: 'by_writer', category: 'terraform' }, world.principals['wswrite'])).status).toBe(201);
    expect((await platform(world.server, 'DELETE', path(`/${id}`), { token: world.principals['wswrite'] })).status).toBe(204);
    expect((await platform(world.server, 'GET', '/workspaces/ws-missing/vars')).status).toBe(404);
  });

  it('answers the older /vars paths, which name the workspace by filter', async () => {
    const filter = { organization: { name: ORG }, workspace: { name } };
    const created = await platform(world.server, 'POST', '/vars', {
      body: { ...varBody({ key: 'legacy', value: 'yes', category: 'terraform' }), filter },
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const list = await platform(world.server, 'GET', `/vars?filter[organization][name]=${ORG}&filter[workspace][name]=${name}`);
    expect(list.body.data.map((item: { id: string }) => item.id)).toEqual([id]);
    expect((await platform(world.server, 'GET', `/vars?filter[organization][name]=${ORG}`)).status).toBe(400);
    expect((await platform(world.server, 'POST', '/vars', { body: varBody({ key: 'orphan', category: 'env' }) })).status).toBe(400);
    const updated = await platform(world.server, 'PATCH', `/vars/${id}`, { body: varBody({ value: 'still' }, { id }) });
    expect(updated.body.data.attributes.value).toBe('still');
    expect((await platform(world.server, 'DELETE', `/vars/${id}`)).status).toBe(204);
    expect((await platform(world.server, 'DELETE', `/vars/${id}`)).status).toBe(404);
  });
});
