import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startServer, type TestServer } from '../../helpers/app.js';

/**
 * What go-tfe's `NewClient` reads from `GET /api/v2/ping` (`TFP-API-Version`, `X-TFE-Version`,
 * `X-TFE-Current-Version`, `TFP-AppName`), and what the real editions send on every response.
 */
describe.each([
  ['self-hosted', { appName: 'Terraform Enterprise', release: 'v202302-1' }],
  ['hosted', { appName: 'HCP Terraform', release: null }],
] as const)('version headers on the %s edition', (edition, expected) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ UNDERSTUDY_EDITION: edition });
  });
  afterAll(async () => server.close());

  const headersOf = (response: Response) => ({
    api: response.headers.get('tfp-api-version'),
    appName: response.headers.get('tfp-appname'),
    release: response.headers.get('x-tfe-version'),
    numeric: response.headers.get('x-tfe-current-version'),
  });

  it('are on ping (no token needed), on a read, and on an error', async () => {
    const ping = await fetch(`${server.baseUrl}/api/v2/ping`, { headers: { accept: 'application/vnd.api+json' } });
    expect(ping.status).toBeLessThan(300);
    expect(ping.headers.get('x-understudy-version')).toMatch(/^v\d+\.\d+\.\d+/);
    const auth = { authorization: `Bearer ${ADMIN_TOKEN}`, accept: 'application/vnd.api+json' };
    const read = await fetch(`${server.baseUrl}/api/v2/organizations`, { headers: auth });
    expect(read.status).toBe(200);
    const missing = await fetch(`${server.baseUrl}/api/v2/runs/run-nope`, { headers: auth });
    expect(missing.status).toBe(404);
    const unauthorized = await fetch(`${server.baseUrl}/api/v2/organizations`);
    expect(unauthorized.status).toBe(401);
    for (const response of [ping, read, missing, unauthorized]) {
      expect(headersOf(response)).toEqual({ api: '2.6', appName: expected.appName, release: expected.release, numeric: null });
    }
  });

  it('are not on the secrets API or the control plane', async () => {
    const health = await fetch(`${server.baseUrl}/_emulator/health`);
    expect(health.headers.get('tfp-appname')).toBeNull();
    const secrets = await fetch(`${server.baseUrl}/v1/sys/health`);
    expect(secrets.headers.get('x-tfe-version')).toBeNull();
  });
});
