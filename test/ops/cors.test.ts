import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, ROOT_TOKEN, startServer, type TestServer } from '../helpers/app.js';

const ORIGIN = 'http://localhost:3000';

describe('CORS with UNDERSTUDY_CORS_ORIGINS', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ UNDERSTUDY_CORS_ORIGINS: `${ORIGIN}, http://tools.example:8080` });
  });
  afterAll(() => server.close());

  it.each(['/api/v2/organizations', '/v1/sys/mounts', '/_emulator/info'])('answers a preflight for %s without a token', async (path) => {
    const response = await fetch(`${server.baseUrl}${path}`, {
      method: 'OPTIONS',
      headers: {
        origin: ORIGIN,
        'access-control-request-method': 'PATCH',
        'access-control-request-headers': 'authorization, x-vault-token, content-type',
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(response.headers.get('access-control-allow-methods')).toContain('PATCH');
    expect(response.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('x-vault-token');
  });

  it('allows the LIST verb in a preflight', async () => {
    const response = await fetch(`${server.baseUrl}/v1/secret/metadata/`, {
      method: 'OPTIONS',
      headers: { origin: ORIGIN, 'access-control-request-method': 'LIST' },
    });
    expect(response.status).toBe(204);
    const methods = (response.headers.get('access-control-allow-methods') ?? '').split(',').map((method) => method.trim());
    expect(methods).toContain('LIST');
  });

  it('exposes the rate-limit headers to browser scripts', async () => {
    const response = await fetch(`${server.baseUrl}/api/v2/account/details`, {
      headers: { origin: ORIGIN, authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(response.status).toBe(200);
    // The exposed request id is the journal's, so a browser tool can look its call up there.
    const requestId = response.headers.get('x-request-id');
    expect(requestId).toBeTruthy();
    const journal = await fetch(`${server.baseUrl}/_emulator/requests?path=/api/v2/account/details`);
    const entries = ((await journal.json()) as { requests: { 'request-id': string }[] }).requests;
    expect(entries.map((entry) => entry['request-id'])).toContain(requestId);
    const exposed = (response.headers.get('access-control-expose-headers') ?? '')
      .toLowerCase()
      .split(',')
      .map((name) => name.trim());
    for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after', 'x-request-id']) {
      expect(exposed).toContain(name);
    }
  });

  it('adds the headers to real responses for a listed origin, and not for another', async () => {
    const allowed = await fetch(`${server.baseUrl}/api/v2/account/details`, {
      headers: { origin: ORIGIN, authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    const secrets = await fetch(`${server.baseUrl}/v1/auth/token/lookup-self`, {
      headers: { origin: 'http://tools.example:8080', 'x-vault-token': ROOT_TOKEN },
    });
    expect(secrets.headers.get('access-control-allow-origin')).toBe('http://tools.example:8080');
    const other = await fetch(`${server.baseUrl}/api/v2/account/details`, {
      headers: { origin: 'http://evil.example', authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('CORS by default', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('sends no CORS headers and answers no preflight', async () => {
    const response = await fetch(`${server.baseUrl}/api/v2/account/details`, {
      headers: { origin: ORIGIN, authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await fetch(`${server.baseUrl}/api/v2/organizations`, {
      method: 'OPTIONS',
      headers: { origin: ORIGIN, 'access-control-request-method': 'GET' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
  });
});
