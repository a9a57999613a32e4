import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform, startServer, type TestServer } from '../../helpers/app.js';
import { GPG_KEYS, ORG, providerPath, put, registryCall } from './helpers.js';
import { newSigner, sha256, type Signer } from './signing.js';

let server: TestServer;
let signer: Signer;

beforeAll(async () => {
  [server, signer] = await Promise.all([startServer(), newSigner()]);
});
afterAll(async () => {
  await server.close();
  await signer.close();
});

// Bodies as go-tfe marshals them (RegistryProviderCreateOptions and friends).
const createProvider = (name: string, namespace: string | undefined, registryName: string | undefined) =>
  platform(server, 'POST', `/organizations/${ORG}/registry-providers`, {
    body: { data: { type: 'registry-providers', attributes: { name, namespace, 'registry-name': registryName } } },
  });
const createVersion = (name: string, attributes: Record<string, unknown>) =>
  platform(server, 'POST', `${providerPath(name)}/versions`, { body: { data: { type: 'registry-provider-versions', attributes } } });
const createPlatform = (name: string, version: string, attributes: Record<string, unknown>) =>
  platform(server, 'POST', `${providerPath(name)}/versions/${version}/platforms`, {
    body: { data: { type: 'registry-provider-platforms', attributes } },
  });

/** A member with no team flags: reads the organization, manages nothing. */
async function memberToken(): Promise<string> {
  const team = await platform(server, 'POST', `/organizations/${ORG}/teams`, {
    body: { data: { type: 'teams', attributes: { name: `readers-${Date.now()}` } } },
  });
  const token = await platform(server, 'POST', `/teams/${team.body.data.id}/authentication-token`, {
    body: { data: { type: 'authentication-tokens' } },
  });
  return token.body.data.attributes.token as string;
}

