import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, platform, startServer, type TestServer } from '../../helpers/app.js';
import { moduleFiles, tarball } from './archives.js';

let server: TestServer;
const ORG = 'understudy';

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => server.close());

const createModule = (name: string, provider = 'aws', extra: Record<string, unknown> = {}, token?: string) =>
  platform(server, 'POST', `/organizations/${ORG}/registry-modules`, {
    body: { data: { type: 'registry-modules', attributes: { name, provider, ...extra } } },
    ...(token ? { token } : {}),
  });
const createVersion = (name: string, version: string, provider = 'aws') =>
  platform(server, 'POST', `/organizations/${ORG}/registry-modules/private/${ORG}/${name}/${provider}/versions`, {
    body: { data: { type: 'registry-module-versions', attributes: { version } } },
  });
const upload = async (url: string, body: Buffer) =>
  fetch(url, { method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body: new Uint8Array(body) });

/** A member of the organization with no team flags: can read, cannot manage. */
async function memberToken(): Promise<string> {
  const team = await platform(server, 'POST', `/organizations/${ORG}/teams`, {
    body: { data: { type: 'teams', attributes: { name: `readers-${Date.now()}` } } },
  });
  const token = await platform(server, 'POST', `/teams/${team.body.data.id}/authentication-token`, {
    body: { data: { type: 'authentication-tokens' } },
  });
  return token.body.data.attributes.token as string;
}

