import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, platform, startServer, type TestServer } from '../../helpers/app.js';
import { moduleFiles, tarball } from './archives.js';
import { ORG, publishByUpload, registryGet } from './helpers.js';

/** The upstream is a second understudy; its private registry plays the public one. */
let upstream: TestServer;
let hosted: TestServer;
let unconfigured: TestServer;
const PROXY = '/api/registry/public/v1/modules';

beforeAll(async () => {
  upstream = await startServer();
  await publishByUpload(upstream, 'consul', 'aws', [
    { version: '0.1.0', archive: await tarball(moduleFiles('c1')) },
    { version: '0.2.0', archive: await tarball(moduleFiles('c2')) },
  ]);
  hosted = await startServer({
    UNDERSTUDY_EDITION: 'hosted',
    UNDERSTUDY_PUBLIC_REGISTRY_URL: `${upstream.baseUrl}/api/registry/v1/modules/`,
    UNDERSTUDY_PUBLIC_REGISTRY_TOKEN: ADMIN_TOKEN,
  });
  unconfigured = await startServer({ UNDERSTUDY_EDITION: 'hosted' });
});
afterAll(async () => {
  await Promise.all([upstream.close(), hosted.close(), unconfigured.close()]);
});

describe('public registry proxy (hosted edition)', () => {
  it('forwards list versions, get a module and latest for a provider', async () => {
    const versions = await registryGet(hosted, `${PROXY}/${ORG}/consul/aws/versions`, ADMIN_TOKEN);
    expect(versions.status).toBe(200);
    expect(versions.body.modules[0].versions.map((v: { version: string }) => v.version)).toEqual(['0.2.0', '0.1.0']);
    const one = await registryGet(hosted, `${PROXY}/${ORG}/consul/aws/0.1.0`, ADMIN_TOKEN);
    expect(one.body).toMatchObject({ id: `${ORG}/consul/aws/0.1.0`, version: '0.1.0' });
    const latest = await registryGet(hosted, `${PROXY}/${ORG}/consul/aws`, ADMIN_TOKEN);
    expect(latest.body.version).toBe('0.2.0');
  });

  it('passes a 404 on, needs a token itself, and says clearly when no upstream is set', async () => {
    expect((await registryGet(hosted, `${PROXY}/${ORG}/nothing/aws/versions`, ADMIN_TOKEN)).status).toBe(404);
    expect((await registryGet(hosted, `${PROXY}/${ORG}/consul/aws/versions`, null)).status).toBe(401);
    const none = await registryGet(unconfigured, `${PROXY}/${ORG}/consul/aws/versions`, ADMIN_TOKEN);
    expect(none.status).toBe(404);
    expect(none.body.errors[0].detail).toContain('UNDERSTUDY_PUBLIC_REGISTRY_URL');
  });

  it('curates public module records: create, show, list, delete only by namespace and name', async () => {
    const created = await platform(hosted, 'POST', `/organizations/${ORG}/registry-modules`, {
      body: {
        data: {
          type: 'registry-modules',
          attributes: { name: 'consul', provider: 'aws', 'registry-name': 'public', namespace: 'hashicorp' },
        },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.data.attributes).toMatchObject({ namespace: 'hashicorp', 'registry-name': 'public' });
    expect(created.body.data.attributes.permissions).toEqual({ 'can-delete': true, 'can-resync': true, 'can-retry': true });
    const missingNamespace = await platform(hosted, 'POST', `/organizations/${ORG}/registry-modules`, {
      body: { data: { type: 'registry-modules', attributes: { name: 'vault', provider: 'aws', 'registry-name': 'public' } } },
    });
    expect(missingNamespace.status).toBe(422);
    const path = `/organizations/${ORG}/registry-modules/public/hashicorp/consul`;
    expect((await platform(hosted, 'GET', `${path}/aws`)).status).toBe(200);
    const listed = await platform(hosted, 'GET', `/organizations/${ORG}/registry-modules?filter[registry_name]=public`);
    expect(listed.body.data.map((m: { id: string }) => m.id)).toEqual([created.body.data.id]);
    const version = await platform(hosted, 'POST', `${path}/aws/versions`, {
      body: { data: { type: 'registry-module-versions', attributes: { version: '1.0.0' } } },
    });
    expect(version.status).toBe(403);
    expect((await platform(hosted, 'DELETE', `${path}/aws`)).status).toBe(404);
    expect((await platform(hosted, 'DELETE', `${path}/aws/1.0.0`)).status).toBe(404);
    expect((await platform(hosted, 'DELETE', path)).status).toBe(204);
    expect((await platform(hosted, 'GET', `${path}/aws`)).status).toBe(404);
    // Only the record went: the public module itself still answers through the proxy.
    expect((await registryGet(hosted, `${PROXY}/${ORG}/consul/aws/versions`, ADMIN_TOKEN)).status).toBe(200);
  });

  it('removes a curated public record with the deprecated delete by name, as the Go client calls it', async () => {
    const curate = (namespace: string) =>
      platform(hosted, 'POST', `/organizations/${ORG}/registry-modules`, {
        body: { data: { type: 'registry-modules', attributes: { name: 'nomad', provider: 'aws', 'registry-name': 'public', namespace } } },
      });
    expect((await curate('hashicorp')).status).toBe(201);
    const deleted = await platform(hosted, 'POST', `/registry-modules/actions/delete/${ORG}/nomad`);
    expect(deleted.status).toBe(204);
    expect((await platform(hosted, 'GET', `/organizations/${ORG}/registry-modules/public/hashicorp/nomad/aws`)).status).toBe(404);
    expect((await platform(hosted, 'POST', `/registry-modules/actions/delete/${ORG}/nomad`)).status).toBe(404);
  });
});
