import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, platform, startServer, type TestServer } from '../../helpers/app.js';
import { moduleFiles, tarball } from './archives.js';
import { ORG, publishByUpload, registryGet } from './helpers.js';

let server: TestServer;
const BASE = '/api/registry/v1/modules';

beforeAll(async () => {
  server = await startServer();
  await publishByUpload(server, 'greeting', 'random', [
    { version: '1.0.0', archive: await tarball(moduleFiles('hello 1.0.0')) },
    { version: '1.2.0', archive: await tarball(moduleFiles('hello 1.2.0')) },
    { version: '2.0.0-beta.1', archive: await tarball(moduleFiles('hello beta')) },
  ]);
  await publishByUpload(server, 'greeting', 'null', [{ version: '0.1.0', archive: await tarball(moduleFiles('null')) }]);
  // A module whose only version never got an archive does not exist for consumers.
  await platform(server, 'POST', `/organizations/${ORG}/registry-modules`, {
    body: { data: { type: 'registry-modules', attributes: { name: 'empty', provider: 'random' } } },
  });
});
afterAll(async () => server.close());

describe('service discovery', () => {
  it('serves /.well-known/terraform.json as application/json without a token', async () => {
    const response = await registryGet(server, '/.well-known/terraform.json', null);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.body).toEqual({
      'modules.v1': '/api/registry/v1/modules/',
      'providers.v1': '/api/registry/v1/providers/',
      'motd.v1': '/api/terraform/motd',
      'state.v2': '/api/v2/',
      'tfe.v2': '/api/v2/',
      'tfe.v2.1': '/api/v2/',
      'tfe.v2.2': '/api/v2/',
    });
  });
});

