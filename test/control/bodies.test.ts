import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/app.js';

/** The control plane takes what curl sends and answers every failure as {"error": "…"}. */
describe('control plane bodies and errors', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  const post = async (path: string, body: string | undefined, contentType?: string) => {
    const headers: Record<string, string> = contentType ? { 'content-type': contentType } : {};
    const response = await fetch(`${server.baseUrl}/_emulator${path}`, { method: 'POST', headers, body });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it("reads a JSON body sent with curl -d's form content type, or text/plain", async () => {
    const before = Date.parse(((await (await fetch(`${server.baseUrl}/_emulator/clock`)).json()) as { now: string }).now);
    const form = await post('/clock', '{"advance":"24h"}', 'application/x-www-form-urlencoded');
    expect(form.status).toBe(200);
    expect(Date.parse(form.body['now'] as string) - before).toBeGreaterThanOrEqual(86_400_000);
    expect((await post('/clock', '{"advance":"1h"}', 'text/plain')).status).toBe(200);
    expect((await post('/clock', '{"advance":"1h"}')).status).toBe(200);
  });

  it('takes an empty body as no body, whatever the content type', async () => {
    expect(await post('/reset', '', 'application/json')).toMatchObject({ status: 200, body: { status: 'reset' } });
    expect(await post('/reset', undefined)).toMatchObject({ status: 200, body: { status: 'reset' } });
    const clock = await post('/clock', '', 'application/json');
    expect(clock.status).toBe(400);
    expect(clock.body).toEqual({ error: expect.stringContaining('give exactly one of "advance"') });
  });

  it('answers a body that is not JSON, an unknown path and a bad path with {"error": …} only', async () => {
    const broken = await post('/clock', '{"advance":', 'application/json');
    expect(broken.status).toBe(400);
    expect(Object.keys(broken.body)).toEqual(['error']);
    expect(broken.body['error']).toMatch(/^the body is not valid JSON/);
    const missing = await post('/no-such-thing', '{}', 'application/json');
    expect(missing).toEqual({ status: 404, body: { error: 'no such control endpoint' } });
    const badPath = await fetch(`${server.baseUrl}/_emulator/run-tasks/%E0%A4%A/deliveries`);
    expect(badPath.status).toBe(400);
    expect(Object.keys((await badPath.json()) as object)).toEqual(['error']);
  });
});