describe('registry management API', () => {
  it('creates a private module: namespace is the organization, status pending, links and permissions', async () => {
    const created = await createModule('network');
    expect(created.status).toBe(201);
    const data = created.body.data;
    expect(data.id).toMatch(/^mod-/);
    expect(data.type).toBe('registry-modules');
    expect(data.attributes).toMatchObject({
      name: 'network',
      provider: 'aws',
      namespace: ORG,
      'registry-name': 'private',
      status: 'pending',
      'version-statuses': [],
      'vcs-repo': null,
    });
    expect(data.attributes.permissions).toEqual({ 'can-delete': true, 'can-resync': true, 'can-retry': true });
    expect(data.relationships.organization.data).toEqual({ id: ORG, type: 'organizations' });
    expect(data.links.self).toBe(`/api/v2/organizations/${ORG}/registry-modules/private/${ORG}/network/aws`);
    expect((await createModule('network')).status).toBe(422);
  });

  it('rejects bad names, providers and namespaces with 422 naming the attribute', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ name: '-lead', provider: 'aws' }, 'name'],
      [{ name: 'trail_', provider: 'aws' }, 'name'],
      [{ name: 'a'.repeat(65), provider: 'aws' }, 'name'],
      [{ name: 'sp ace', provider: 'aws' }, 'name'],
      [{ name: 'ok', provider: 'AWS' }, 'provider'],
      [{ name: 'ok', provider: 'a-b' }, 'provider'],
      [{ name: 'ok', provider: 'a'.repeat(65) }, 'provider'],
      [{ name: 'ok', provider: 'aws', namespace: 'someone-else' }, 'namespace'],
      [{ provider: 'aws' }, 'name'],
    ];
    for (const [attributes, attribute] of cases) {
      const response = await platform(server, 'POST', `/organizations/${ORG}/registry-modules`, {
        body: { data: { type: 'registry-modules', attributes } },
      });
      expect(response.status, JSON.stringify(attributes)).toBe(422);
      expect(response.body.errors[0].source.pointer).toBe(`/data/attributes/${attribute}`);
    }
    expect((await createModule('a'.repeat(64), 'b'.repeat(64))).status).toBe(201);
  });

  it('refuses public modules on the self-hosted edition with 403', async () => {
    const response = await createModule('vpc', 'aws', { 'registry-name': 'public', namespace: 'terraform-aws-modules' });
    expect(response.status).toBe(403);
    expect((await platform(server, 'GET', `/organizations/${ORG}/registry-modules/public/terraform-aws-modules/vpc/aws`)).status).toBe(403);
  });

  it('creates versions (semver with pre-release and build metadata), uploads, and turns the module setup_complete', async () => {
    await createModule('compute');
    for (const bad of ['1.2', 'v1.2.3', '01.2.3', '1.2.3-', 'latest']) {
      const response = await createVersion('compute', bad);
      expect(response.status, bad).toBe(422);
      expect(response.body.errors[0].source.pointer).toBe('/data/attributes/version');
    }
    const version = await createVersion('compute', '1.2.3-alpha+feature');
    expect(version.status).toBe(201);
    expect(version.body.data.id).toMatch(/^modver-/);
    expect(version.body.data.attributes).toMatchObject({ version: '1.2.3-alpha+feature', status: 'pending', source: 'svc-api' });
    expect(version.body.data.relationships['registry-module'].data.type).toBe('registry-modules');
    const link: string = version.body.data.links.upload;
    expect(link.startsWith(`${server.baseUrl}/api/registry/uploads/v1/object/`)).toBe(true);
    expect((await createVersion('compute', '1.2.3-alpha+feature')).status).toBe(422);

    const archive = await tarball(moduleFiles('hello'));
    expect((await upload(link, archive)).status).toBe(200);
    // A second upload to the same link replaces the content (go-tfe's tests do this).
    expect((await upload(link, await tarball(moduleFiles('hi')))).status).toBe(200);
    const module = await platform(server, 'GET', `/organizations/${ORG}/registry-modules/private/${ORG}/compute/aws`);
    expect(module.body.data.attributes.status).toBe('setup_complete');
    expect(module.body.data.attributes['version-statuses']).toEqual([{ version: '1.2.3-alpha+feature', status: 'ok' }]);
    const byId = await platform(server, 'GET', `/registry-modules/${module.body.data.id}`);
    expect(byId.status).toBe(200);
    expect(byId.body.data.attributes.name).toBe('compute');
    const read = await platform(
      server,
      'GET',
      `/organizations/${ORG}/registry-modules/private/${ORG}/compute/aws/version?module_version=1.2.3-alpha%2Bfeature`,
    );
    expect(read.body.data.attributes.status).toBe('ok');
    expect(
      (await platform(server, 'GET', `/organizations/${ORG}/registry-modules/private/${ORG}/compute/aws/version?module_version=9.9.9`))
        .status,
    ).toBe(404);
  });

  it('lists with q, filters and pagination', async () => {
    await createModule('alpha', 'gcp');
    await createModule('beta', 'azurerm');
    const all = await platform(server, 'GET', `/organizations/${ORG}/registry-modules?page[size]=2`);
    expect(all.status).toBe(200);
    expect(all.body.data).toHaveLength(2);
    expect(all.body.meta.pagination['page-size']).toBe(2);
    const total = all.body.meta.pagination['total-count'];
    expect(total).toBeGreaterThanOrEqual(4);
    const q = await platform(server, 'GET', `/organizations/${ORG}/registry-modules?q=zurer`);
    expect(q.body.data.map((m: { attributes: { name: string } }) => m.attributes.name)).toEqual(['beta']);
    const byProvider = await platform(server, 'GET', `/organizations/${ORG}/registry-modules?filter[provider]=gcp`);
    expect(byProvider.body.data.map((m: { attributes: { name: string } }) => m.attributes.name)).toEqual(['alpha']);
    expect((await platform(server, 'GET', `/organizations/${ORG}/registry-modules?filter[registry_name]=public`)).body.data).toEqual([]);
    expect((await platform(server, 'GET', `/organizations/${ORG}/registry-modules?filter[organization_name]=elsewhere`)).body.data).toEqual(
      [],
    );
    expect(
      (await platform(server, 'GET', `/organizations/${ORG}/registry-modules?filter[organization_name]=${ORG}`)).body.meta.pagination[
        'total-count'
      ],
    ).toBe(total);
    expect((await platform(server, 'GET', '/organizations/nope/registry-modules')).status).toBe(404);
  });

  it('lets members read but not create or delete (404), and reflects that in permissions', async () => {
    const token = await memberToken();
    const read = await platform(server, 'GET', `/organizations/${ORG}/registry-modules/private/${ORG}/network/aws`, { token });
    expect(read.status).toBe(200);
    expect(read.body.data.attributes.permissions).toEqual({ 'can-delete': false, 'can-resync': false, 'can-retry': false });
    expect((await createModule('sneaky', 'aws', {}, token)).status).toBe(404);
    expect((await platform(server, 'DELETE', `/organizations/${ORG}/registry-modules/private/${ORG}/network`, { token })).status).toBe(404);
    expect((await platform(server, 'GET', `/organizations/${ORG}/registry-modules`, { token: null })).status).toBe(401);
  });

  it('deletes versions, then the provider with its last version, then modules; cascade rules', async () => {
    await createModule('cascade', 'aws');
    await createModule('cascade', 'gcp');
    await createVersion('cascade', '1.0.0');
    await createVersion('cascade', '1.1.0');
    const base = `/organizations/${ORG}/registry-modules/private/${ORG}/cascade`;
    expect((await platform(server, 'DELETE', `${base}/aws/9.9.9`)).status).toBe(404);
    expect((await platform(server, 'DELETE', `${base}/aws/1.0.0`)).status).toBe(204);
    expect((await platform(server, 'GET', `${base}/aws`)).body.data.attributes['version-statuses']).toEqual([
      { version: '1.1.0', status: 'pending' },
    ]);
    // The last version takes its provider with it.
    expect((await platform(server, 'DELETE', `${base}/aws/1.1.0`)).status).toBe(204);
    expect((await platform(server, 'GET', `${base}/aws`)).status).toBe(404);
    expect((await platform(server, 'GET', `${base}/gcp`)).status).toBe(200);
    expect((await platform(server, 'DELETE', `${base}/gcp`)).status).toBe(204);
    expect((await platform(server, 'DELETE', `${base}/gcp`)).status).toBe(404);
    await createModule('whole', 'aws');
    await createModule('whole', 'gcp');
    expect((await platform(server, 'DELETE', `/organizations/${ORG}/registry-modules/private/${ORG}/whole`)).status).toBe(204);
    expect((await platform(server, 'GET', `/organizations/${ORG}/registry-modules?q=whole`)).body.data).toEqual([]);
    expect((await platform(server, 'DELETE', `/organizations/${ORG}/registry-modules/private/other-ns/network`)).status).toBe(404);
  });

  it('an upload link stops working once its version is deleted', async () => {
    await createModule('gone');
    await createVersion('gone', '1.0.0');
    const second = await createVersion('gone', '2.0.0');
    expect((await platform(server, 'DELETE', `/organizations/${ORG}/registry-modules/private/${ORG}/gone/aws/2.0.0`)).status).toBe(204);
    expect((await upload(second.body.data.links.upload, await tarball(moduleFiles('x')))).status).toBe(404);
  });

  it('keeps the deprecated endpoints working', async () => {
    await createModule('legacy');
    const version = await platform(server, 'POST', `/registry-modules/${ORG}/legacy/aws/versions`, {
      body: { data: { type: 'registry-module-versions', attributes: { 'commit-sha': null, version: '0.1.0' } } },
    });
    expect(version.status).toBe(201);
    expect(version.body.data.links.upload).toContain('/object/');
    const shown = await platform(server, 'GET', `/registry-modules/show/${ORG}/legacy/aws`);
    expect(shown.status).toBe(200);
    expect(shown.body.data.attributes['version-statuses']).toEqual([{ version: '0.1.0', status: 'pending' }]);
    expect((await platform(server, 'POST', `/registry-modules/actions/delete/${ORG}/legacy/aws/0.1.0`)).status).toBe(204);
    expect((await platform(server, 'GET', `/registry-modules/show/${ORG}/legacy/aws`)).status).toBe(404);
    await createModule('legacy2');
    await createModule('legacy2', 'gcp');
    expect((await platform(server, 'POST', `/registry-modules/actions/delete/${ORG}/legacy2/gcp`)).status).toBe(204);
    expect((await platform(server, 'POST', `/registry-modules/actions/delete/${ORG}/legacy2`)).status).toBe(204);
    expect((await platform(server, 'POST', `/registry-modules/actions/delete/${ORG}/legacy2`)).status).toBe(404);
    expect(ADMIN_TOKEN).toBeTruthy();
  });
});

describe('registry in the upstream dialect', () => {
  it('spells the version source as real clients know it', async () => {
    const upstream = await startServer({ UNDERSTUDY_DIALECT: 'upstream' });
    try {
      await platform(upstream, 'POST', `/organizations/${ORG}/registry-modules`, {
        body: { data: { type: 'registry-modules', attributes: { name: 'dialect', provider: 'aws' } } },
      });
      const version = await platform(upstream, 'POST', `/registry-modules/${ORG}/dialect/aws/versions`, {
        body: { data: { type: 'registry-module-versions', attributes: { version: '1.0.0' } } },
      });
      expect(version.body.data.attributes.source).toBe('tfe-api');
    } finally {
      await upstream.close();
    }
  });
});
