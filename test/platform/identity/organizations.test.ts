import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform, startServer, type TestServer } from '../../helpers/app.js';

/** The body go-tfe's createOrganization helper sends, extra attributes included. */
const goTfeCreateBody = (name: string, extra: Record<string, unknown> = {}) => ({
  data: {
    type: 'organizations',
    attributes: { name, email: `${name}@tfe.local`, 'cost-estimation-enabled': true, 'stacks-enabled': true, ...extra },
  },
});

describe('organizations', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  const create = async (name: string, extra: Record<string, unknown> = {}) => {
    const created = await platform(server, 'POST', '/organizations', { body: goTfeCreateBody(name, extra) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.data;
  };

  const createAgentPool = async (organization: string, name: string): Promise<string> => {
    const pool = await platform(server, 'POST', `/organizations/${organization}/agent-pools`, {
      body: { data: { type: 'agent-pools', attributes: { name } } },
    });
    expect(pool.status).toBe(201);
    return pool.body.data.id;
  };

  it('answers ping without a token, with the version headers go-tfe reads', async () => {
    const response = await fetch(`${server.baseUrl}/api/v2/ping`);
    expect(response.status).toBeLessThan(300);
    expect(response.headers.get('tfp-api-version')).toMatch(/^2\.\d+$/);
    expect(response.headers.get('x-tfe-version')).toBeTruthy();
    expect(response.headers.get('tfp-appname')).not.toBe('HCP Terraform');
    expect(response.headers.get('x-ratelimit-limit')).toBeNull();
  });

  it("creates from go-tfe's body, makes the creator an active owner, and reads back the same object", async () => {
    const created = await create('tst-create', { 'default-execution-mode': 'local' });
    expect(created).toMatchObject({ id: 'tst-create', type: 'organizations', links: { self: '/api/v2/organizations/tst-create' } });
    expect(created.attributes).toMatchObject({ name: 'tst-create', 'cost-estimation-enabled': true, 'default-execution-mode': 'local' });
    expect(created.attributes['created-at']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(created.relationships['default-agent-pool']).toEqual({ data: null });
    expect((await platform(server, 'GET', '/organizations/tst-create')).body.data).toEqual(created);

    const members = await platform(server, 'GET', '/organizations/tst-create/organization-memberships');
    expect(members.body.data).toHaveLength(1);
    expect(members.body.data[0].attributes.status).toBe('active');
  });

  it("lists no stacks (go-tfe's cleanup reads them before deleting the organization)", async () => {
    await create('tst-stacks');
    const { status, body } = await platform(server, 'GET', '/organizations/tst-stacks/stacks?page%5Bsize%5D=100');
    expect(status).toBe(200);
    expect(body.data).toEqual([]);
    expect(body.meta.pagination).toMatchObject({ 'current-page': 1, 'page-size': 100, 'total-count': 0 });
    expect((await platform(server, 'GET', '/organizations/no-such-org/stacks')).status).toBe(404);
  });

  it('takes a default agent pool with agent mode, the way createOrganizationWithDefaultAgentPool does', async () => {
    await create('tst-agent');
    const pool = await createAgentPool('tst-agent', 'pool-1');
    const updated = await platform(server, 'PATCH', '/organizations/tst-agent', {
      body: {
        data: {
          type: 'organizations',
          attributes: { 'default-execution-mode': 'agent' },
          relationships: { 'default-agent-pool': { data: { type: 'agent-pools', id: pool } } },
        },
      },
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body.data.attributes['default-execution-mode']).toBe('agent');
    expect(updated.body.data.relationships['default-agent-pool']).toEqual({ data: { type: 'agent-pools', id: pool } });
    expect((await platform(server, 'GET', '/organizations/tst-agent')).body.data).toEqual(updated.body.data);

    // Workspaces without their own execution settings follow the organization's pool.
    const workspace = await platform(server, 'POST', '/organizations/tst-agent/workspaces', {
      body: {
        data: {
          type: 'workspaces',
          attributes: { name: 'ws-follows', 'setting-overwrites': { 'execution-mode': false, 'agent-pool': false } },
        },
      },
    });
    expect(workspace.status).toBe(201);
    expect(workspace.body.data.attributes['execution-mode']).toBe('agent');

    // Leaving agent mode drops the pool.
    const remote = await platform(server, 'PATCH', '/organizations/tst-agent', {
      body: { data: { type: 'organizations', attributes: { 'default-execution-mode': 'remote' } } },
    });
    expect(remote.body.data.attributes['default-execution-mode']).toBe('remote');
    expect(remote.body.data.relationships['default-agent-pool']).toEqual({ data: null });
  });

  it('forgets its default agent pool when the pool is deleted (go-tfe cleans up pools on their own)', async () => {
    await create('tst-pool-gone');
    const pool = await createAgentPool('tst-pool-gone', 'pool-1');
    const body = {
      data: {
        type: 'organizations',
        attributes: { 'default-execution-mode': 'agent' },
        relationships: { 'default-agent-pool': { data: { type: 'agent-pools', id: pool } } },
      },
    };
    expect((await platform(server, 'PATCH', '/organizations/tst-pool-gone', { body })).status).toBe(200);
    expect((await platform(server, 'DELETE', `/agent-pools/${pool}`)).status).toBe(204);
    const organization = await platform(server, 'GET', '/organizations/tst-pool-gone');
    expect(organization.body.data.attributes['default-execution-mode']).toBe('agent');
    expect(organization.body.data.relationships['default-agent-pool']).toEqual({ data: null });
  });

  it('refuses a default agent pool outside agent mode, or one from elsewhere, with 422', async () => {
    await create('tst-pool-rules');
    const pool = await createAgentPool('tst-pool-rules', 'pool-1');
    const withPool = (attributes: Record<string, unknown>, id: string) => ({
      body: { data: { type: 'organizations', attributes, relationships: { 'default-agent-pool': { data: { type: 'agent-pools', id } } } } },
    });
    const remote = await platform(server, 'PATCH', '/organizations/tst-pool-rules', withPool({}, pool));
    expect(remote.status).toBe(422);
    expect(remote.body.errors[0].detail).toContain("Default agent pool must not be specified unless using 'agent' execution mode");
    expect(remote.body.errors[0].source.pointer).toBe('/data/relationships/default-agent-pool');

    const unknown = await platform(
      server,
      'PATCH',
      '/organizations/tst-pool-rules',
      withPool({ 'default-execution-mode': 'agent' }, 'apool-doesnotexist'),
    );
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors[0].detail).toContain('The provided agent pool does not exist');
    expect((await platform(server, 'GET', '/organizations/tst-pool-rules')).body.data.attributes['default-execution-mode']).toBe('remote');
  });

  it('validates attribute values, naming the attribute', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ 'default-execution-mode': 'bogus' }, 'default-execution-mode'],
      [{ 'default-execution-mode': 3 }, 'default-execution-mode'],
      [{ 'cost-estimation-enabled': 'yes' }, 'cost-estimation-enabled'],
      [{ 'session-timeout': 'abc' }, 'session-timeout'],
      [{ 'collaborator-auth-policy': 'none' }, 'collaborator-auth-policy'],
    ];
    for (const [attributes, name] of cases) {
      const created = await platform(server, 'POST', '/organizations', { body: goTfeCreateBody('tst-invalid', attributes) });
      expect(created.status, name).toBe(422);
      expect(created.body.errors[0].source.pointer).toBe(`/data/attributes/${name}`);
      const patched = await platform(server, 'PATCH', '/organizations/understudy', {
        body: { data: { type: 'organizations', attributes } },
      });
      expect(patched.status, name).toBe(422);
    }
    expect((await platform(server, 'GET', '/organizations/tst-invalid')).status).toBe(404);
    const updated = await platform(server, 'PATCH', '/organizations/understudy', {
      body: {
        data: {
          type: 'organizations',
          attributes: { 'session-timeout': 3600, 'session-remember': 3600, 'collaborator-auth-policy': 'two_factor_mandatory' },
        },
      },
    });
    expect(updated.body.data.attributes).toMatchObject({
      'session-timeout': 3600,
      'session-remember': 3600,
      'collaborator-auth-policy': 'two_factor_mandatory',
    });
  });

  it('refuses an include it does not offer with 400 naming the include parameter', async () => {
    for (const path of [
      '/organizations?include=users',
      '/organizations/understudy?include=workspaces',
      '/account/details?include=organizations',
    ]) {
      const { status, body } = await platform(server, 'GET', path);
      expect(status, path).toBe(400);
      expect(body.errors[0].detail).toContain('include parameter');
    }
    expect((await platform(server, 'GET', '/organizations/understudy?include=')).status).toBe(200);
  });

  it('renames, deletes, and then answers 404', async () => {
    await create('tst-rename');
    const renamed = await platform(server, 'PATCH', '/organizations/tst-rename', {
      body: { data: { type: 'organizations', attributes: { name: 'tst-renamed' } } },
    });
    expect(renamed.body.data.id).toBe('tst-renamed');
    expect((await platform(server, 'GET', '/organizations/tst-rename')).status).toBe(404);
    expect((await platform(server, 'DELETE', '/organizations/tst-renamed')).status).toBe(204);
    expect((await platform(server, 'GET', '/organizations/tst-renamed')).status).toBe(404);
    expect((await platform(server, 'DELETE', '/organizations/tst-renamed')).status).toBe(404);
  });

  it('never answers odd query strings or bodies with a 5xx', async () => {
    const queries = [
      'page%5Bnumber%5D=1e3',
      'page%5Bsize%5D=-1',
      'page%5Bnumber%5D=2&page%5Bnumber%5D=3',
      'include=&include=',
      'page%5Bnumber%5D%5Bx%5D=1',
      'q=%ZZ',
      '%E0%A4%A=1',
    ];
    for (const query of queries) {
      const { status } = await platform(server, 'GET', `/organizations?${query}`);
      expect(status, query).toBeLessThan(500);
    }
    // Paths the router itself rejects still answer with JSON:API error documents.
    const badEncoding = await platform(server, 'GET', '/organizations/%ZZ');
    expect(badEncoding.status).toBe(400);
    expect(badEncoding.headers.get('content-type')).toBe('application/vnd.api+json');
    expect(badEncoding.body.errors[0].status).toBe('400');
    const missing = await platform(server, 'GET', '/organizations/no-such-org');
    const overlong = await platform(server, 'GET', `/organizations/${'a'.repeat(3000)}`);
    expect({ status: overlong.status, body: overlong.body }).toEqual({ status: 404, body: missing.body });

    const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
    const bodies = [
      '[]',
      '"x"',
      'null',
      '{"data":null}',
      '{"data":{"type":""}}',
      deep,
      `{"data":${'['.repeat(20000)}${']'.repeat(20000)}}`,
    ];
    for (const text of bodies) {
      const { status } = await platform(server, 'POST', '/organizations', { body: text });
      expect(status, text.slice(0, 40)).toBe(422);
    }
  });
});
