import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, startProcess, type Running } from './process.js';

describe('the server bundle', () => {
  // dist/main.js reads it as latin1 (a byte copy), which is the same text only for ASCII.
  it('is ASCII only, its comments and regular expressions included', () => {
    const bytes = readFileSync(join(ROOT, 'dist', 'server.cjs'));
    expect(bytes.findIndex((byte) => byte > 0x7f)).toBe(-1);
  });
});

// The build edits the router and Fastify it bundles (scripts/build.mjs, DEPENDENCY_PATCHES:
// matchers and params objects made on first use, consecutive routes finished together); the tests
// that run the source use them unedited.
describe('the bundled router', () => {
  let running: Running;
  let base: string;
  let token: string;
  let vaultToken: string;
  beforeAll(async () => {
    running = await startProcess({ env: { UNDERSTUDY_PORT: '0', UNDERSTUDY_STORE: ':memory:' } });
    base = running.banner.exports.VAULT_ADDR as string;
    token = running.banner.exports.TFE_TOKEN as string;
    vaultToken = running.banner.exports.VAULT_TOKEN as string;
  });
  afterAll(async () => {
    await running?.stop();
  });

  const get = async (path: string) => {
    const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: response.status, text: await response.text() };
  };

  it('routes static, parametric and unknown paths, the first time and again', async () => {
    for (let pass = 0; pass < 2; pass++) {
      expect((await get('/api/v2/ping')).status).toBe(204);
      const organization = await get('/api/v2/organizations/understudy');
      expect(organization.status).toBe(200);
      expect(JSON.parse(organization.text)).toMatchObject({ data: { id: 'understudy', attributes: { name: 'understudy' } } });
      const workspace = await get('/api/v2/organizations/understudy/workspaces/no-such-workspace');
      expect(workspace.status).toBe(404);
      expect(JSON.parse(workspace.text)).toMatchObject({ errors: [{ status: '404' }] });
      expect((await get('/api/v2/organizations/understudy/workspaces')).status).toBe(200);
      expect((await get('/api/v2/organizationz')).status).toBe(404);
      expect((await get('/v1/sys/health')).status).toBe(200);
    }
  });

  // The build adds the not-found handlers' routes to Fastify's not-found router on its first use:
  // each tree still answers its own unknown paths, for every method, the first time and again.
  it("answers each tree's unknown paths with that tree's not-found answer", async () => {
    const unknown = async (method: string, path: string) => {
      const response = await fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${token}` } });
      return { status: response.status, text: await response.text() };
    };
    for (const method of ['GET', 'DELETE', 'PUT']) {
      for (let pass = 0; pass < 2; pass++) {
        expect(await unknown(method, '/nope')).toEqual({
          status: 404,
          text: `{"error":"no route for ${method} /nope; the APIs live under /api/v2, /v1 and /_emulator"}`,
        });
        expect(await unknown(method, '/api/v2/organizations/understudy/nope/x')).toEqual({
          status: 404,
          text: '{"errors":[{"status":"404","title":"not found","detail":"not found"}]}',
        });
        expect(await unknown(method, '/_emulator/nope')).toEqual({ status: 404, text: '{"error":"no such control endpoint"}' });
        const page = await unknown(method, '/app/some/page/nobody/has');
        expect(page.status).toBe(404);
        expect(page.text).toContain('<title>understudy: No page here</title>');
      }
    }
  });

  // What Fastify gives each route when its plugin has loaded (its scope's error handler, hooks and
  // validator): the build finishes routes declared one after another together.
  it("gives every tree's routes their tree's hooks, validation and error answers", async () => {
    const send = async (path: string, init: RequestInit) => {
      const response = await fetch(`${base}${path}`, init);
      return { status: response.status, body: (await response.json()) as unknown };
    };
    const jsonApi = { authorization: `Bearer ${token}`, 'content-type': 'application/vnd.api+json' };
    expect(await send('/api/v2/organizations/understudy/workspaces', {})).toMatchObject({
      status: 401,
      body: { errors: [{ status: '401', title: 'unauthorized' }] },
    });
    expect(
      await send('/api/v2/organizations/understudy/workspaces', { method: 'POST', headers: jsonApi, body: '{"nodata":1}' }),
    ).toMatchObject({
      status: 422,
      body: { errors: [{ status: '422', detail: 'the body must be a JSON:API document with a data object' }] },
    });
    expect(await send('/api/v2/organizations/understudy/workspaces', { method: 'POST', headers: jsonApi, body: '{bad' })).toMatchObject({
      status: 422,
      body: { errors: [{ status: '422', title: 'invalid body' }] },
    });
    expect(await send('/v1/secret/data/bundled', {})).toEqual({ status: 403, body: { errors: ['permission denied'] } });
    expect(await send('/v1/secret/data/bundled', { method: 'POST', headers: { 'x-vault-token': vaultToken }, body: '{bad' })).toEqual({
      status: 400,
      body: { errors: ['error parsing JSON'] },
    });
    // ajv (loaded by the bundle on the first validation) checks a query against its route's schema.
    const importing = { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: 'not a store' };
    expect(await send('/_emulator/snapshots/import?name=bundled&replace=maybe', importing)).toEqual({
      status: 400,
      body: { error: 'querystring/replace must be equal to one of the allowed values' },
    });
    const clock = await send('/_emulator/clock', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{bad' });
    expect(clock.status).toBe(400);
    expect(clock.body).toMatchObject({ error: expect.stringContaining('not valid JSON') });
  });
});
