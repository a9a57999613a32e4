import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { summaryOf, tagsOf } from '../../src/control/openapi-operations.js';
import { ADMIN_TOKEN, ROOT_TOKEN, startServer, type TestServer } from '../helpers/app.js';

type Operation = {
  summary?: string;
  tags?: string[];
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
  requestBody?: { content: Record<string, { schema: unknown; example?: unknown }> };
  parameters?: { name: string; in: string }[];
  security?: Record<string, string[]>[];
};
type Document = {
  openapi: string;
  tags?: { name: string }[];
  paths: Record<string, Record<string, Operation>>;
  components?: { securitySchemes?: Record<string, Record<string, string>> };
};

/** The README's section names, as tags spell them (without code marks). */
const README_SECTIONS = new Set(
  [...readFileSync(new URL('../../README.md', import.meta.url), 'utf8').matchAll(/^#{2,3} (.+)$/gm)].map((match) =>
    (match[1] as string).replace(/`/g, ''),
  ),
);

/** `/workspaces/:id` → `/workspaces/{id}`, as OpenAPI writes path parameters. */
const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\/$/, '') || '/';

describe('the OpenAPI document and the browsable reference', () => {
  let server: TestServer;
  let document: Document;
  beforeAll(async () => {
    server = await startServer();
    const response = await fetch(`${server.baseUrl}/_emulator/openapi.json`);
    expect(response.status).toBe(200);
    document = (await response.json()) as Document;
  });
  afterAll(() => server.close());

  it('is OpenAPI 3.1 and describes every registered route', () => {
    expect(document.openapi).toBe('3.1.0');
    // Fastify's automatic HEAD routes are not API routes; the secrets
    // tree's one catch-all is described path by path below.
    const apiRoutes = server.app.routes.filter((route) => route.method !== 'HEAD' && route.url !== '/v1/*');
    expect(apiRoutes.length).toBeGreaterThan(80);
    // Compared without a trailing slash on either side: the protocol's `modules.v1` root ends in one.
    const described = new Map(Object.entries(document.paths).map(([path, item]) => [openApiPath(path), item]));
    const missing = apiRoutes.filter((route) => !described.get(openApiPath(route.url))?.[route.method.toLowerCase()]);
    expect(missing).toEqual([]);
  });

  it('gives every operation a summary, a README section as its tag, and a response schema', () => {
    expect(document.tags?.map((tag) => tag.name).filter((name) => !README_SECTIONS.has(name))).toEqual([]);
    const described = /^\/(api\/v2|_emulator|api\/registry|\.well-known)(\/|$)/;
    const problems: string[] = [];
    let checked = 0;
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const where = `${method.toUpperCase()} ${path}`;
        if (!operation.tags?.length || operation.tags.some((tag) => !README_SECTIONS.has(tag)))
          problems.push(`${where}: tags ${JSON.stringify(operation.tags)}`);
        if (!described.test(path)) continue;
        checked++;
        if (!operation.summary?.trim()) problems.push(`${where}: no summary`);
        const schemas = Object.values(operation.responses ?? {}).flatMap((response) => Object.values(response.content ?? {}));
        if (!schemas.some((content) => content.schema)) problems.push(`${where}: no response schema`);
      }
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(200);
    // JSON:API: a document for a success, the errors document for a refusal.
    const show = document.paths['/api/v2/workspaces/{id}']?.get?.responses ?? {};
    expect(JSON.stringify(show['200'])).toContain('"included"');
    expect(JSON.stringify(show['4XX'])).toContain('"errors"');
    expect(document.paths['/api/v2/workspaces/{id}']?.get?.tags).toEqual(['Workspaces']);
    expect(document.paths['/api/v2/runs/{id}/actions/apply']?.post?.summary).toBe('Apply a run');
    expect(document.paths['/v1/transit/keys/{name}']?.get?.tags).toEqual(['Transit']);
  });

  it('describes a route added later without its declaring anything', () => {
    expect(tagsOf('/api/v2/brand-new-things/:id')).toEqual(['Platform API']);
    expect(summaryOf('GET', '/api/v2/brand-new-things/:id')).toBe('Show a brand new thing');
    expect(summaryOf('GET', '/api/v2/workspaces/:id/brand-new-things')).toBe('List the brand new things of a workspace');
    expect(summaryOf('POST', '/api/v2/organizations/:org/brand-new-things')).toBe('Create a brand new thing in an organization');
    expect(tagsOf('/api/v2/workspaces/:id/brand-new-things')).toEqual(['Workspaces']);
  });

  it('describes /v1 from the path tables: sys, auth/token and mounted engines, with their fields', () => {
    expect(server.app.routes.some((route) => route.url === '/v1/*')).toBe(true);
    expect(document.paths['/v1/sys/health']?.get).toBeDefined();
    expect(document.paths['/v1/auth/token/create']?.post).toBeDefined();
    expect(document.paths['/v1/cubbyhole/{path}']?.get).toBeDefined();
    const create = document.paths['/v1/auth/token/create']?.post?.requestBody?.content['application/json']?.schema as {
      properties: Record<string, unknown>;
    };
    expect(Object.keys(create.properties)).toEqual(expect.arrayContaining(['policies', 'ttl']));
    expect(document.paths['/v1/*']).toBeUndefined();
  });

  it('takes params, query and body from the route schemas', () => {
    const update = document.paths['/api/v2/workspaces/{id}']?.patch;
    expect(update?.parameters).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'id', in: 'path' }),
        expect.objectContaining({ name: 'include', in: 'query' }),
      ]),
    );
    const body = JSON.stringify(update?.requestBody);
    expect(body).toContain('application/vnd.api+json');
    expect(body).toContain('"auto-apply"');
    expect(body).not.toContain('errorMessage');
    const list = document.paths['/api/v2/organizations/{org}/workspaces']?.get?.parameters?.map((parameter) => parameter.name);
    expect(list).toEqual(expect.arrayContaining(['page[number]', 'page[size]', 'search[name]']));
  });

  it('declares a token scheme per API, so the page has an Authorize button that "Try it out" uses', async () => {
    const schemes = document.components?.securitySchemes ?? {};
    expect(schemes['platformToken']).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(schemes['vaultToken']).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Vault-Token' });
    expect(document.paths['/api/v2/organizations']?.get?.security).toEqual([{ platformToken: [] }]);
    expect(document.paths['/v1/sys/mounts']?.get?.security).toEqual([{ vaultToken: [] }]);
    // The token is the scheme's job, no longer a header parameter on each operation.
    expect(document.paths['/v1/sys/mounts']?.get?.parameters?.map((parameter) => parameter.name)).not.toContain('X-Vault-Token');
    // What the page sends after Authorize: the scheme's header with the banner's token.
    const scheme = schemes['vaultToken'] as { name: string };
    const mounts = await fetch(`${server.baseUrl}/v1/sys/mounts`, { headers: { [scheme.name]: ROOT_TOKEN } });
    expect(mounts.status).toBe(200);
    const organizations = await fetch(`${server.baseUrl}/api/v2/organizations`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(organizations.status).toBe(200);
  });

  it("shows a kv write body the server accepts, with the secret's fields as an object", async () => {
    const content = document.paths['/v1/secret/data/{path}']?.post?.requestBody?.content['application/json'];
    expect(content?.example).toEqual({ data: { key: 'value' } });
    expect((content?.schema as { properties: Record<string, { type?: string }> }).properties['data']?.type).toBe('object');
    const write = await fetch(`${server.baseUrl}/v1/secret/data/from-the-docs`, {
      method: 'POST',
      headers: { 'x-vault-token': ROOT_TOKEN, 'content-type': 'application/json' },
      body: JSON.stringify(content?.example),
    });
    expect(write.status).toBe(200);
    const read = await fetch(`${server.baseUrl}/v1/secret/data/from-the-docs`, { headers: { 'x-vault-token': ROOT_TOKEN } });
    expect(((await read.json()) as { data: { data: unknown } }).data.data).toEqual({ key: 'value' });
  });

  it('sends a browser at the bare address to the reference', async () => {
    const response = await fetch(`${server.baseUrl}/`, { redirect: 'manual' });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('/_emulator/docs');
    expect((await fetch(`${server.baseUrl}/`)).url).toBe(`${server.baseUrl}/_emulator/docs`);
  });

  it('serves the reference from local assets only (works offline)', async () => {
    const page = await fetch(`${server.baseUrl}/_emulator/docs/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1] as string);
    expect(assets.length).toBeGreaterThan(2);
    for (const asset of assets) {
      expect(asset, 'no CDN').not.toMatch(/^(https?:)?\/\//);
      const response = await fetch(new URL(asset, `${server.baseUrl}/_emulator/docs/`));
      expect(response.status, asset).toBe(200);
      expect((await response.arrayBuffer()).byteLength, asset).toBeGreaterThan(0);
    }
    const initializer = await (await fetch(`${server.baseUrl}/_emulator/docs/static/initializer.js`)).text();
    expect(initializer).toContain("url: '/_emulator/openapi.json'");
    expect(initializer).toContain('filter: true');
    expect(initializer).not.toMatch(/https?:\/\//);
    expect((await fetch(`${server.baseUrl}/_emulator/docs/static/..%2Fpackage.json`)).status).toBe(404);
  });
});
