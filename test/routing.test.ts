import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startServer, type TestServer } from './helpers/app.js';

/** A raw request, so methods fetch refuses (PROPFIND) and malformed escapes reach the server as sent. */
function raw(
  server: TestServer,
  method: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; type: string | undefined; body: string }> {
  return new Promise((done, fail) => {
    const outgoing = request(`${server.baseUrl}${path}`, { method, headers }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => done({ status: response.statusCode ?? 0, type: response.headers['content-type'], body }));
    });
    outgoing.on('error', fail);
    outgoing.end();
  });
}

describe('requests no route takes, answered in each tree’s own format', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('secrets API: an unknown method is 405 and a malformed escape 400, both {"errors":[]}', async () => {
    expect(await raw(server, 'PROPFIND', '/v1/sys/health')).toEqual({ status: 405, type: 'application/json', body: '{"errors":[]}\n' });
    expect(await raw(server, 'GET', '/v1/cubbyhole/%ZZ')).toEqual({ status: 400, type: 'application/json', body: '{"errors":[]}\n' });
  });

  it('platform API: a JSON:API 404 for an unknown path, a 400 for a malformed escape', async () => {
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const unknown = await raw(server, 'GET', '/api/v2/no-such-thing', admin);
    expect(unknown.status).toBe(404);
    expect(unknown.type).toBe('application/vnd.api+json');
    expect(JSON.parse(unknown.body)).toEqual({ errors: [{ status: '404', title: 'not found', detail: 'not found' }] });
    const malformed = await raw(server, 'GET', '/api/v2/organizations/%ZZ', admin);
    expect(malformed.status).toBe(400);
    expect(JSON.parse(malformed.body).errors[0].status).toBe('400');
  });

  it('elsewhere: a 404 that says where the APIs are', async () => {
    const outside = await raw(server, 'GET', '/nothing?x=1');
    expect(outside.status).toBe(404);
    expect(JSON.parse(outside.body)).toEqual({ error: 'no route for GET /nothing; the APIs live under /api/v2, /v1 and /_emulator' });
    const control = await raw(server, 'GET', '/_emulator/nothing');
    expect(control.status).toBe(404);
    expect(JSON.parse(control.body)).toEqual({ error: 'no such control endpoint' });
  });
});
