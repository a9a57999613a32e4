import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { control, startServer, type TestServer } from '../../helpers/app.js';
import { vault } from '../ssh/support.js';

/** Rate-limit quotas: the 429 the real service sends, its headers, and windows moved by the virtual clock. */
let server: TestServer;

/** Whole seconds a header names, checked to lie within [low, high] (real time passes between requests). */
function seconds(value: string | null, low: number, high: number): number {
  expect(value).toMatch(/^\d+$/);
  const parsed = Number(value);
  expect(parsed).toBeGreaterThanOrEqual(low);
  expect(parsed).toBeLessThanOrEqual(high);
  return parsed;
}

beforeAll(async () => {
  server = await startServer();
  await control(server, 'POST', '/clock', { set: '2030-01-01T00:00:00Z', force: true });
  expect((await vault(server, 'POST', 'sys/mounts/kv', { type: 'kv' })).status).toBe(204);
  for (const key of ['a', 'ab', 'a/b', 'b', 'bz', 'c']) expect((await vault(server, 'POST', `kv/${key}`, { v: 1 })).status).toBe(204);
});
afterAll(() => server.close());

describe('sys/quotas', () => {
  it('refuses bad quotas with the real errors and stores nothing', async () => {
    await vault(server, 'POST', 'sys/auth/userpass', { type: 'userpass' });
    await vault(server, 'POST', 'sys/auth/approle', { type: 'approle' });
    const refusals: [Record<string, unknown>, string][] = [
      [{ rate: 0 }, "'rate' is invalid"],
      [{ rate: 'x' }, "'rate' is invalid"],
      [{ rate: 5, path: 'nowhere/' }, 'invalid mount path "nowhere/"'],
      [
        { rate: 5, path: 'kv/', role: 'ci' },
        'Mount path "kv/" is not a valid auth method and therefore unsuitable for use with role-based quotas',
      ],
      [{ rate: 5, path: 'auth/userpass', role: 'ci' }, 'Mount path "auth/userpass/" does not support use with role-based quotas'],
      [
        { rate: 5, path: 'auth/approle/login', role: 'ci' },
        'Quotas cannot contain both a path suffix and a role. ' +
          'If a role is provided, path must be a valid auth mount with a concept of roles',
      ],
      [{ rate: 5, path: 'kv/', inheritable: true }, 'only namespace quotas can be configured as inheritable'],
      [{ rate: 5, inheritable: false }, 'all global quotas must be inheritable'],
    ];
    for (const [body, error] of refusals) {
      const answer = await vault(server, 'POST', 'sys/quotas/rate-limit/bad', body);
      expect({ body, status: answer.status, errors: answer.body.errors }).toEqual({ body, status: 400, errors: [error] });
    }
    expect((await vault(server, 'GET', 'sys/quotas/rate-limit/bad')).status).toBe(404);
    expect((await vault(server, 'LIST', 'sys/quotas/rate-limit')).status).toBe(404);
  });

  it('limits a mount per window, with 429s and whole-second headers, and the clock opens the next window', async () => {
    expect((await vault(server, 'POST', 'sys/quotas/config', { enable_rate_limit_response_headers: true })).status).toBe(204);
    expect((await vault(server, 'POST', 'sys/quotas/rate-limit/kv-limit', { path: 'kv', rate: 3, interval: '1h' })).status).toBe(204);
    const read = await vault(server, 'GET', 'sys/quotas/rate-limit/kv-limit');
    expect(read.body.data).toEqual({
      name: 'kv-limit',
      path: 'kv/',
      role: '',
      rate: 3,
      interval: 3600,
      block_interval: 0,
      inheritable: false,
      type: 'rate-limit',
    });
    expect((await vault(server, 'LIST', 'sys/quotas/rate-limit')).body.data.keys).toEqual(['kv-limit']);

    const first = await vault(server, 'GET', 'kv/a');
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit')).toBe('3');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('2');
    seconds(first.headers.get('x-ratelimit-reset'), 3500, 3600);
    expect(first.headers.get('retry-after')).toBeNull();
    expect((await vault(server, 'GET', 'kv/a')).status).toBe(200);
    expect((await vault(server, 'GET', 'kv/a')).status).toBe(200);
    const refused = await vault(server, 'GET', 'kv/a');
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ errors: ['request path "kv/a": rate limit quota exceeded'] });
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    const reset = seconds(refused.headers.get('x-ratelimit-reset'), 3500, 3600);
    expect(Number(refused.headers.get('retry-after'))).toBe(reset);
    // Other mounts are not limited by a mount quota.
    expect((await vault(server, 'GET', 'sys/mounts')).status).toBe(200);

    await control(server, 'POST', '/clock', { advance: '61m' });
    const next = await vault(server, 'GET', 'kv/a');
    expect(next.status).toBe(200);
    expect(next.headers.get('x-ratelimit-remaining')).toBe('2');
    // The window is the second one counted from the first request: it ends about 59 minutes on.
    seconds(next.headers.get('x-ratelimit-reset'), 3300, 3540);
  });

  it('counts fixed windows from a client first request, not from the request after a quiet spell', async () => {
    await vault(server, 'POST', 'sys/quotas/rate-limit/kv-limit', { path: 'kv/', rate: 1, interval: '1h' });
    expect((await vault(server, 'GET', 'kv/a')).status).toBe(200);
    await control(server, 'POST', '/clock', { advance: '90m' });
    // 90 minutes after the bucket began: the second window, which ends at 120 minutes.
    const later = await vault(server, 'GET', 'kv/a');
    expect(later.status).toBe(200);
    seconds(later.headers.get('x-ratelimit-reset'), 1700, 1800);
    expect((await vault(server, 'GET', 'kv/a')).status).toBe(429);
    await control(server, 'POST', '/clock', { advance: '35m' });
    // 125 minutes: the third window (a window opened by the 90-minute request would still be shut).
    expect((await vault(server, 'GET', 'kv/a')).status).toBe(200);
  });

  it('keeps a client over the limit blocked for block_interval, telling it only when to retry', async () => {
    await vault(server, 'POST', 'sys/quotas/rate-limit/kv-limit', { path: 'kv/', rate: 1, interval: '1s', block_interval: '5m' });
    expect((await vault(server, 'GET', 'kv/a')).status).toBe(200);
    const over = await vault(server, 'GET', 'kv/a');
    expect(over.status).toBe(429);
    seconds(over.headers.get('retry-after'), 290, 300);
    await control(server, 'POST', '/clock', { advance: '2m' });
    const blocked = await vault(server, 'GET', 'kv/a');
    expect(blocked.status).toBe(429);
    seconds(blocked.headers.get('retry-after'), 170, 180);
    expect(blocked.headers.get('x-ratelimit-limit')).toBeNull();
    await control(server, 'POST', '/clock', { advance: '4m' });
    expect((await vault(server, 'GET', 'kv/a')).status).toBe(200);
    expect((await vault(server, 'DELETE', 'sys/quotas/rate-limit/kv-limit')).status).toBe(204);
    for (let i = 0; i < 3; i += 1) expect((await vault(server, 'GET', 'kv/a')).status).toBe(200);
  });

  it('a path suffix limits that exact path, a trailing * the paths it begins, before the mount quota', async () => {
    await vault(server, 'POST', 'sys/quotas/rate-limit/exact', { path: 'kv/a', rate: 1, interval: '1h' });
    await vault(server, 'POST', 'sys/quotas/rate-limit/glob', { path: 'kv/b*', rate: 1, interval: '1h' });
    await vault(server, 'POST', 'sys/quotas/rate-limit/mount', { path: 'kv/', rate: 100, interval: '1h' });
    expect((await vault(server, 'GET', 'sys/quotas/rate-limit/exact')).body.data.path).toBe('kv/a');
    expect((await vault(server, 'GET', 'kv/a')).status).toBe(200);
    expect((await vault(server, 'GET', 'kv/a')).status).toBe(429);
    // kv/ab and kv/a/b are not kv/a: the mount quota governs them.
    for (const path of ['kv/ab', 'kv/a/b', 'kv/ab']) expect((await vault(server, 'GET', path)).status).toBe(200);
    expect((await vault(server, 'GET', 'kv/b')).status).toBe(200);
    // kv/bz shares the glob quota's bucket with kv/b.
    expect((await vault(server, 'GET', 'kv/bz')).status).toBe(429);
    const clash = await vault(server, 'POST', 'sys/quotas/rate-limit/again', { path: 'kv/a', rate: 5 });
    expect(clash.body.errors).toEqual(['quota rule with similar properties exists under the name "exact"']);
    for (const name of ['exact', 'glob', 'mount']) await vault(server, 'DELETE', `sys/quotas/rate-limit/${name}`);
  });

  it('without response headers enabled sends the 429 alone; exempt paths are never limited', async () => {
    await vault(server, 'POST', 'sys/quotas/config', { enable_rate_limit_response_headers: false, rate_limit_exempt_paths: ['kv/free'] });
    expect((await vault(server, 'GET', 'sys/quotas/config')).body.data).toEqual({
      enable_rate_limit_audit_logging: false,
      enable_rate_limit_response_headers: false,
      rate_limit_exempt_paths: ['kv/free'],
    });
    await vault(server, 'POST', 'sys/quotas/rate-limit/global', { rate: 2, interval: '1h' });
    expect((await vault(server, 'GET', 'sys/quotas/rate-limit/global')).body.data).toMatchObject({ path: '', inheritable: true });
    await vault(server, 'GET', 'kv/c');
    await vault(server, 'GET', 'kv/c');
    const refused = await vault(server, 'GET', 'kv/c');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-ratelimit-limit')).toBeNull();
    expect(refused.headers.get('retry-after')).toBeNull();
    expect((await vault(server, 'GET', 'kv/free')).status).toBe(404);
    expect((await fetch(`${server.baseUrl}/v1/sys/health`)).status).toBe(200);
    await control(server, 'POST', '/clock', { advance: '2h' });
    expect((await vault(server, 'DELETE', 'sys/quotas/rate-limit/global')).status).toBe(204);
  });
});
