import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform, startServer, type TestServer } from '../../helpers/app.js';
import { createUserWithToken } from '../identity/helpers.js';

const sha = () => createHash('sha256').update(randomBytes(8)).digest('hex');
const body = (attributes: Record<string, unknown>) => ({ data: { type: 'terraform-versions', attributes } });

describe('admin tool versions (self-hosted)', () => {
  let server: TestServer;
  let userToken: string;
  beforeAll(async () => {
    server = await startServer();
    userToken = (await createUserWithToken(server, 'tv-user')).token;
  });
  afterAll(() => server.close());

  const workspace = (name: string, version: string) =>
    platform(server, 'POST', '/organizations/understudy/workspaces', {
      body: { data: { type: 'workspaces', attributes: { name, 'terraform-version': version } } },
    });

  it('lists the shipped releases with filter and search, up to the 1.14 line', async () => {
    const exact = await platform(server, 'GET', '/admin/terraform-versions?filter[version]=1.0.4');
    expect(exact.status).toBe(200);
    expect(exact.body.data).toHaveLength(1);
    expect(exact.body.data[0]).toMatchObject({
      type: 'terraform-versions',
      attributes: { version: '1.0.4', official: true, enabled: true, deprecated: false, 'deprecated-reason': null, beta: false, usage: 0 },
    });
    expect(exact.body.data[0].attributes.archs[0]).toMatchObject({ os: 'linux', arch: 'amd64' });
    expect((await platform(server, 'GET', '/admin/terraform-versions?filter[version]=1000.1000.42')).body.data).toEqual([]);
    const search = await platform(server, 'GET', '/admin/terraform-versions?search[version]=1.14&page[size]=100');
    expect(search.body.data.map((item: { attributes: { version: string } }) => item.attributes.version)).toContain('1.14.0');
    const page = await platform(server, 'GET', '/admin/terraform-versions?page[number]=999&page[size]=100');
    expect(page.body.data).toEqual([]);
    expect(page.body.meta.pagination['current-page']).toBe(999);
    expect((await workspace('on-1-13', '1.13.5')).status).toBe(201);
  });

  it('creates a version workspaces may then select, counts its usage, updates it, and deletes it only when unused', async () => {
    const amd = sha();
    const created = await platform(server, 'POST', '/admin/terraform-versions', {
      body: body({
        version: '1.0.4242',
        url: 'https://example.com/tf.zip',
        sha: amd,
        deprecated: true,
        'deprecated-reason': 'Test Reason',
        archs: [
          { url: 'https://example.com/tf.zip', sha: amd, os: 'linux', arch: 'amd64' },
          { url: 'https://example.com/tf-arm.zip', sha: sha(), os: 'linux', arch: 'arm64' },
        ],
      }),
    });
    expect(created.status).toBe(201);
    expect(created.body.data.attributes).toMatchObject({
      version: '1.0.4242',
      url: 'https://example.com/tf.zip',
      sha: amd,
      official: false,
      enabled: true,
      deprecated: true,
      'deprecated-reason': 'Test Reason',
    });
    expect(created.body.data.attributes.archs).toHaveLength(2);
    const id = created.body.data.id as string;
    expect(id).toMatch(/^tool-/);

    expect((await workspace('on-added', '1.0.4242')).status).toBe(201);
    expect((await platform(server, 'GET', `/admin/terraform-versions/${id}`)).body.data.attributes.usage).toBe(1);
    const inUse = await platform(server, 'DELETE', `/admin/terraform-versions/${id}`);
    expect(inUse.status).toBe(422);

    const newSha = sha();
    const updated = await platform(server, 'PATCH', `/admin/terraform-versions/${id}`, {
      body: body({ url: 'https://example.com/new.zip', sha: newSha, deprecated: false }),
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data.attributes).toMatchObject({
      url: 'https://example.com/new.zip',
      sha: newSha,
      deprecated: false,
      'deprecated-reason': null,
    });
    expect(updated.body.data.attributes.archs).toEqual([{ url: 'https://example.com/new.zip', sha: newSha, os: 'linux', arch: 'amd64' }]);

    const disabled = await platform(server, 'POST', '/admin/terraform-versions', {
      body: body({ version: '1.0.4343', url: 'https://example.com/x.zip', sha: sha(), enabled: false }),
    });
    expect((await workspace('on-disabled', '1.0.4343')).status).toBe(422);
    expect((await platform(server, 'DELETE', `/admin/terraform-versions/${disabled.body.data.id}`)).status).toBe(204);
    expect((await platform(server, 'GET', `/admin/terraform-versions/${disabled.body.data.id}`)).status).toBe(404);
  });

  it('removes a shipped release an operator deletes, and refuses bad bodies, duplicates and non-admins', async () => {
    const listed = await platform(server, 'GET', '/admin/terraform-versions?filter[version]=0.2.1');
    const id = listed.body.data[0].id as string;
    expect((await platform(server, 'DELETE', `/admin/terraform-versions/${id}`)).status).toBe(204);
    expect((await platform(server, 'GET', '/admin/terraform-versions?filter[version]=0.2.1')).body.data).toEqual([]);
    expect((await workspace('on-removed', '0.2.1')).status).toBe(422);

    for (const attributes of [
      {},
      { version: 'latest', url: 'https://example.com/a.zip', sha: sha() },
      { version: '1.0.5000' },
      { version: '1.0.5000', url: 'https://example.com/a.zip', sha: 'not-a-sha' },
      { version: '1.0.5000', archs: [{ url: 'u', os: 'linux' }] },
      { version: '1.5.7', url: 'https://example.com/a.zip', sha: sha() },
    ]) {
      const refused = await platform(server, 'POST', '/admin/terraform-versions', { body: body(attributes) });
      expect(refused.status, JSON.stringify(attributes)).toBe(422);
    }
    expect((await platform(server, 'GET', '/admin/terraform-versions?filter[version]=1.0.5000')).body.data).toEqual([]);
    expect((await platform(server, 'GET', '/admin/terraform-versions', { token: userToken })).status).toBe(404);
    expect((await platform(server, 'POST', '/admin/terraform-versions', { token: userToken, body: body({}) })).status).toBe(404);
  });
});

describe('admin tool versions on the hosted edition', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ UNDERSTUDY_EDITION: 'hosted' });
  });
  afterAll(() => server.close());

  it('does not exist, but the 1.13 and 1.14 lines are known', async () => {
    expect((await platform(server, 'GET', '/admin/terraform-versions')).status).toBe(404);
    const created = await platform(server, 'POST', '/organizations/understudy/workspaces', {
      body: { data: { type: 'workspaces', attributes: { name: 'newest', 'terraform-version': '1.14.0' } } },
    });
    expect(created.status).toBe(201);
  });
});
