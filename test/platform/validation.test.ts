import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerPlatformConventions } from '../../src/platform/conventions.js';
import { ADMIN_TOKEN, platform, startServer, type TestServer } from '../helpers/app.js';

const ORG = 'understudy';

describe('route schemas answer in JSON:API', () => {
  let server: TestServer;
  let workspaceId: string;
  beforeAll(async () => {
    server = await startServer();
    const created = await platform(server, 'POST', `/organizations/${ORG}/workspaces`, {
      body: { data: { type: 'workspaces', attributes: { name: 'schemas' } } },
    });
    expect(created.status).toBe(201);
    workspaceId = created.body.data.id;
  });
  afterAll(() => server.close());

  /** Never Fastify's own `{statusCode, code, error, message}`. */
  const expectJsonApiError = (body: Record<string, unknown>) => {
    expect(Object.keys(body)).toEqual(['errors']);
  };

  it('a body that breaks the schema is a 422 pointing at the attribute, with the known texts', async () => {
    const cases: [unknown, string, string][] = [
      [undefined, '/data', 'the body must be a JSON:API document with a data object'],
      [{ data: 'x' }, '/data', 'the body must be a JSON:API document with a data object'],
      [{ data: {} }, '/data/type', 'data.type must be "workspaces"'],
      [{ data: { type: 'teams' } }, '/data/type', 'data.type must be "workspaces"'],
      [{ data: { type: 'workspaces', attributes: [] } }, '/data/attributes', 'data.attributes must be an object'],
      [
        { data: { type: 'workspaces', attributes: { 'auto-apply': 'yes' } } },
        '/data/attributes/auto-apply',
        'auto-apply must be a boolean',
      ],
      [
        { data: { type: 'workspaces', attributes: { 'trigger-prefixes': [1] } } },
        '/data/attributes/trigger-prefixes',
        'trigger-prefixes must be an array of strings',
      ],
      [{ data: { type: 'workspaces', attributes: { 'vcs-repo': 'x' } } }, '/data/attributes/vcs-repo', 'vcs-repo must be an object'],
    ];
    for (const [body, pointer, detail] of cases) {
      const response = await platform(server, 'PATCH', `/workspaces/${workspaceId}`, { body: body === undefined ? '' : body });
      expect(response.status, JSON.stringify(body)).toBe(422);
      expectJsonApiError(response.body);
      expect(response.body.errors[0]).toMatchObject({ status: '422', title: 'invalid attribute', detail, source: { pointer } });
    }
  });

  it('a query parameter that breaks the schema is a 400 naming it', async () => {
    for (const parameter of ['page[number]', 'page[size]']) {
      const response = await platform(server, 'GET', `/organizations/${ORG}/workspaces?${encodeURIComponent(parameter)}=abc`);
      expect(response.status).toBe(400);
      expectJsonApiError(response.body);
      expect(response.body.errors[0]).toMatchObject({
        status: '400',
        detail: `${parameter} must be a positive integer`,
        source: { parameter },
      });
    }
  });

  it('takes what real clients send: empty types on lock, nulls for absent members, unknown attributes, no body', async () => {
    const lock = await platform(server, 'POST', `/workspaces/${workspaceId}/actions/lock`, {
      body: { data: { type: '', attributes: { reason: null } } },
    });
    expect(lock.status).toBe(200);
    expect((await platform(server, 'POST', `/workspaces/${workspaceId}/actions/unlock`)).status).toBe(200);
    expect((await platform(server, 'POST', `/workspaces/${workspaceId}/actions/lock`)).status).toBe(200);
    const update = await platform(server, 'PATCH', `/workspaces/${workspaceId}`, {
      body: {
        data: {
          type: 'workspaces',
          id: null,
          attributes: { description: null, 'terraform-version': '1.5.0', 'not-known': { x: 1 } },
          relationships: null,
        },
      },
    });
    expect(update.status).toBe(200);
    expect(update.body.data.attributes['tool-version']).toBe('1.5.0');
    const token = await platform(server, 'POST', '/organizations/understudy/authentication-token');
    expect(token.status).toBe(201);
  });
});

describe('registerPlatformConventions on another prefix', () => {
  let server: TestServer;
  let other: FastifyInstance;
  beforeAll(async () => {
    server = await startServer();
    other = Fastify({ bodyLimit: 1024 });
    await other.register(
      async (scope) => {
        registerPlatformConventions(scope, server.app.platform);
        scope.get('/open', { config: { public: true } }, async () => ({ open: true }));
        scope.post('/small', async (request) => ({ who: request.principal.kind, size: JSON.stringify(request.body).length }));
        scope.post('/archive', { bodyLimit: 64 * 1024 }, async (request) => ({ size: JSON.stringify(request.body).length }));
      },
      { prefix: '/api/registry/v1' },
    );
    await other.ready();
  });
  afterAll(async () => {
    await other.close();
    await server.close();
  });

  const call = (method: 'GET' | 'POST', url: string, options: { token?: string; payload?: string } = {}) =>
    other.inject({
      method,
      url: `/api/registry/v1${url}`,
      headers: { ...(options.token ? { authorization: `Bearer ${options.token}` } : {}), 'content-type': 'application/json' },
      ...(options.payload !== undefined ? { payload: options.payload } : {}),
    });

  it('applies the platform token rule and answers in JSON:API', async () => {
    expect((await call('GET', '/open')).statusCode).toBe(200);
    const refused = await call('POST', '/small', { payload: '{}' });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['content-type']).toBe('application/vnd.api+json');
    expect(refused.json().errors[0].status).toBe('401');
    const accepted = await call('POST', '/small', { token: ADMIN_TOKEN, payload: '{"a":1}' });
    expect(accepted.json()).toEqual({ who: 'user', size: 7 });
    const missing = await call('GET', '/nothing-here', { token: ADMIN_TOKEN });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().errors[0].status).toBe('404');
  });

  it('takes each route’s own body limit, and answers a body over it with a 413', async () => {
    const big = JSON.stringify({ blob: 'x'.repeat(10_000) });
    const tooLarge = await call('POST', '/small', { token: ADMIN_TOKEN, payload: big });
    expect(tooLarge.statusCode).toBe(413);
    expect(tooLarge.json().errors[0]).toMatchObject({ status: '413' });
    const archive = await call('POST', '/archive', { token: ADMIN_TOKEN, payload: big });
    expect(archive.statusCode).toBe(200);
    expect(archive.json().size).toBe(big.length);
  });
});
