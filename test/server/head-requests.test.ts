import { request as httpRequest } from 'node:http';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerHeadThroughGet, routeHeadAsGet } from '../../src/server/head-requests.js';
import { ADMIN_TOKEN, control, startServer, type TestServer } from '../helpers/app.js';

// HEAD is answered by each GET route (src/server/head-requests.ts) instead of Fastify's automatic
// twin routes: the answers must stay what the twins gave.

interface RawReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request on its own connection, so a HEAD answer's bytes are exactly what the server wrote. */
function send(server: TestServer, method: string, path: string, headers: Record<string, string> = {}): Promise<RawReply> {
  const url = new URL(server.baseUrl);
  return new Promise((resolve, reject) => {
    const request = httpRequest({ method, host: url.hostname, port: url.port, path, headers, agent: false }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
    });
    request.on('error', reject);
    request.end();
  });
}

const AUTH = { authorization: `Bearer ${ADMIN_TOKEN}` };

describe('HEAD requests', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it("answer a GET route with its status and headers, the GET body's length and no body", async () => {
    for (const path of ['/api/v2/organizations/understudy', '/api/v2/ping', '/.well-known/terraform.json', '/_emulator/health']) {
      const get = await send(server, 'GET', path, AUTH);
      const head = await send(server, 'HEAD', path, AUTH);
      expect(head.status, path).toBe(get.status);
      expect(head.body, path).toBe('');
      expect(head.headers['content-length'], path).toBe(String(Buffer.byteLength(get.body)));
      expect(head.headers['content-type'], path).toBe(get.headers['content-type']);
    }
  });

  it('reach hooks and handlers as HEAD: the journal records HEAD, the not-found answer names it', async () => {
    await send(server, 'HEAD', '/api/v2/organization-memberships/ou-none', AUTH);
    const { body } = await control(server, 'GET', '/requests?path=/api/v2/organization-memberships/ou-none');
    expect(body.requests).toHaveLength(1);
    expect(body.requests[0]).toMatchObject({ method: 'HEAD', status: 404 });

    const notFound = await send(server, 'HEAD', '/nowhere');
    expect(notFound.status).toBe(404);
    const text = JSON.stringify({ error: 'no route for HEAD /nowhere; the APIs live under /api/v2, /v1 and /_emulator' });
    expect(notFound.headers['content-length']).toBe(String(Buffer.byteLength(text)));
  });

  it('answer injected requests the same way', async () => {
    const get = await server.app.fastify.inject({ method: 'GET', url: '/api/v2/organizations/understudy', headers: AUTH });
    const head = await server.app.fastify.inject({ method: 'HEAD', url: '/api/v2/organizations/understudy', headers: AUTH });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
    expect(head.headers['content-length']).toBe(String(get.rawPayload.length));
  });

  it('still reach a route that declares HEAD itself, which answers it (the secrets health check)', async () => {
    const head = await send(server, 'HEAD', '/v1/sys/health?activecode=204');
    expect(head.status).toBe(204);
    expect(head.body).toBe('');
  });

  it('register no twin routes', () => {
    // Only routes that declare HEAD themselves (the secrets API's catch-all) carry it.
    const heads = server.app.routes.filter((route) => route.method === 'HEAD').map((route) => route.url);
    expect(heads.every((url) => url.startsWith('/v1'))).toBe(true);
  });
});

describe('routes that would be answered wrongly', () => {
  const build = () => {
    const fastify = Fastify({ exposeHeadRoutes: false, rewriteUrl: routeHeadAsGet });
    answerHeadThroughGet(fastify);
    return fastify;
  };

  it('refuses a HEAD route without GET', () => {
    const fastify = build();
    expect(() => fastify.head('/only-head', async () => '')).toThrow(/must answer GET too/);
  });

  it('refuses a GET route that opts out of HEAD', () => {
    const fastify = build();
    expect(() => fastify.get('/no-head', { exposeHeadRoute: false }, async () => '')).toThrow(/every GET route answers HEAD/);
  });
});
