import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform, startServer, type TestServer } from '../../helpers/app.js';
import { moduleFiles, tarball } from './archives.js';

const ORG = 'understudy';
const OTHER = 'otherco';

/** The body go-tfe's RegistryNoCodeModules.Create sends (the module relation carries its attributes). */
const noCodeBody = (moduleId: string, extra: { attributes?: object; options?: object[] } = {}) => ({
  data: {
    type: 'no-code-modules',
    attributes: extra.attributes ?? {},
    relationships: {
      'registry-module': { data: { type: 'registry-modules', id: moduleId, attributes: { name: 'ignored' } } },
      ...(extra.options ? { 'variable-options': { data: extra.options } } : {}),
    },
  },
});
const option = (name: string, options: string[]) => ({
  type: 'variable-options',
  attributes: { 'variable-name': name, 'variable-type': 'string', options },
});

for (const edition of ['self-hosted', 'hosted'] as const) {
  describe(`no-code modules (${edition})`, () => {
    let server: TestServer;
    let memberToken: string;
    let outsiderToken: string;
    const createModule = async (name: string, attributes: object = {}) => {
      const created = await platform(server, 'POST', `/organizations/${ORG}/registry-modules`, {
        body: { data: { type: 'registry-modules', attributes: { name, provider: 'aws', ...attributes } } },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return created.body.data.id as string;
    };
    const createVersion = (name: string, version: string) =>
      platform(server, 'POST', `/organizations/${ORG}/registry-modules/private/${ORG}/${name}/aws/versions`, {
        body: { data: { type: 'registry-module-versions', attributes: { version } } },
      });
    const teamToken = async (org: string, name: string) => {
      const team = await platform(server, 'POST', `/organizations/${org}/teams`, {
        body: { data: { type: 'teams', attributes: { name } } },
      });
      const token = await platform(server, 'POST', `/teams/${team.body.data.id}/authentication-token`, {
        body: { data: { type: 'authentication-tokens' } },
      });
      return token.body.data.attributes.token as string;
    };

    beforeAll(async () => {
      server = await startServer(edition === 'hosted' ? { UNDERSTUDY_EDITION: 'hosted' } : {});
      await platform(server, 'POST', '/organizations', {
        body: { data: { type: 'organizations', attributes: { name: OTHER, email: 'o@x.test' } } },
      });
      memberToken = await teamToken(ORG, 'readers');
      outsiderToken = await teamToken(OTHER, 'strangers');
    });
    afterAll(() => server.close());

    it('creates one: enabled by default, latest version, relationships to organization and module', async () => {
      const moduleId = await createModule('plain');
      const created = await platform(server, 'POST', `/organizations/${ORG}/no-code-modules`, { body: noCodeBody(moduleId) });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body.data).toMatchObject({
        type: 'no-code-modules',
        attributes: { enabled: true, 'version-pin': '' },
        relationships: {
          organization: { data: { id: ORG, type: 'organizations' } },
          'registry-module': { data: { id: moduleId, type: 'registry-modules' } },
          'variable-options': { data: [] },
        },
      });
      expect(created.body.data.id).toMatch(/^nocode-/);
      // The module now says so, and lists it as a relationship (and in `included` when asked).
      const module = await platform(server, 'GET', `/registry-modules/${moduleId}?include=no-code-modules`);
      expect(module.body.data.attributes['no-code']).toBe(true);
      expect(module.body.data.relationships['no-code-modules'].data).toEqual([{ id: created.body.data.id, type: 'no-code-modules' }]);
      expect(module.body.included).toEqual([expect.objectContaining({ id: created.body.data.id, type: 'no-code-modules' })]);
      // A second one for the same module is refused.
      const again = await platform(server, 'POST', `/organizations/${ORG}/no-code-modules`, { body: noCodeBody(moduleId) });
      expect(again.status).toBe(422);
      expect(again.body.errors[0].source.pointer).toBe('/data/relationships/registry-module');
    });

    it('pins a version only if the module has it, and keeps enabled: false', async () => {
      const moduleId = await createModule('pinned');
      const missing = await platform(server, 'POST', `/organizations/${ORG}/no-code-modules`, {
        body: noCodeBody(moduleId, { attributes: { 'version-pin': '1.2.5' } }),
      });
      expect(missing.status).toBe(422);
      expect(missing.body.errors[0].detail).toContain('version pin');
      expect(missing.body.errors[0].source.pointer).toBe('/data/attributes/version-pin');
      expect((await platform(server, 'GET', `/registry-modules/${moduleId}`)).body.data.relationships['no-code-modules'].data).toEqual([]);

      expect((await createVersion('pinned', '1.2.3')).status).toBe(201);
      const pinned = await platform(server, 'POST', `/organizations/${ORG}/no-code-modules`, {
        body: noCodeBody(moduleId, { attributes: { 'version-pin': '1.2.3', enabled: false } }),
      });
      expect(pinned.status).toBe(201);
      expect(pinned.body.data.attributes).toEqual({ enabled: false, 'version-pin': '1.2.3' });
      expect((await platform(server, 'GET', `/registry-modules/${moduleId}`)).body.data.attributes['no-code']).toBe(false);
    });

    it('stores variable options and includes them on request', async () => {
      const moduleId = await createModule('options');
      const created = await platform(server, 'POST', `/organizations/${ORG}/no-code-modules`, {
        body: noCodeBody(moduleId, { options: [option('var1', ['option1', 'option2']), option('my_var', ['my_option1'])] }),
      });
      expect(created.status).toBe(201);
      expect(created.body.data.relationships['variable-options'].data).toHaveLength(2);
      const id = created.body.data.id as string;
      const plain = await platform(server, 'GET', `/no-code-modules/${id}`);
      expect(plain.status).toBe(200);
      expect(plain.body.included).toBeUndefined();
      const read = await platform(server, 'GET', `/no-code-modules/${id}?include=variable-options`);
      expect(read.body.included.map((entry: { attributes: object }) => entry.attributes)).toEqual([
        { 'variable-name': 'var1', 'variable-type': 'string', options: ['option1', 'option2'] },
        { 'variable-name': 'my_var', 'variable-type': 'string', options: ['my_option1'] },
      ]);
      expect((await platform(server, 'GET', `/no-code-modules/${id}?include=workspaces`)).status).toBe(400);

      const bad = await platform(server, 'POST', `/organizations/${ORG}/no-code-modules`, {
        body: noCodeBody(await createModule('bad-options'), {
          options: [{ type: 'variable-options', attributes: { 'variable-type': 'string' } }],
        }),
      });
      expect(bad.status).toBe(422);
      expect(bad.body.errors[0].source.pointer).toBe('/data/relationships/variable-options/data/0/attributes/variable-name');
    });

    it('updates: an update that sets nothing changes nothing; enabled and options change; the module cannot', async () => {
      const moduleId = await createModule('updated');
      const id = (await platform(server, 'POST', `/organizations/${ORG}/no-code-modules`, { body: noCodeBody(moduleId) })).body.data.id;
      const before = await platform(server, 'GET', `/no-code-modules/${id}`);
      const same = await platform(server, 'PATCH', `/no-code-modules/${id}`, { body: noCodeBody(moduleId) });
      expect(same.status).toBe(200);
      expect(same.body.data).toEqual(before.body.data);

      const disabled = await platform(server, 'PATCH', `/no-code-modules/${id}`, {
        body: noCodeBody(moduleId, { attributes: { enabled: false }, options: [option('region', ['eu', 'us'])] }),
      });
      expect(disabled.status).toBe(200);
      expect(disabled.body.data.attributes.enabled).toBe(false);
      expect(disabled.body.data.relationships['variable-options'].data).toHaveLength(1);
      expect((await platform(server, 'GET', `/registry-modules/${moduleId}`)).body.data.attributes['no-code']).toBe(false);

      const badPin = await platform(server, 'PATCH', `/no-code-modules/${id}`, {
        body: noCodeBody(moduleId, { attributes: { 'version-pin': '9.9.9' } }),
      });
      expect(badPin.status).toBe(422);
      const otherModule = await createModule('elsewhere');
      expect((await platform(server, 'PATCH', `/no-code-modules/${id}`, { body: noCodeBody(otherModule) })).status).toBe(422);
      expect((await platform(server, 'GET', `/no-code-modules/${id}`)).body.data.attributes).toEqual({ enabled: false, 'version-pin': '' });
    });

    it('deletes, after which it is a 404 and the module is no longer no-code', async () => {
      const moduleId = await createModule('deleted');
      const id = (await platform(server, 'POST', `/organizations/${ORG}/no-code-modules`, { body: noCodeBody(moduleId) })).body.data.id;
      expect((await platform(server, 'DELETE', `/no-code-modules/${id}`)).status).toBe(204);
      expect((await platform(server, 'GET', `/no-code-modules/${id}`)).status).toBe(404);
      expect((await platform(server, 'DELETE', `/no-code-modules/${id}`)).status).toBe(404);
      expect((await platform(server, 'DELETE', '/no-code-modules/invalid')).status).toBe(404);
      const module = await platform(server, 'GET', `/registry-modules/${moduleId}`);
      expect(module.body.data.attributes['no-code']).toBe(false);
      expect(module.body.data.relationships['no-code-modules'].data).toEqual([]);
    });

    it('lets members read and only module managers write; other organizations see nothing', async () => {
      const moduleId = await createModule('guarded');
      const asMember = await platform(server, 'POST', `/organizations/${ORG}/no-code-modules`, {
        body: noCodeBody(moduleId),
        token: memberToken,
      });
      expect(asMember.status).toBe(404);
      const id = (await platform(server, 'POST', `/organizations/${ORG}/no-code-modules`, { body: noCodeBody(moduleId) })).body.data.id;
      expect((await platform(server, 'GET', `/no-code-modules/${id}`, { token: memberToken })).status).toBe(200);
      expect((await platform(server, 'PATCH', `/no-code-modules/${id}`, { body: noCodeBody(moduleId), token: memberToken })).status).toBe(
        404,
      );
      expect((await platform(server, 'DELETE', `/no-code-modules/${id}`, { token: memberToken })).status).toBe(404);
      expect((await platform(server, 'GET', `/no-code-modules/${id}`, { token: outsiderToken })).status).toBe(404);
      // A module of another organization cannot be offered here.
      const foreign = await platform(server, 'POST', `/organizations/${OTHER}/no-code-modules`, { body: noCodeBody(moduleId) });
      expect(foreign.status).toBe(404);
      expect(foreign.body.errors[0].detail).toContain(moduleId);
      // Bad bodies are 4xx, never 5xx.
      for (const body of [{}, { data: { type: 'no-code-modules' } }, { data: { type: 'workspaces' } }, noCodeBody('mod-missing')]) {
        const response = await platform(server, 'POST', `/organizations/${ORG}/no-code-modules`, { body });
        expect([404, 422], JSON.stringify(response.body)).toContain(response.status);
      }
      expect((await platform(server, 'GET', `/no-code-modules/${id}`)).status).toBe(200);
    });

    it("reads a version's variables with the options offered", async () => {
      const moduleId = await createModule('vars');
      const version = await createVersion('vars', '1.0.0');
      const archive = await tarball(moduleFiles('hello'));
      const uploaded = await fetch(version.body.data.links.upload, { method: 'PUT', body: new Uint8Array(archive) });
      expect(uploaded.status).toBe(200);
      const id = (
        await platform(server, 'POST', `/organizations/${ORG}/no-code-modules`, {
          body: noCodeBody(moduleId, { attributes: { 'version-pin': '1.0.0' }, options: [option('who', ['eu', 'us'])] }),
        })
      ).body.data.id;
      const variables = await platform(server, 'GET', `/no-code-modules/${id}/versions/1.0.0/module-variables`);
      expect(variables.status).toBe(200);
      const who = variables.body.data.find((entry: { attributes: { name: string } }) => entry.attributes.name === 'who');
      expect(who).toMatchObject({
        type: 'registry-module-variables',
        attributes: { type: 'string', required: true, options: ['eu', 'us'], 'has-global': false },
      });
      expect((await platform(server, 'GET', `/no-code-modules/${id}/versions/2.0.0/module-variables`)).status).toBe(404);
    });
  });
}

describe('PATCH of a registry module, include=no-code-modules, and versions of a missing module', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ UNDERSTUDY_EDITION: 'hosted' });
  });
  afterAll(() => server.close());
  const address = (name: string) => `/organizations/${ORG}/registry-modules/private/${ORG}/${name}/aws`;
  /** go-tfe's RegistryModules.Update: `tag-bindings` always present, empty unless set. */
  const patch = (name: string, attributes: object, extra: { token?: string; bindings?: object[] } = {}) =>
    platform(server, 'PATCH', address(name), {
      body: { data: { type: 'registry-modules', attributes, relationships: { 'tag-bindings': { data: extra.bindings ?? [] } } } },
      ...(extra.token ? { token: extra.token } : {}),
    });

  it('enables and disables no-code through the module, keeping one no-code module', async () => {
    const created = await platform(server, 'POST', `/organizations/${ORG}/registry-modules`, {
      body: { data: { type: 'registry-modules', attributes: { name: 'toggled', provider: 'aws' } } },
    });
    expect(created.body.data.attributes['no-code']).toBe(false);
    const on = await patch('toggled', { 'no-code': true });
    expect(on.status, JSON.stringify(on.body)).toBe(200);
    expect(on.body.data.attributes['no-code']).toBe(true);
    const [noCode] = on.body.data.relationships['no-code-modules'].data;
    expect(noCode.type).toBe('no-code-modules');
    const off = await patch('toggled', { 'no-code': false });
    expect(off.body.data.attributes['no-code']).toBe(false);
    expect(off.body.data.relationships['no-code-modules'].data).toEqual([noCode]);
    expect((await platform(server, 'GET', `/no-code-modules/${noCode.id}`)).body.data.attributes.enabled).toBe(false);
    expect((await patch('toggled', { 'no-code': true })).body.data.relationships['no-code-modules'].data).toEqual([noCode]);

    const nothing = await patch('toggled', {});
    expect(nothing.status).toBe(200);
    expect(nothing.body.data.attributes['no-code']).toBe(true);
    expect((await patch('missing', { 'no-code': true })).status).toBe(404);
    // What understudy does not model is refused, and changes nothing.
    expect((await patch('toggled', { 'no-code': false, 'vcs-repo': { branch: 'main' } })).status).toBe(422);
    expect((await patch('toggled', { 'no-code': false, 'test-config': { 'tests-enabled': true } })).status).toBe(422);
    expect((await patch('toggled', { 'no-code': false }, { bindings: [{ type: 'tag-bindings', attributes: { key: 'a' } }] })).status).toBe(
      422,
    );
    expect((await patch('toggled', { 'no-code': 'yes' })).status).toBe(422);
    expect((await platform(server, 'GET', address('toggled'))).body.data.attributes['no-code']).toBe(true);
  });

  it('needs Manage Modules to patch (others get 404)', async () => {
    await platform(server, 'POST', `/organizations/${ORG}/registry-modules`, {
      body: { data: { type: 'registry-modules', attributes: { name: 'kept', provider: 'aws' } } },
    });
    const team = await platform(server, 'POST', `/organizations/${ORG}/teams`, {
      body: { data: { type: 'teams', attributes: { name: 'patch-readers' } } },
    });
    const token = (
      await platform(server, 'POST', `/teams/${team.body.data.id}/authentication-token`, {
        body: { data: { type: 'authentication-tokens' } },
      })
    ).body.data.attributes.token as string;
    expect((await platform(server, 'GET', address('kept'), { token })).status).toBe(200);
    expect((await patch('kept', { 'no-code': true }, { token })).status).toBe(404);
    expect((await platform(server, 'GET', address('kept'))).body.data.attributes['no-code']).toBe(false);
  });

  it('creates a no-code module with the deprecated flag and lists it with include=no-code-modules', async () => {
    const created = await platform(server, 'POST', `/organizations/${ORG}/registry-modules`, {
      body: { data: { type: 'registry-modules', attributes: { name: 'iam', provider: 'aws', 'no-code': true } } },
    });
    expect(created.body.data.attributes['no-code']).toBe(true);
    expect(created.body.data.relationships['no-code-modules'].data).toHaveLength(1);
    const list = await platform(server, 'GET', `/organizations/${ORG}/registry-modules?include=no-code-modules`);
    expect(list.status).toBe(200);
    const iam = list.body.data.find((module: { id: string }) => module.id === created.body.data.id);
    expect(iam.relationships['no-code-modules'].data).toHaveLength(1);
    expect(list.body.included.map((entry: { id: string }) => entry.id)).toContain(iam.relationships['no-code-modules'].data[0].id);
    expect((await platform(server, 'GET', `/organizations/${ORG}/registry-modules`)).body.included).toBeUndefined();
    expect((await platform(server, 'GET', `/organizations/${ORG}/registry-modules?include=versions`)).status).toBe(400);
  });

  it('answers a version of a missing module with a 404 naming the module', async () => {
    const response = await platform(server, 'POST', `/organizations/${ORG}/registry-modules/private/${ORG}/nowhere/aws/versions`, {
      body: { data: { type: 'registry-module-versions', attributes: { version: '1.0.0' } } },
    });
    expect(response.status).toBe(404);
    expect(response.body.errors[0].detail).toContain(`private/${ORG}/nowhere/aws`);
    const deprecated = await platform(server, 'POST', `/registry-modules/${ORG}/nowhere/aws/versions`, {
      body: { data: { type: 'registry-module-versions', attributes: { version: '1.0.0' } } },
    });
    expect(deprecated.status).toBe(404);
    expect(deprecated.body.errors[0].detail).toContain('nowhere/aws');
  });
});
