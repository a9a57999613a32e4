import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform, startServer, type TestServer } from '../../helpers/app.js';
import { createUserWithToken } from '../identity/helpers.js';

const sha = () => createHash('sha256').update(randomBytes(8)).digest('hex');

/** go-tfe's AdminOPAVersions and AdminSentinelVersions: the same shapes under two types. */
describe.each([
  { tool: 'opa', shipped: '0.59.0' },
  { tool: 'sentinel', shipped: '0.22.1' },
])('admin $tool versions (self-hosted)', ({ tool, shipped }) => {
  const type = `${tool}-versions`;
  const path = `/admin/${type}`;
  const body = (attributes: Record<string, unknown>) => ({ data: { type, attributes } });
  let server: TestServer;
  let userToken: string;
  beforeAll(async () => {
    server = await startServer();
    userToken = (await createUserWithToken(server, `${tool}-user`)).token;
  });
  afterAll(() => server.close());

  it('lists the shipped releases with filter, search and pages', async () => {
    const exact = await platform(server, 'GET', `${path}?filter[version]=${shipped}`);
    expect(exact.status).toBe(200);
    expect(exact.body.data).toHaveLength(1);
    expect(exact.body.data[0]).toMatchObject({
      type,
      attributes: { version: shipped, official: true, enabled: true, deprecated: false, 'deprecated-reason': null, beta: false, usage: 0 },
    });
    expect(exact.body.data[0].attributes.archs[0]).toMatchObject({ os: 'linux', arch: 'amd64' });
    expect((await platform(server, 'GET', `${path}?filter[version]=1000.1000.42`)).body.data).toEqual([]);
    const search = await platform(server, 'GET', `${path}?search[version]=${shipped}`);
    for (const item of search.body.data) expect(item.attributes.version).toContain(shipped);
    const far = await platform(server, 'GET', `${path}?page[number]=999&page[size]=100`);
    expect(far.body.data).toEqual([]);
    expect(far.body.meta.pagination['current-page']).toBe(999);
  });

  it('creates with url and sha, or with archs; reads, updates and deletes', async () => {
    const amd64 = sha();
    const plain = await platform(server, 'POST', path, { body: body({ version: '9.1.0', url: 'https://example.com/a', sha: amd64 }) });
    expect(plain.status).toBe(201);
    expect(plain.body.data.attributes).toMatchObject({ version: '9.1.0', official: false, enabled: true, deprecated: false, beta: false });
    expect(plain.body.data.attributes['deprecated-reason']).toBeNull();
    expect(plain.body.data.attributes.archs).toEqual([{ url: 'https://example.com/a', sha: amd64, os: 'linux', arch: 'amd64' }]);

    const arm = sha();
    const archs = [
      { url: 'https://example.com/x', sha: amd64, os: 'linux', arch: 'amd64' },
      { url: 'https://example.com/y', sha: arm, os: 'linux', arch: 'arm64' },
    ];
    const withArchs = await platform(server, 'POST', path, {
      body: body({ version: '9.2.0', archs, deprecated: true, 'deprecated-reason': 'old', official: true }),
    });
    expect(withArchs.status).toBe(201);
    expect(withArchs.body.data.attributes).toMatchObject({
      url: 'https://example.com/x',
      sha: amd64,
      deprecated: true,
      'deprecated-reason': 'old',
    });
    expect(withArchs.body.data.attributes.archs).toEqual(archs);

    const id = plain.body.data.id as string;
    expect((await platform(server, 'GET', `${path}/${id}`)).body.data).toEqual(plain.body.data);
    const updated = await platform(server, 'PATCH', `${path}/${id}`, { body: body({ version: '9.1.1', beta: true }) });
    expect(updated.status).toBe(200);
    expect(updated.body.data.attributes).toMatchObject({ version: '9.1.1', beta: true });
    expect((await platform(server, 'DELETE', `${path}/${id}`)).status).toBe(204);
    expect((await platform(server, 'GET', `${path}/${id}`)).status).toBe(404);
  });

  it('refuses bad bodies with a pointer and keeps a version in use', async () => {
    const blank = await platform(server, 'POST', path, { body: body({ url: 'https://example.com', sha: sha() }) });
    expect(blank.status).toBe(422);
    expect(blank.body.errors[0].source.pointer).toBe('/data/attributes/version');
    const noUrl = await platform(server, 'POST', path, { body: body({ version: '9.3.0' }) });
    expect(noUrl.status).toBe(422);
    const badSha = await platform(server, 'POST', path, { body: body({ version: '9.3.0', url: 'https://e.x', sha: 'nothex' }) });
    expect(badSha.body.errors[0].source.pointer).toBe('/data/attributes/sha');
    const taken = await platform(server, 'POST', path, { body: body({ version: shipped, url: 'https://e.x', sha: sha() }) });
    expect(taken.status).toBe(422);
    expect((await platform(server, 'GET', `${path}?filter[version]=9.3.0`)).body.data).toEqual([]);

    const set = await platform(server, 'POST', '/organizations/understudy/policy-sets', {
      body: { data: { type: 'policy-sets', attributes: { name: `${tool}-pinned`, kind: tool, 'policy-tool-version': shipped } } },
    });
    expect(set.status).toBe(201);
    const row = (await platform(server, 'GET', `${path}?filter[version]=${shipped}`)).body.data[0];
    expect(row.attributes.usage).toBe(1);
    expect((await platform(server, 'DELETE', `${path}/${row.id}`)).status).toBe(422);
  });

  it('is for site administrators only', async () => {
    expect((await platform(server, 'GET', path, { token: userToken })).status).toBe(404);
    expect((await platform(server, 'POST', path, { token: userToken, body: body({ version: '9.9.9' }) })).status).toBe(404);
  });
});