describe('modules.v1', () => {
  it('needs a token like /api/v2 and answers JSON:API errors', async () => {
    const response = await registryGet(server, `${BASE}/${ORG}/greeting/random/versions`, null);
    expect(response.status).toBe(401);
    expect(response.body.errors[0].status).toBe('401');
    expect((await registryGet(server, `${BASE}/${ORG}/greeting/random/versions`, 'wrong-token')).status).toBe(401);
  });

  it('lists versions of ok uploads only', async () => {
    const response = await registryGet(server, `${BASE}/${ORG}/greeting/random/versions`, ADMIN_TOKEN);
    expect(response.status).toBe(200);
    expect(response.body.modules).toHaveLength(1);
    expect(response.body.modules[0].source).toBe(`${ORG}/greeting/random`);
    expect(response.body.modules[0].versions.map((v: { version: string }) => v.version)).toEqual(['2.0.0-beta.1', '1.2.0', '1.0.0']);
    expect((await registryGet(server, `${BASE}/${ORG}/empty/random/versions`, ADMIN_TOKEN)).status).toBe(404);
    expect((await registryGet(server, `${BASE}/other-org/greeting/random/versions`, ADMIN_TOKEN)).status).toBe(404);
  });

  it('gets a module version with details from the HCL', async () => {
    const response = await registryGet(server, `${BASE}/${ORG}/greeting/random/1.0.0`, ADMIN_TOKEN);
    expect(response.status).toBe(200);
    const body = response.body;
    expect(body).toMatchObject({
      id: `${ORG}/greeting/random/1.0.0`,
      namespace: ORG,
      name: 'greeting',
      provider: 'random',
      version: '1.0.0',
      description: 'Says hello 1.0.0.',
    });
    expect(body.root.readme).toContain('# greeting');
    expect(body.root.inputs).toEqual([
      { name: 'punctuation', type: 'string', description: '', default: '"!"', required: false },
      { name: 'who', type: 'string', description: 'whom to greet', default: '', required: true },
    ]);
    expect(body.root.outputs).toEqual([{ name: 'greeting', description: 'the greeting' }]);
    expect(body.root.provider_dependencies[0]).toMatchObject({ name: 'random', source: 'hashicorp/random', version: '>= 3.0' });
    expect(body.submodules.map((s: { path: string }) => s.path)).toEqual(['modules/inner']);
    expect(body.submodules[0].outputs).toEqual([{ name: 'inner', description: '' }]);
    expect(body.examples.map((s: { path: string }) => s.path)).toEqual(['examples/basic']);
    expect(body.examples[0].dependencies).toEqual([{ name: 'greeting', source: '../..', version: '' }]);
    expect(body.versions).toEqual(['2.0.0-beta.1', '1.2.0', '1.0.0']);
    expect((await registryGet(server, `${BASE}/${ORG}/greeting/random/9.9.9`, ADMIN_TOKEN)).status).toBe(404);
  });

  it('latest for one provider skips pre-releases; latest for all providers lists each', async () => {
    const one = await registryGet(server, `${BASE}/${ORG}/greeting/random`, ADMIN_TOKEN);
    expect(one.body.version).toBe('1.2.0');
    const all = await registryGet(server, `${BASE}/${ORG}/greeting`, ADMIN_TOKEN);
    expect(all.body.modules.map((m: { id: string }) => m.id)).toEqual([`${ORG}/greeting/null/0.1.0`, `${ORG}/greeting/random/1.2.0`]);
  });

  it('lists and searches with offset, limit, provider and namespace', async () => {
    const list = await registryGet(server, `${BASE}?limit=1`, ADMIN_TOKEN);
    expect(list.body.meta).toEqual({ limit: 1, current_offset: 0, next_offset: 1 });
    expect(list.body.modules).toHaveLength(1);
    const second = await registryGet(server, `${BASE}?limit=1&offset=1`, ADMIN_TOKEN);
    expect(second.body.meta).toEqual({ limit: 1, current_offset: 1, prev_offset: 0 });
    const byNamespace = await registryGet(server, `${BASE}/${ORG}`, ADMIN_TOKEN);
    expect(byNamespace.body.modules).toHaveLength(2);
    const search = await registryGet(server, `${BASE}/search?q=greet&provider=null`, ADMIN_TOKEN);
    expect(search.body.modules.map((m: { id: string }) => m.id)).toEqual([`${ORG}/greeting/null/0.1.0`]);
    expect((await registryGet(server, `${BASE}/search?q=nothing-like-it`, ADMIN_TOKEN)).body.modules).toEqual([]);
    expect((await registryGet(server, `${BASE}/search`, ADMIN_TOKEN)).status).toBe(400);
    expect((await registryGet(server, `${BASE}?limit=0`, ADMIN_TOKEN)).status).toBe(400);
    const tooMany = await registryGet(server, `${BASE}?limit=101`, ADMIN_TOKEN);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.errors[0]).toMatchObject({
      status: '400',
      detail: 'limit must be an integer from 1 to 100',
      source: { parameter: 'limit' },
    });
  });

  it('downloads: 204 with a self-authorising X-Terraform-Get that serves the archive, then expires', async () => {
    const response = await registryGet(server, `${BASE}/${ORG}/greeting/random/1.2.0/download`, ADMIN_TOKEN);
    expect(response.status).toBe(204);
    const link = response.headers.get('x-terraform-get')!;
    expect(link).toMatch(/\.tar\.gz$/);
    const archive = await fetch(link);
    expect(archive.status).toBe(200);
    const tar = gunzipSync(Buffer.from(await archive.arrayBuffer())).toString('latin1');
    expect(tar).toContain('hello 1.2.0');
    // A forged link is refused; the real one dies with time.
    expect((await fetch(link.replace(/\.[^./]+\/([^/]+)$/, '.forged/$1'))).status).toBe(404);
    server.app.runtime.clock.advance(6 * 60 * 1000);
    expect((await fetch(link)).status).toBe(404);
  });

  it('download latest redirects (302) to the version download', async () => {
    const response = await registryGet(server, `${BASE}/${ORG}/greeting/random/download`, ADMIN_TOKEN);
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe(`${BASE}/${ORG}/greeting/random/1.2.0/download`);
  });

  it('the public proxy is absent on the self-hosted edition', async () => {
    expect((await registryGet(server, `/api/registry/public/v1/modules/hashicorp/consul/aws/versions`, ADMIN_TOKEN)).status).toBe(404);
  });
});
