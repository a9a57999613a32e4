import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, platform, ROOT_TOKEN, startServer, type TestServer } from './helpers/app.js';

describe('a fresh server', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('is ready', async () => {
    const response = await fetch(`${server.baseUrl}/_emulator/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('serves the seed organization to the admin token', async () => {
    const { status, body, headers } = await platform(server, 'GET', '/organizations/understudy', { token: ADMIN_TOKEN });
    expect(status).toBe(200);
    expect(headers.get('content-type')).toBe('application/vnd.api+json');
    expect(body.data).toMatchObject({ id: 'understudy', type: 'organizations', links: { self: '/api/v2/organizations/understudy' } });
  });

  it('answers the secrets API for the root token', async () => {
    const response = await fetch(`${server.baseUrl}/v1/auth/token/lookup-self`, { headers: { 'x-vault-token': ROOT_TOKEN } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    const body = (await response.json()) as { data: Record<string, unknown> };
    expect(body.data).toMatchObject({ id: ROOT_TOKEN, policies: ['root'], ttl: 0, expire_time: null });
  });
});
