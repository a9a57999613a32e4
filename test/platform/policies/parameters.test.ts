import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform } from '../../helpers/app.js';
import { ORG, startWorld, tokenOf, type World } from '../workspaces/world.js';

/** `PolicySetParameterCreateOptions` / `UpdateOptions` as go-tfe marshals them: type `vars`. */
const body = (attributes: Record<string, unknown>) => ({ data: { type: 'vars', attributes } });

describe('policy set parameters', () => {
  let world: World;
  let set: string;
  const call = (method: string, path: string, payload?: unknown, token?: string) =>
    platform(world.server, method, path, { ...(payload === undefined ? {} : { body: payload }), ...(token ? { token } : {}) });
  const expect422 = (response: { status: number; body: { errors: { source?: { pointer?: string } }[] } }, pointer: string) => {
    expect(response.status).toBe(422);
    expect(response.body.errors[0]?.source?.pointer).toBe(pointer);
  };

  beforeAll(async () => {
    world = await startWorld();
    const created = await call('POST', `/organizations/${ORG}/policy-sets`, {
      data: { type: 'policy-sets', attributes: { name: 'params' } },
    });
    expect(created.status).toBe(201);
    set = created.body.data.id;
  });
  afterAll(async () => world.server.close());

  it('creates, lists, reads, updates and deletes a parameter', async () => {
    const created = await call(
      'POST',
      `/policy-sets/${set}/parameters`,
      body({ key: 'region', value: 'eu-west-1', category: 'policy-set' }),
    );
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    expect(created.body.data).toMatchObject({
      type: 'vars',
      attributes: { key: 'region', value: 'eu-west-1', category: 'policy-set', sensitive: false },
      relationships: { configurable: { data: { id: set, type: 'policy-sets' } } },
    });
    const empty = await call('POST', `/policy-sets/${set}/parameters`, body({ key: 'blank', category: 'policy-set' }));
    expect(empty.body.data.attributes.value).toBe('');

    const listed = await call('GET', `/policy-sets/${set}/parameters`);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((item: { id: string }) => item.id)).toContain(id);
    expect(listed.body.meta.pagination).toMatchObject({ 'current-page': 1, 'total-count': 2 });
    const far = await call('GET', `/policy-sets/${set}/parameters?page[number]=999`);
    expect(far.body.data).toEqual([]);
    expect(far.body.meta.pagination).toMatchObject({ 'current-page': 999, 'total-count': 2 });

    const read = await call('GET', `/policy-sets/${set}/parameters/${id}`);
    expect(read.body.data).toEqual(created.body.data);

    const renamed = await call('PATCH', `/policy-sets/${set}/parameters/${id}`, body({ key: 'zone', value: 'b' }));
    expect(renamed.status).toBe(200);
    expect(renamed.body.data.attributes).toMatchObject({ key: 'zone', value: 'b' });
    const unchanged = await call('PATCH', `/policy-sets/${set}/parameters/${id}`, body({}));
    expect(unchanged.body.data).toEqual(renamed.body.data);

    expect((await call('DELETE', `/policy-sets/${set}/parameters/${id}`)).status).toBe(204);
    expect((await call('GET', `/policy-sets/${set}/parameters/${id}`)).status).toBe(404);
    expect((await call('DELETE', `/policy-sets/${set}/parameters/nonexisting`)).status).toBe(404);
  });

  it('never shows a sensitive value, and a sensitive parameter stays sensitive', async () => {
    const created = await call('POST', `/policy-sets/${set}/parameters`, body({ key: 'token', value: 'hunter2', category: 'policy-set' }));
    const id = created.body.data.id as string;
    const hidden = await call('PATCH', `/policy-sets/${set}/parameters/${id}`, body({ sensitive: true }));
    expect(hidden.status).toBe(200);
    expect(hidden.body.data.attributes).toMatchObject({ sensitive: true, value: null });
    const listed = await call('GET', `/policy-sets/${set}/parameters`);
    expect(JSON.stringify(listed.body)).not.toContain('hunter2');
    expect422(await call('PATCH', `/policy-sets/${set}/parameters/${id}`, body({ sensitive: false })), '/data/attributes/sensitive');
  });

  it('refuses bad bodies with the pointer, and changes nothing', async () => {
    const path = `/policy-sets/${set}/parameters`;
    const before = (await call('GET', path)).body.meta.pagination['total-count'];
    expect422(await call('POST', path, body({ value: 'v', category: 'policy-set' })), '/data/attributes/key');
    expect422(await call('POST', path, body({ key: '', category: 'policy-set' })), '/data/attributes/key');
    expect422(await call('POST', path, body({ key: 'k' })), '/data/attributes/category');
    expect422(await call('POST', path, body({ key: 'k', category: 'terraform' })), '/data/attributes/category');
    expect422(await call('POST', path, body({ key: 'k', category: 'policy-set', sensitive: 'yes' })), '/data/attributes/sensitive');
    expect422(await call('POST', path, body({ key: 7, category: 'policy-set' })), '/data/attributes/key');
    await call('POST', path, body({ key: 'dup', category: 'policy-set' }));
    expect422(await call('POST', path, body({ key: 'dup', category: 'policy-set' })), '/data/attributes/key');
    expect((await call('GET', path)).body.meta.pagination['total-count']).toBe(before + 1);
  });

  it('members read, only Manage Policies writes; other organizations see nothing', async () => {
    const path = `/policy-sets/${set}/parameters`;
    expect((await call('GET', path, undefined, tokenOf('member'))).status).toBe(200);
    expect((await call('POST', path, body({ key: 'nope', category: 'policy-set' }), tokenOf('member'))).status).toBe(404);
    expect((await call('GET', path, undefined, tokenOf('outsider'))).status).toBe(404);
    expect((await call('GET', '/policy-sets/polset-missing/parameters')).status).toBe(404);
  });
});