describe('registry providers', () => {
  it('creates private and public providers with their attributes, organization and permissions', async () => {
    const made = await createProvider('provider_name', ORG, 'private');
    expect(made.status).toBe(201);
    const data = made.body.data;
    expect(data.type).toBe('registry-providers');
    expect(data.id).toMatch(/^prov-/);
    expect(data.attributes).toMatchObject({
      name: 'provider_name',
      namespace: ORG,
      'registry-name': 'private',
      permissions: { 'can-delete': true },
    });
    expect(data.attributes['created-at']).toMatch(/Z$/);
    expect(data.relationships.organization.data).toEqual({ id: ORG, type: 'organizations' });
    expect(data.relationships['registry-provider-versions'].data).toEqual([]);

    const publicOne = await createProvider('provider_name', 'public_namespace', 'public');
    expect(publicOne.status).toBe(201);
    expect(publicOne.body.data.attributes).toMatchObject({ namespace: 'public_namespace', 'registry-name': 'public' });

    const read = await platform(server, 'GET', providerPath('provider_name', 'public', 'public_namespace'));
    expect(read.body.data).toEqual(publicOne.body.data);
    const byId = await platform(server, 'GET', `/registry-providers/${data.id}`);
    expect(byId.body.data).toEqual(data);
  });

  it('answers bad bodies with the real 422s and their pointers, and a duplicate name', async () => {
    const blank = await createProvider('name', 'namespace', undefined);
    expect(blank.status).toBe(422);
    expect(blank.body.errors).toEqual([
      {
        status: '422',
        title: 'invalid attribute',
        detail: "Registry name can't be blank",
        source: { pointer: '/data/attributes/registry-name' },
      },
      {
        status: '422',
        title: 'invalid attribute',
        detail: 'Registry name is not included in the list',
        source: { pointer: '/data/attributes/registry-name' },
      },
    ]);
    const invalid = await createProvider('name', 'namespace', 'invalid');
    expect(invalid.body.errors).toHaveLength(1);
    expect(invalid.body.errors[0].detail).toBe('Registry name is not included in the list');
    const badName = await createProvider('invalid name', ORG, 'private');
    expect([badName.status, badName.body.errors[0].source.pointer]).toEqual([422, '/data/attributes/name']);
    const foreign = await createProvider('x', 'someone-else', 'private');
    expect([foreign.status, foreign.body.errors[0].source.pointer]).toEqual([422, '/data/attributes/namespace']);
    await createProvider('twice', ORG, 'private');
    const again = await createProvider('twice', ORG, 'private');
    expect([again.status, again.body.errors[0].detail]).toEqual([422, 'Name has already been taken']);
    const notJson = await platform(server, 'POST', `/organizations/${ORG}/registry-providers`, { body: '{"data":' });
    expect(notJson.status).toBe(422);
  });

  it('lists with filters, search, pagination past the end and the versions include', async () => {
    for (const name of ['list-a', 'list-b']) await createProvider(name, ORG, 'private');
    await createProvider('list-c', 'elsewhere', 'public');
    await createVersion('list-a', { version: '1.0.0', 'key-id': 'ABCDEF0123456789', protocols: ['5.0'] });
    const all = await platform(server, 'GET', `/organizations/${ORG}/registry-providers?page%5Bsize%5D=100`);
    const names = all.body.data.map((provider: { attributes: { name: string } }) => provider.attributes.name);
    expect(names).toEqual(expect.arrayContaining(['list-a', 'list-b', 'list-c']));
    const publicOnly = await platform(server, 'GET', `/organizations/${ORG}/registry-providers?filter%5Bregistry_name%5D=public`);
    expect(
      publicOnly.body.data.every((provider: { attributes: Record<string, string> }) => provider.attributes['registry-name'] === 'public'),
    ).toBe(true);
    const search = await platform(server, 'GET', `/organizations/${ORG}/registry-providers?q=list-b`);
    expect(search.body.meta.pagination['total-count']).toBe(1);
    const beyond = await platform(server, 'GET', `/organizations/${ORG}/registry-providers?page%5Bnumber%5D=999&page%5Bsize%5D=100`);
    expect(beyond.body.data).toEqual([]);
    expect(beyond.body.meta.pagination['current-page']).toBe(999);
    expect(beyond.body.meta.pagination['total-count']).toBe(all.body.meta.pagination['total-count']);
    const included = await platform(server, 'GET', `/organizations/${ORG}/registry-providers?q=list-a&include=registry-provider-versions`);
    expect(included.body.data[0].relationships['registry-provider-versions'].data).toHaveLength(1);
    expect(
      included.body.included.map((item: { type: string; attributes: { version: string } }) => [item.type, item.attributes.version]),
    ).toEqual([['registry-provider-versions', '1.0.0']]);
    const badInclude = await platform(server, 'GET', `/organizations/${ORG}/registry-providers?include=versions`);
    expect(badInclude.status).toBe(400);
  });

  it('creates versions with upload links that turn into download links once the files arrive', async () => {
    await createProvider('uploads', ORG, 'private');
    const made = await createVersion('uploads', { version: '2.1.0', 'key-id': signer.keyId, protocols: ['5.0', '6.0'] });
    expect(made.status).toBe(201);
    const version = made.body.data;
    expect(version.attributes).toMatchObject({
      version: '2.1.0',
      'key-id': signer.keyId,
      protocols: ['5.0', '6.0'],
      'shasums-uploaded': false,
      'shasums-sig-uploaded': false,
      permissions: { 'can-delete': true, 'can-upload-asset': true },
    });
    expect(Object.keys(version.links).sort()).toEqual(['shasums-sig-upload', 'shasums-upload']);
    expect(version.relationships['registry-provider'].data.type).toBe('registry-providers');

    const sums = Buffer.from(`${'a'.repeat(64)}  terraform-provider-uploads_2.1.0_linux_amd64.zip\n`);
    expect((await put(version.links['shasums-upload'], sums)).status).toBe(200);
    expect((await put(version.links['shasums-sig-upload'], await signer.sign(sums))).status).toBe(200);
    const read = await platform(server, 'GET', `${providerPath('uploads')}/versions/2.1.0`);
    expect(read.body.data.attributes).toMatchObject({ 'shasums-uploaded': true, 'shasums-sig-uploaded': true });
    expect(Object.keys(read.body.data.links).sort()).toEqual(['shasums-download', 'shasums-sig-download']);
    const downloaded = await fetch(read.body.data.links['shasums-download']);
    expect(Buffer.from(await downloaded.arrayBuffer())).toEqual(sums);

    const list = await platform(server, 'GET', `${providerPath('uploads')}/versions`);
    expect(list.body.data.map((item: { id: string }) => item.id)).toEqual([version.id]);
  });

  it('refuses bad versions: blank, not semver, no key, bad protocols, taken, public provider', async () => {
    await createProvider('strict', ORG, 'private');
    const cases: [Record<string, unknown>, string][] = [
      [{ 'key-id': 'K', protocols: ['5.0'] }, '/data/attributes/version'],
      [{ version: 'one', 'key-id': 'K', protocols: ['5.0'] }, '/data/attributes/version'],
      [{ version: '1.0.0', protocols: ['5.0'] }, '/data/attributes/key-id'],
      [{ version: '1.0.0', 'key-id': 'K', protocols: null }, '/data/attributes/protocols'],
      [{ version: '1.0.0', 'key-id': 'K', protocols: ['five'] }, '/data/attributes/protocols'],
      [{ version: '1.0.0', 'key-id': 'K', protocols: 'five' }, '/data/attributes/protocols'],
    ];
    for (const [attributes, pointer] of cases) {
      const refused = await createVersion('strict', attributes);
      expect([refused.status, refused.body.errors[0].source?.pointer]).toEqual([422, pointer]);
    }
    expect((await createVersion('strict', { version: '1.0.0', 'key-id': 'K', protocols: ['5.0'] })).status).toBe(201);
    const taken = await createVersion('strict', { version: '1.0.0', 'key-id': 'K', protocols: ['5.0'] });
    expect(taken.body.errors[0].detail).toBe('Version has already been taken');
    const list = await platform(server, 'GET', `${providerPath('strict')}/versions`);
    expect(list.body.meta.pagination['total-count']).toBe(1);
    await createProvider('curated', 'hashicorp', 'public');
    const onPublic = await platform(server, 'POST', `${providerPath('curated', 'public', 'hashicorp')}/versions`, {
      body: { data: { type: 'registry-provider-versions', attributes: { version: '1.0.0', 'key-id': 'K', protocols: ['5.0'] } } },
    });
    expect(onPublic.status).toBe(403);
  });

  it('creates platforms, checks an uploaded zip against its shasum, and deletes them', async () => {
    await createProvider('plat', ORG, 'private');
    await createVersion('plat', { version: '0.1.0', 'key-id': 'K', protocols: ['5.0'] });
    const zip = Buffer.concat([Buffer.from('PK\x03\x04', 'latin1'), Buffer.from('not really a zip, but it starts like one')]);
    const made = await createPlatform('plat', '0.1.0', { os: 'linux', arch: 'amd64', shasum: sha256(zip), filename: 'p.zip' });
    expect(made.status).toBe(201);
    expect(made.body.data.attributes).toMatchObject({
      os: 'linux',
      arch: 'amd64',
      shasum: sha256(zip),
      filename: 'p.zip',
      'provider-binary-uploaded': false,
    });
    expect(made.body.data.relationships['registry-provider-version'].data.type).toBe('registry-provider-versions');
    const link = made.body.data.links['provider-binary-upload'];

    const notZip = await put(link, Buffer.from('hello'));
    expect(notZip.status).toBe(422);
    const wrongSum = await put(link, Buffer.concat([zip, Buffer.from('!')]));
    expect(wrongSum.status).toBe(422);
    expect(
      (await platform(server, 'GET', `${providerPath('plat')}/versions/0.1.0/platforms/linux/amd64`)).body.data.attributes[
        'provider-binary-uploaded'
      ],
    ).toBe(false);
    expect((await put(link, zip)).status).toBe(200);
    const read = await platform(server, 'GET', `${providerPath('plat')}/versions/0.1.0/platforms/linux/amd64`);
    expect(read.body.data.attributes['provider-binary-uploaded']).toBe(true);
    expect(Buffer.from(await (await fetch(read.body.data.links['provider-binary-download'])).arrayBuffer())).toEqual(zip);

    for (const [attributes, pointer] of [
      [{ arch: 'amd64', shasum: sha256(zip), filename: 'p.zip' }, '/data/attributes/os'],
      [{ os: 'linux', shasum: sha256(zip), filename: 'p.zip' }, '/data/attributes/arch'],
      [{ os: 'linux', arch: 'arm64', filename: 'p.zip' }, '/data/attributes/shasum'],
      [{ os: 'linux', arch: 'arm64', shasum: 'abc', filename: 'p.zip' }, '/data/attributes/shasum'],
      [{ os: 'linux', arch: 'arm64', shasum: sha256(zip) }, '/data/attributes/filename'],
      [{ os: 'linux', arch: 'amd64', shasum: sha256(zip), filename: 'again.zip' }, '/data/attributes/os'],
    ] as const) {
      const refused = await createPlatform('plat', '0.1.0', attributes);
      expect([refused.status, refused.body.errors[0].source.pointer]).toEqual([422, pointer]);
    }
    const beyond = await platform(
      server,
      'GET',
      `${providerPath('plat')}/versions/0.1.0/platforms?page%5Bnumber%5D=999&page%5Bsize%5D=100`,
    );
    expect([beyond.body.data, beyond.body.meta.pagination['total-count']]).toEqual([[], 1]);
    expect((await platform(server, 'DELETE', `${providerPath('plat')}/versions/0.1.0/platforms/linux/amd64`)).status).toBe(204);
    expect((await platform(server, 'GET', `${providerPath('plat')}/versions/0.1.0/platforms/linux/amd64`)).status).toBe(404);
    expect((await put(link, zip)).status).toBe(404);
  });

  it('deletes versions and providers; missing ones and members without Manage Providers get 404', async () => {
    await createProvider('gone', ORG, 'private');
    await createVersion('gone', { version: '1.0.0', 'key-id': 'K', protocols: ['5.0'] });
    const member = await memberToken();
    expect((await platform(server, 'GET', providerPath('gone'), { token: member })).body.data.attributes.permissions['can-delete']).toBe(
      false,
    );
    expect((await platform(server, 'DELETE', providerPath('gone'), { token: member })).status).toBe(404);
    expect(
      (
        await platform(server, 'POST', `/organizations/${ORG}/registry-providers`, {
          token: member,
          body: { data: { type: 'registry-providers', attributes: { name: 'm', namespace: ORG, 'registry-name': 'private' } } },
        })
      ).status,
    ).toBe(404);
    expect((await platform(server, 'DELETE', `${providerPath('gone')}/versions/1.0.0`)).status).toBe(204);
    expect((await platform(server, 'GET', `${providerPath('gone')}/versions/1.0.0`)).status).toBe(404);
    expect((await platform(server, 'DELETE', providerPath('gone'))).status).toBe(204);
    expect((await platform(server, 'GET', providerPath('gone'))).status).toBe(404);
    expect((await platform(server, 'DELETE', providerPath('nonexistent', 'public', 'nonexistent'))).status).toBe(404);
    expect((await platform(server, 'GET', providerPath('x', 'elsewhere', 'y'))).status).toBe(404);
  });
});

