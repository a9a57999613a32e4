import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { platform } from '../../helpers/app.js';
import { control, ORG, startWorld, workspaceWithLevels, type World } from '../workspaces/world.js';
import { md5, stateFile } from './state-file.js';

const LINEAGE = '6f1c8a0e-1111-2222-3333-444455556666';

const createBody = (attributes: Record<string, unknown>) => ({ data: { type: 'state-versions', attributes } });
const inline = (serial: number, lineage = LINEAGE, extra: Record<string, unknown> = {}) => {
  const state = stateFile(serial, lineage, { count: 2 });
  return createBody({ serial, lineage, md5: md5(state), state: state.toString('base64'), ...extra });
};

describe('state versions', () => {
  let world: World;
  let workspace: string;
  let name: string;
  let counter = 0;
  const lock = (token?: string) => platform(world.server, 'POST', `/workspaces/${workspace}/actions/lock`, { ...(token ? { token } : {}) });
  const unlock = (token?: string) =>
    platform(world.server, 'POST', `/workspaces/${workspace}/actions/unlock`, { ...(token ? { token } : {}) });
  const create = (body: unknown, token?: string, query = '') =>
    platform(world.server, 'POST', `/workspaces/${workspace}/state-versions${query ? `?${query}` : ''}`, {
      body,
      ...(token ? { token } : {}),
    });
  const put = (url: string, body: Buffer) =>
    fetch(url, { method: 'PUT', body: new Uint8Array(body), headers: { 'content-type': 'application/octet-stream' } });

  beforeAll(async () => {
    world = await startWorld();
  });
  afterAll(() => world.close());
  beforeEach(async () => {
    name = `state-${++counter}`;
    workspace = (await workspaceWithLevels(world, name)).id;
  });

  it('refuses a version unless the caller holds the lock (409), and creates one inline when it does', async () => {
    const unlocked = await create(inline(1));
    expect(unlocked.status).toBe(409);
    expect(unlocked.body.errors[0].detail).toContain('locked');

    expect((await lock(world.principals['wswrite'])).status).toBe(200);
    const otherHolder = await create(inline(1));
    expect(otherHolder.status).toBe(409);
    expect((await unlock(world.principals['wswrite'])).status).toBe(200);

    expect((await lock()).status).toBe(200);
    const created = await create(inline(1));
    expect(created.status).toBe(201);
    const attributes = created.body.data.attributes;
    expect(attributes).toMatchObject({
      serial: 1,
      status: 'finalized',
      'resource-count': 2,
      'state-version': 4,
      'terraform-version': '1.11.4',
      lineage: LINEAGE,
    });
    expect(attributes['hosted-state-upload-url']).toBeNull();
    expect(attributes['hosted-state-download-url']).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/_archivist\/v1\/object\/download\//);
    expect(created.body.data.relationships.outputs.data).toHaveLength(3);

    const current = await platform(world.server, 'GET', `/workspaces/${workspace}/current-state-version`);
    expect(current.status).toBe(200);
    expect(current.body.data.id).toBe(created.body.data.id);
    const shown = await platform(world.server, 'GET', `/workspaces/${workspace}`);
    expect(shown.body.data.attributes['resource-count']).toBe(2);
    expect(shown.body.data.relationships['current-state-version'].data).toEqual({ id: created.body.data.id, type: 'state-versions' });
    expect(shown.body.data.relationships.outputs.data).toHaveLength(3);
    const included = await platform(world.server, 'GET', `/workspaces/${workspace}?include=current-state-version`);
    expect(included.body.included).toEqual([
      expect.objectContaining({ id: created.body.data.id, type: 'state-versions', attributes: expect.objectContaining({ serial: 1 }) }),
    ]);
    expect(await (await fetch(included.body.included[0].attributes['hosted-state-download-url'])).json()).toMatchObject({ serial: 1 });
    expect((await unlock()).status).toBe(200);
  });

  it('validates serial, md5, state and the envelope with 422s, changing nothing', async () => {
    await lock();
    const state = stateFile(1, LINEAGE);
    expect((await create(createBody({ md5: md5(state) }))).status).toBe(422);
    expect((await create(createBody({ serial: -1, md5: md5(state) }))).status).toBe(422);
    expect((await create(createBody({ serial: 1, md5: 'not-a-sum' }))).status).toBe(422);
    expect((await create(createBody({ serial: 1, md5: md5(Buffer.from('other')), state: state.toString('base64') }))).status).toBe(422);
    const notJson = Buffer.from('not json');
    expect((await create(createBody({ serial: 1, md5: md5(notJson), state: notJson.toString('base64') }))).status).toBe(422);
    expect((await create(createBody({ serial: 1, md5: md5(state), state: '***' }))).status).toBe(422);
    expect((await create({ data: { type: 'workspaces', attributes: {} } })).status).toBe(422);
    const list = await platform(world.server, 'GET', `/state-versions?filter[workspace][name]=${name}&filter[organization][name]=${ORG}`);
    expect(list.body.data).toEqual([]);
    expect((await platform(world.server, 'GET', `/workspaces/${workspace}/current-state-version`)).status).toBe(404);
  });

  it('never lets the serial go backwards, and keeps the lineage unless forced', async () => {
    await lock();
    expect((await create(inline(5))).status).toBe(201);
    const backwards = await create(inline(4));
    expect(backwards.status).toBe(409);
    expect(backwards.body.errors[0].detail).toContain('serial');
    const otherLineage = await create(inline(6, 'another-lineage'));
    expect(otherLineage.status).toBe(409);
    expect(otherLineage.body.errors[0].detail).toContain('lineage');
    expect((await create(inline(6))).status).toBe(201);
    const forced = await create(inline(1, 'another-lineage', { force: true }));
    expect(forced.status).toBe(201);
    expect(forced.body.data.attributes).toMatchObject({ serial: 1, lineage: 'another-lineage' });
  });

  it('takes the state through one-time upload links: pending until a matching upload, then finalized', async () => {
    await lock();
    const state = stateFile(3, LINEAGE, { count: 4 });
    const created = await create(createBody({ serial: 3, lineage: LINEAGE, md5: md5(state) }));
    expect(created.status).toBe(201);
    const attributes = created.body.data.attributes;
    expect(attributes.status).toBe('pending');
    expect(attributes['hosted-state-download-url']).toBeNull();
    const upload = attributes['hosted-state-upload-url'] as string;
    const jsonUpload = attributes['hosted-json-state-upload-url'] as string;
    expect(upload).toMatch(/\/_archivist\/v1\/object\/upload\//);
    expect(jsonUpload).toMatch(/\/_archivist\/v1\/object\/upload\//);

    // Pending: not current, and the lock cannot be released until the upload arrives.
    expect((await platform(world.server, 'GET', `/workspaces/${workspace}/current-state-version`)).status).toBe(404);
    const early = await unlock();
    expect(early.status).toBe(409);
    expect(early.body.errors[0].detail).toContain('latest state version is still pending');

    const wrong = await put(upload, stateFile(3, LINEAGE, { count: 1 }));
    expect(wrong.status).toBe(422);
    expect((await put(`${upload}x`, state)).status).toBe(404);
    expect((await put(upload, state)).status).toBe(200);
    expect((await put(upload, state)).status).toBe(404);
    expect((await put(jsonUpload, Buffer.from('{"format_version":"1.0"}'))).status).toBe(200);
    expect((await put(jsonUpload, Buffer.from('{"format_version":"1.0"}'))).status).toBe(404);

    const shown = await platform(world.server, 'GET', `/state-versions/${created.body.data.id}`);
    expect(shown.body.data.attributes).toMatchObject({
      status: 'finalized',
      'resource-count': 4,
      'hosted-state-upload-url': null,
      'resources-processed': true,
    });
    const download = await fetch(shown.body.data.attributes['hosted-state-download-url']);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(state)).toBe(true);
    const json = await fetch(shown.body.data.attributes['hosted-json-state-download-url']);
    expect(await json.json()).toEqual({ format_version: '1.0' });
    expect((await unlock()).status).toBe(200);
  });

  it('accepts an upload whose serial and lineage differ from the declared ones, keeping the declared values', async () => {
    await lock();
    const state = stateFile(3, 'the-file-lineage', { count: 2 });
    const created = await create(createBody({ serial: 7, lineage: LINEAGE, md5: md5(state) }));
    expect(created.status).toBe(201);
    expect((await put(created.body.data.attributes['hosted-state-upload-url'], state)).status).toBe(200);
    const shown = await platform(world.server, 'GET', `/state-versions/${created.body.data.id}`);
    expect(shown.body.data.attributes).toMatchObject({ status: 'finalized', serial: 7, lineage: LINEAGE, 'resource-count': 2 });
    const download = await fetch(shown.body.data.attributes['hosted-state-download-url']);
    expect(Buffer.from(await download.arrayBuffer()).equals(state)).toBe(true);
    expect((await unlock()).status).toBe(200);
  });

  it('keeps several uploads pending at once; one finalized late does not displace a newer current version', async () => {
    await lock();
    const older = stateFile(1, LINEAGE);
    const newer = stateFile(2, LINEAGE, { greeting: 'newer' });
    const first = await create(createBody({ serial: 1, lineage: LINEAGE, md5: md5(older) }));
    const second = await create(createBody({ serial: 2, lineage: LINEAGE, md5: md5(newer) }));
    expect((await put(second.body.data.attributes['hosted-state-upload-url'], newer)).status).toBe(200);
    expect((await put(first.body.data.attributes['hosted-state-upload-url'], older)).status).toBe(200);
    const current = await platform(world.server, 'GET', `/workspaces/${workspace}/current-state-version`);
    expect(current.body.data.id).toBe(second.body.data.id);
    expect((await unlock()).status).toBe(200);
  });

  it('signs download links: no token needed, a forged one is 404, and they expire', async () => {
    await lock();
    const created = await create(inline(1));
    const url = created.body.data.attributes['hosted-state-download-url'] as string;
    expect((await fetch(url)).status).toBe(200);
    expect((await fetch(url.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')))).status).toBe(404);
    expect((await control(world.server, 'POST', '/clock', { advance: '1h' })).status).toBe(200);
    expect((await fetch(url)).status).toBe(404);
  });

  it('lists newest first by workspace and organization name, with 400 and 404 for bad filters', async () => {
    await lock();
    await create(inline(1));
    await create(inline(2));
    const list = await platform(
      world.server,
      'GET',
      `/state-versions?filter[workspace][name]=${name}&filter[organization][name]=${ORG}&page[size]=1`,
    );
    expect(list.status).toBe(200);
    expect(list.body.data.map((item: { attributes: { serial: number } }) => item.attributes.serial)).toEqual([2]);
    expect(list.body.meta.pagination['total-count']).toBe(2);
    expect((await platform(world.server, 'GET', `/state-versions?filter[workspace][name]=${name}`)).status).toBe(400);
    expect(
      (await platform(world.server, 'GET', `/state-versions?filter[workspace][name]=nope&filter[organization][name]=${ORG}`)).status,
    ).toBe(404);
    expect((await platform(world.server, 'GET', '/state-versions/sv-missing')).status).toBe(404);
  });

  it("lists a version's outputs with sensitive values (the client reads them); the workspace's current outputs hide them", async () => {
    await lock();
    const created = await create(inline(1));
    const outputs = await platform(world.server, 'GET', `/state-versions/${created.body.data.id}/outputs`);
    expect(outputs.status).toBe(200);
    const byName = Object.fromEntries(outputs.body.data.map((item: { attributes: { name: string } }) => [item.attributes.name, item]));
    expect(byName.greeting.attributes).toMatchObject({ value: 'hello', sensitive: false, type: 'string', 'detailed-type': 'string' });
    expect(byName.ports.attributes).toMatchObject({ value: [80, 443], type: 'array', 'detailed-type': ['list', 'number'] });
    expect(byName.password.attributes).toMatchObject({ value: 'hunter2', sensitive: true });
    const current = await platform(world.server, 'GET', `/workspaces/${workspace}/current-state-version-outputs`);
    expect(current.body.data.map((item: { id: string }) => item.id)).toEqual(outputs.body.data.map((item: { id: string }) => item.id));
    const currentPassword = current.body.data.find((item: { attributes: { name: string } }) => item.attributes.name === 'password');
    expect(currentPassword.attributes).toMatchObject({ value: null, sensitive: true });
    const revealed = await platform(world.server, 'GET', `/state-version-outputs/${byName.password.id}`);
    expect(revealed.body.data.attributes.value).toBe('hunter2');
    const included = await platform(world.server, 'GET', `/workspaces/${workspace}?include=outputs`);
    const password = included.body.included.find((item: { attributes: { name: string } }) => item.attributes.name === 'password');
    expect(password).toMatchObject({ type: 'workspace-outputs', attributes: { value: null, sensitive: true, 'output-type': 'string' } });
    expect((await platform(world.server, 'GET', '/state-version-outputs/wsout-missing')).status).toBe(404);
    const withOutputs = await platform(world.server, 'GET', `/state-versions/${created.body.data.id}?include=outputs`);
    expect(withOutputs.body.included.map((item: { id: string }) => item.id)).toEqual(
      outputs.body.data.map((item: { id: string }) => item.id),
    );
    expect(
      withOutputs.body.included.find((item: { attributes: { name: string } }) => item.attributes.name === 'password').attributes.value,
    ).toBeNull();
    expect((await platform(world.server, 'GET', `/state-versions/${created.body.data.id}?include=run`)).status).toBe(400);
    expect((await create(inline(2), undefined, 'include=run')).status).toBe(400);
    expect((await platform(world.server, 'GET', `/workspaces/${workspace}/current-state-version`)).body.data.id).toBe(created.body.data.id);
  });

  it('rolls back to an earlier version as a new current version, under the lock', async () => {
    await lock();
    const first = await create(inline(1));
    await create(inline(2));
    const body = {
      data: {
        type: 'state-versions',
        relationships: { 'rollback-state-version': { data: { type: 'state-versions', id: first.body.data.id } } },
      },
    };
    const rolled = await platform(world.server, 'PATCH', `/workspaces/${workspace}/state-versions`, { body });
    expect(rolled.status).toBe(200);
    expect(rolled.body.data.id).not.toBe(first.body.data.id);
    expect(rolled.body.data.attributes).toMatchObject({ serial: 1, status: 'finalized' });
    const current = await platform(world.server, 'GET', `/workspaces/${workspace}/current-state-version`);
    expect(current.body.data.id).toBe(rolled.body.data.id);
    const missing = {
      data: { type: 'state-versions', relationships: { 'rollback-state-version': { data: { type: 'state-versions', id: 'sv-nope' } } } },
    };
    expect((await platform(world.server, 'PATCH', `/workspaces/${workspace}/state-versions`, { body: missing })).status).toBe(422);
    await unlock();
    expect((await platform(world.server, 'PATCH', `/workspaces/${workspace}/state-versions`, { body })).status).toBe(409);
  });

  it('lets readers read state and only writers create it; others see 404', async () => {
    await lock();
    const created = await create(inline(1));
    await unlock();
    expect(
      (await platform(world.server, 'GET', `/state-versions/${created.body.data.id}`, { token: world.principals['wsread'] })).status,
    ).toBe(200);
    expect(
      (await platform(world.server, 'GET', `/state-versions/${created.body.data.id}`, { token: world.principals['member'] })).status,
    ).toBe(404);
    expect(
      (await platform(world.server, 'GET', `/state-versions/${created.body.data.id}`, { token: world.principals['outsider'] })).status,
    ).toBe(404);
    expect((await create(inline(2), world.principals['wsread'])).status).toBe(404);
    expect((await lock(world.principals['wswrite'])).status).toBe(200);
    expect((await create(inline(2), world.principals['wswrite'])).status).toBe(201);
    expect((await unlock(world.principals['wswrite'])).status).toBe(200);
  });

  it('goes with its workspace', async () => {
    await lock();
    const created = await create(inline(1));
    await unlock();
    expect((await platform(world.server, 'DELETE', `/workspaces/${workspace}`)).status).toBe(204);
    expect((await platform(world.server, 'GET', `/state-versions/${created.body.data.id}`)).status).toBe(404);
    expect((await fetch(created.body.data.attributes['hosted-state-download-url'])).status).toBe(404);
  });
});
