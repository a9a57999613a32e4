import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { control, startServer, type TestServer } from '../../helpers/app.js';
import { vault } from '../ssh/support.js';

/** Rate-limit quotas: the 429 the real service sends, its headers, and windows moved by the virtual clock. */
let server: TestServer;

beforeAll(async () => {
  server = await startServer();
  await control(server, 'POST', '/clock', { set: '2030-01-01T00:00:00Z', force: true });
  expect((await vault(server, 'POST', 'sys/mounts/kv', { type: 'kv' })).status).toBe(204);
  expect((await vault(server, 'POST', 'kv/a', { v: 1 })).status).toBe(204);
});
afterAll(() => server.close());

describe('sys/quotas', () => {
  it('refuses bad quotas with the real errors and stores nothing', async () => {
    expect((await vault(server, 'POST', 'sys/quotas/rate-limit/bad', { rate: 0 })).body.errors).toEqual(["'rate' is invalid"]);
    expect((await vault(server, 'POST', 'sys/quotas/rate-limit/bad', { rate: 'x' })).body.errors).toEqual(["'rate' is invalid"]);
    expect((await vault(server, 'POST', 'sys/quotas/rate-limit/bad', { rate: 5, path: 'nowhere/' })).body.errors).toEqual([
      'invalid mount path "nowhere/"',
    ]);
    expect((await vault(server, 'GET', 'sys/quotas/rate-limit/bad')).status).toBe(404);
    expect((await vault(server, 'LIST', 'sys/quotas/rate-limit')).status).toBe(404);
  });

  it('limits a mount per window, with 429s and headers, and the clock opens the next window', async () => {
    expect((await vault(server, 'POST', 'sys/quotas/config', { enable_rate_limit_response_headers: true })).status).toBe(204);
    expect((await vault(server, 'POST', 'sys/quotas/rate-limit/kv-limit', { path: 'kv', rate: 3, interval: '1m' })).status).toBe(204);
    const read = await vault(server, 'GET', 'sys/quotas/rate-limit/kv-limit');
    expect(read.body.data).toMatchObject({ name: 'kv-limit', path: 'kv/', rate: 3, interval: 60, block_interval: 0, type: 'rate-limit' });
    expect((await vault(server, 'LIST', 'sys/quotas/rate-limit')).body.data.keys).toEqual(['kv-limit']);

    const statuses: number[] = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await vault(server, 'GET', 'kv/a')).status);
    const refused = await vault(server, 'GET', 'kv/a');
    expect(statuses).toEqual([200, 200, 200]);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ errors: ['request path "kv/a": rate limit quota exceeded'] });
    expect(refused.headers.get('x-ratelimit-limit')).toBe('3');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(refused.headers.get('retry-after')).toMatch(/^\w{3}, \d{2} \w{3} 2030 00:01:\d{2} UTC$/);
    // Other mounts are not limited by a mount quota.
    expect((await vault(server, 'GET', 'sys/mounts')).status).toBe(200);

    await control(server, 'POST', '/clock', { advance: '61s' });
    const next = await vault(server, 'GET', 'kv/a');
    expect(next.status).toBe(200);
    expect(next.headers.get('x-ratelimit-remaining')).toBe('2');
  });

  it('keeps a client over the limit blocked for block_interval; deleting the quota lifts it', async () => {
    await vault(server, 'POST', 'sys/quotas/rate-limit/kv-limit', { path: 'kv/', rate: 1, interval: '1s', block_interval: '5m' });
    expect((await vault(server, 'GET', 'kv/a')).status).toBe(200);
    expect((await vault(server, 'GET', 'kv/a')).status).toBe(429);
    await control(server, 'POST', '/clock', { advance: '2m' });
    expect((await vault(server, 'GET', 'kv/a')).status).toBe(429);
    await control(server, 'POST', '/clock', { advance: '4m' });
    expect((await vault(server, 'GET', 'kv/a')).status).toBe(200);
    expect((await vault(server, 'DELETE', 'sys/quotas/rate-limit/kv-limit')).status).toBe(204);
    for (let i = 0; i < 3; i += 1) expect((await vault(server, 'GET', 'kv/a')).status).toBe(200);
  });

  it('without response headers enabled sends the 429 alone; exempt paths are never limited', async () => {
    await vault(server, 'POST', 'sys/quotas/config', { enable_rate_limit_response_headers: false, rate_limit_exempt_paths: ['kv/free'] });
    expect((await vault(server, 'GET', 'sys/quotas/config')).body.data).toEqual({
      enable_rate_limit_audit_logging: false,
      enable_rate_limit_response_headers: false,
      rate_limit_exempt_paths: ['kv/free'],
    });
    await vault(server, 'POST', 'sys/quotas/rate-limit/global', { rate: 2, interval: '1h' });
    await vault(server, 'GET', 'kv/a');
    await vault(server, 'GET', 'kv/a');
    const refused = await vault(server, 'GET', 'kv/a');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-ratelimit-limit')).toBeNull();
    expect(refused.headers.get('retry-after')).toBeNull();
    expect((await vault(server, 'GET', 'kv/free')).status).toBe(404);
    expect((await fetch(`${server.baseUrl}/v1/sys/health`)).status).toBe(200);
  });
});
