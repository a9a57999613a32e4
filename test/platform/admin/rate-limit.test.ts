import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../../src/app.js';
import { ControllableClock } from '../../../src/core/clock.js';
import { readFileSync } from 'node:fs';
import { SHIPPED_SEED } from '../../../src/config.js';
import { writeSeed } from '../identity/helpers.js';
import { ADMIN_TOKEN, ROOT_TOKEN, testConfig } from '../../helpers/app.js';

/**
 * The limiter counts per second of the injectable clock. A clock whose source stands still makes
 * "the same second" exact; advancing it by a second opens the next window.
 */
/** The shipped seed with limiting as the spec's defaults have it, stated so the test helpers keep it. */
const specDefaults = () =>
  writeSeed({
    ...JSON.parse(readFileSync(SHIPPED_SEED, 'utf8')),
    'admin-settings': { general: { 'api-rate-limiting-enabled': true, 'api-rate-limit': 30 } },
  });

describe('API rate limiting (the spec defaults: enabled, 30 per second)', () => {
  let app: App;
  let baseUrl: string;
  let clock: ControllableClock;
  const standing = Date.parse('2030-01-01T00:00:00.250Z');

  beforeAll(async () => {
    clock = new ControllableClock(() => standing);
    app = await buildApp(testConfig({ UNDERSTUDY_SEED: specDefaults() }), { logTo: false, clock });
    await app.fastify.listen({ host: '127.0.0.1', port: 0 });
    baseUrl = `http://127.0.0.1:${(app.fastify.server.address() as { port: number }).port}`;
  });
  afterAll(() => app.fastify.close());

  const get = (path: string, token: string | null = ADMIN_TOKEN, headers: Record<string, string> = {}) =>
    fetch(`${baseUrl}${path}`, { headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers } });
  const nextSecond = () => clock.advance(1000);

  it('allows 30 requests in a second, refuses the 31st with a JSON:API 429 and the headers, and allows again the next second', async () => {
    nextSecond();
    for (let index = 1; index <= 30; index++) {
      const response = await get('/api/v2/organizations/understudy');
      expect(response.status, `request ${index}`).toBe(200);
      expect(response.headers.get('x-ratelimit-limit')).toBe('30');
      expect(response.headers.get('x-ratelimit-remaining')).toBe(String(30 - index));
    }
    const refused = await get('/api/v2/organizations/understudy');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toBe('application/vnd.api+json');
    expect(refused.headers.get('x-ratelimit-limit')).toBe('30');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(refused.headers.get('x-ratelimit-reset')).toBe('0.750');
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(((await refused.json()) as { errors: { status: string }[] }).errors[0]?.status).toBe('429');

    // An unknown token is not a budget of its own: it counts with its address's anonymous callers (none yet).
    const other = await get('/api/v2/organizations/understudy', 'some-other-token');
    expect(other.status).toBe(401);
    expect(other.headers.get('x-ratelimit-remaining')).toBe('29');

    nextSecond();
    expect((await get('/api/v2/organizations/understudy')).status).toBe(200);
  });

  it('gives no fresh budget to a new unknown token per request: unknown and missing tokens share one bucket', async () => {
    nextSecond();
    const statuses: number[] = [];
    for (let index = 0; index < 40; index++) statuses.push((await get('/api/v2/ping', `made-up-token-${index}`)).status);
    expect(statuses.filter((status) => status === 204)).toHaveLength(30);
    expect(statuses.slice(30)).toEqual(Array(10).fill(429));
    // The same bucket as a request with no token at all, from this address.
    expect((await get('/api/v2/ping', null)).status).toBe(429);
    // A valid token still has its own budget.
    expect((await get('/api/v2/organizations/understudy')).status).toBe(200);
  });

  it('counts anonymous callers per address and sends the limit on ping', async () => {
    nextSecond();
    const ping = await get('/api/v2/ping', null);
    expect(ping.status).toBe(204);
    expect(ping.headers.get('x-ratelimit-limit')).toBe('30');
    for (let index = 2; index <= 30; index++) await get('/api/v2/ping', null);
    expect((await get('/api/v2/ping', null)).status).toBe(429);
  });

  it('counts the registry protocol against the same budget as /api/v2', async () => {
    nextSecond();
    for (let index = 1; index <= 15; index++) expect((await get('/api/v2/organizations/understudy')).status).toBe(200);
    const modules = await get('/api/registry/v1/modules/');
    expect(modules.status).toBe(200);
    expect(modules.headers.get('x-ratelimit-remaining')).toBe('14');
    for (let index = 17; index <= 30; index++) await get('/api/registry/v1/modules/');
    const refused = await get('/api/registry/v1/modules/');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toBe('application/vnd.api+json');
  });

  it('never limits the secrets API or the control plane', async () => {
    nextSecond();
    for (let index = 0; index < 40; index++) {
      const secrets = await get('/v1/sys/health', null, { 'x-vault-token': ROOT_TOKEN });
      expect(secrets.status).toBe(200);
      expect(secrets.headers.get('x-ratelimit-limit')).toBeNull();
      const control = await get('/_emulator/info', null);
      expect(control.status).toBe(200);
    }
  });

  it('applies a change of the limit at once, and lifts it when disabled', async () => {
    nextSecond();
    const patch = (attributes: Record<string, unknown>) =>
      fetch(`${baseUrl}/api/v2/admin/general-settings`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/vnd.api+json' },
        body: JSON.stringify({ data: { type: '', attributes } }),
      });
    expect((await patch({ 'api-rate-limit': 45 })).status).toBe(200);
    const raised = await get('/api/v2/organizations/understudy');
    expect(raised.headers.get('x-ratelimit-limit')).toBe('45');
    expect(raised.headers.get('x-ratelimit-remaining')).toBe('43');

    expect((await patch({ 'api-rate-limiting-enabled': false })).status).toBe(200);
    for (let index = 0; index < 60; index++) expect((await get('/api/v2/organizations/understudy')).status).toBe(200);
    expect((await get('/api/v2/ping', null)).headers.get('x-ratelimit-limit')).toBeNull();

    // A reset returns to the seed: enabled at 30 again.
    await fetch(`${baseUrl}/_emulator/reset`, { method: 'POST' });
    clock.advance(1000);
    expect((await get('/api/v2/ping', null)).headers.get('x-ratelimit-limit')).toBe('30');
  });
});
