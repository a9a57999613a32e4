import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_TOKEN, type TestServer } from '../../helpers/app.js';
import { openSocket, readResponses, send, startListServer } from './support.js';

// Tokens, error bodies and exact headers of the secrets API, over real connections (through the
// LIST-aware server), for LIST and the other methods alike.

describe('secrets API tokens and errors over TCP', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startListServer();
    const written = await send(server, {
      method: 'PUT',
      path: '/v1/things/items/a',
      headers: { 'x-vault-token': ROOT_TOKEN },
      body: '{"value":1}',
    });
    expect(written.status).toBe(204);
  });
  afterAll(() => server.close());

  describe('each token header', () => {
    const cases: [string, Record<string, string>][] = [
      ['X-Vault-Token', { 'X-Vault-Token': ROOT_TOKEN }],
      ['X-Store-Token', { 'X-Store-Token': ROOT_TOKEN }],
      ['Authorization: Bearer', { Authorization: `Bearer ${ROOT_TOKEN}` }],
    ];
    for (const [name, headers] of cases) {
      it(`${name} authenticates LIST and GET`, async () => {
        const listed = await send(server, { method: 'LIST', path: '/v1/things/items', headers });
        expect(listed.status).toBe(200);
        expect(JSON.parse(listed.body).data).toEqual({ keys: ['a'] });
        const read = await send(server, { method: 'GET', path: '/v1/things/items/a', headers });
        expect(JSON.parse(read.body).data).toEqual({ value: 1 });
      });
    }

    it('a bad token is 403 permission denied', async () => {
      for (const method of ['LIST', 'GET']) {
        const response = await send(server, { method, path: '/v1/things/items/', headers: { 'X-Vault-Token': 'not-a-token' } });
        expect(response.status, method).toBe(403);
        expect(response.body).toBe('{"errors":["permission denied"]}\n');
      }
    });

    it('no token is 403 permission denied', async () => {
      const response = await send(server, { method: 'LIST', path: '/v1/things/items/' });
      expect(response.status).toBe(403);
      expect(response.body).toBe('{"errors":["permission denied"]}\n');
    });
  });

  describe('error bodies and headers', () => {
    const headers = { 'X-Vault-Token': ROOT_TOKEN };

    /** Every secrets response carries exactly these two headers, whatever the status. */
    const expectSecretsHeaders = (response: { headers: Record<string, unknown> }) => {
      expect(response.headers['content-type']).toBe('application/json');
      expect(response.headers['cache-control']).toBe('no-store');
    };

    it('a list answers with exactly application/json and no-store', async () => {
      const response = await send(server, { method: 'LIST', path: '/v1/things/items/', headers });
      expect(response.status).toBe(200);
      expectSecretsHeaders(response);
      // Also as the bytes on the wire, for clients that compare the header as a string.
      const socket = await openSocket(server);
      try {
        const reading = readResponses(socket, 1);
        socket.write(`LIST /v1/things/items HTTP/1.1\r\nHost: x\r\nX-Vault-Token: ${ROOT_TOKEN}\r\n\r\n`);
        const [raw] = await reading;
        expect(raw!.headers['content-type']).toBe('application/json');
        expect(raw!.headers['cache-control']).toBe('no-store');
      } finally {
        socket.destroy();
      }
    });

    it('an unknown mount is 404 no handler for route', async () => {
      for (const method of ['LIST', 'GET']) {
        const response = await send(server, { method, path: '/v1/nowhere/x', headers });
        expect(response.status, method).toBe(404);
        expectSecretsHeaders(response);
        const { errors } = JSON.parse(response.body) as { errors: string[] };
        expect(errors).toHaveLength(1);
        expect(errors[0]).toContain('no handler for route');
      }
    });

    it('a known mount with an unknown path is 404 unsupported path', async () => {
      for (const method of ['LIST', 'GET']) {
        const response = await send(server, { method, path: '/v1/things/elsewhere', headers });
        expect(response.status, method).toBe(404);
        expectSecretsHeaders(response);
        expect(JSON.parse(response.body)).toEqual({ errors: ['1 error occurred:\n\t* unsupported path\n\n'] });
      }
    });

    it('an operation the path does not define is 405 unsupported operation', async () => {
      const response = await send(server, { method: 'DELETE', path: '/v1/things/items/a', headers });
      expect(response.status).toBe(405);
      expectSecretsHeaders(response);
      expect(JSON.parse(response.body)).toEqual({ errors: ['1 error occurred:\n\t* unsupported operation\n\n'] });
    });

    it('a malformed JSON body is 400 error parsing JSON', async () => {
      const response = await send(server, {
        method: 'POST',
        path: '/v1/things/items/bad',
        headers: { ...headers, 'content-type': 'application/json' },
        body: '{"value":',
      });
      expect(response.status).toBe(400);
      expectSecretsHeaders(response);
      expect(response.body).toBe('{"errors":["error parsing JSON"]}\n');
    });

    it('PATCH on a path without a patch operation is 405 unsupported operation, never a 5xx', async () => {
      const response = await send(server, {
        method: 'PATCH',
        path: '/v1/things/items/a',
        headers: { ...headers, 'content-type': 'application/merge-patch+json' },
        body: '{"value":2}',
      });
      expect(response.status).toBe(405);
      expectSecretsHeaders(response);
      expect(JSON.parse(response.body)).toEqual({ errors: ['1 error occurred:\n\t* unsupported operation\n\n'] });
    });

    it('a method the real service has no operation for is 405 with no messages', async () => {
      const response = await send(server, { method: 'OPTIONS', path: '/v1/things/items/a', headers });
      expect(response.status).toBe(405);
      expectSecretsHeaders(response);
      expect(response.body).toBe('{"errors":[]}\n');
    });
  });
});