describe('GPG keys', () => {
  it('adds a key with the id read from the key itself, reads, lists, moves and deletes it', async () => {
    const made = await registryCall(server, 'POST', GPG_KEYS, {
      body: { data: { type: 'gpg-keys', attributes: { namespace: ORG, 'ascii-armor': signer.armor } } },
    });
    expect(made.status).toBe(201);
    expect(made.body.data.type).toBe('gpg-keys');
    expect(made.body.data.attributes).toMatchObject({
      'key-id': signer.keyId,
      namespace: ORG,
      'ascii-armor': signer.armor,
      source: '',
      'trust-signature': '',
    });
    const read = await registryCall(server, 'GET', `${GPG_KEYS}/${ORG}/${signer.keyId}`);
    expect(read.body.data).toEqual(made.body.data);
    const list = await registryCall(server, 'GET', `${GPG_KEYS}?filter%5Bnamespace%5D=${ORG}`);
    expect(list.body.data.map((key: { id: string }) => key.id)).toContain(made.body.data.id);
    const beyond = await registryCall(server, 'GET', `${GPG_KEYS}?filter%5Bnamespace%5D=${ORG}&page%5Bnumber%5D=999&page%5Bsize%5D=100`);
    expect([beyond.body.data, beyond.body.meta.pagination['current-page']]).toEqual([[], 999]);
    expect((await registryCall(server, 'GET', GPG_KEYS)).status).toBe(400);

    const again = await registryCall(server, 'POST', GPG_KEYS, {
      body: { data: { type: 'gpg-keys', attributes: { namespace: ORG, 'ascii-armor': signer.armor } } },
    });
    expect([again.status, again.body.errors[0].source.pointer]).toEqual([422, '/data/attributes/ascii-armor']);
    const garbage = await registryCall(server, 'POST', GPG_KEYS, {
      body: { data: { type: 'gpg-keys', attributes: { namespace: ORG, 'ascii-armor': 'not a key' } } },
    });
    expect([garbage.status, garbage.body.errors[0].source.pointer]).toEqual([422, '/data/attributes/ascii-armor']);

    const elsewhere = await registryCall(server, 'PATCH', `${GPG_KEYS}/${ORG}/${signer.keyId}`, {
      body: { data: { type: 'gpg-keys', attributes: { namespace: 'invalid_namespace_org' } } },
    });
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body.errors[0].detail).toContain('namespace not authorized');
    const other = await platform(server, 'POST', '/organizations', {
      body: { data: { type: 'organizations', attributes: { name: 'key-move-target', email: 'k@example.com' } } },
    });
    expect(other.status).toBe(201);
    const moved = await registryCall(server, 'PATCH', `${GPG_KEYS}/${ORG}/${signer.keyId}`, {
      body: { data: { type: 'gpg-keys', attributes: { namespace: 'key-move-target' } } },
    });
    expect(moved.body.data.attributes).toMatchObject({ namespace: 'key-move-target', 'key-id': signer.keyId });
    expect((await registryCall(server, 'GET', `${GPG_KEYS}/${ORG}/${signer.keyId}`)).status).toBe(404);
    expect((await registryCall(server, 'DELETE', `${GPG_KEYS}/key-move-target/${signer.keyId}`)).status).toBe(204);
    expect((await registryCall(server, 'GET', `${GPG_KEYS}/key-move-target/${signer.keyId}`)).status).toBe(404);
    expect((await registryCall(server, 'GET', `${GPG_KEYS}/${ORG}/foobar`)).status).toBe(404);
  });
});
