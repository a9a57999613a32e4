import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { SHIPPED_SEED } from '../../src/config.js';
import { ControllableClock } from '../../src/core/clock.js';
import { ADMIN_TOKEN, testConfig } from '../helpers/app.js';
import { writeSeed } from '../platform/identity/helpers.js';

/** One server with the spec's rate limit (30 a second) on a clock that stands still, so "the same second" is exact. */
async function server(): Promise<{ app: App; url: string; clock: ControllableClock }> {
  const seed = writeSeed({
    ...JSON.parse(readFileSync(SHIPPED_SEED, 'utf8')),
    'admin-settings': { general: { 'api-rate-limiting-enabled': true, 'api-rate-limit': 30 } },
  });
  const clock = new ControllableClock(() => Date.parse('2030-01-01T00:00:00.250Z'));
  const app = await buildApp(testConfig({ UNDERSTUDY_SEED: seed }), { logTo: false, clock });
  await app.fastify.listen({ host: '127.0.0.1', port: 0 });
  return { app, url: `http://127.0.0.1:${(app.fastify.server.address() as { port: number }).port}`, clock };
}

/** Two servers in one process: what one keeps in memory (counts, policy, keys) is never the other's. */
describe('per-server state', () => {
  let a: Awaited<ReturnType<typeof server>>;
  let b: Awaited<ReturnType<typeof server>>;

  beforeAll(async () => {
    [a, b] = await Promise.all([server(), server()]);
  });
  afterAll(() => Promise.all([a.app.fastify.close(), b.app.fastify.close()]));

  const get = (at: { url: string }, path: string) => fetch(`${at.url}${path}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  const remaining = async (at: { url: string }) => {
    const response = await get(at, '/api/v2/ping');
    return { status: response.status, remaining: response.headers.get('x-ratelimit-remaining') };
  };

  it('counts rate-limited requests per server, and a reset starts only its own server afresh', async () => {
    for (let index = 0; index < 30; index++) expect((await get(a, '/api/v2/ping')).status).toBe(204);
    expect(await remaining(a)).toEqual({ status: 429, remaining: '0' });
    // The same token, the same second: the other server's budget is untouched.
    expect(await remaining(b)).toEqual({ status: 204, remaining: '29' });

    // A reset replaces the store's content: the counts derived from it go with it (no one is told to forget them).
    expect((await fetch(`${a.url}/_emulator/reset`, { method: 'POST' })).status).toBe(200);
    expect(await remaining(a)).toEqual({ status: 204, remaining: '29' });
    expect(await remaining(b)).toEqual({ status: 204, remaining: '28' });
  });

  it('keeps each server its own limit policy', async () => {
    a.clock.advance(1000);
    b.clock.advance(1000);
    const patched = await fetch(`${a.url}/api/v2/admin/general-settings`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/vnd.api+json' },
      body: JSON.stringify({ data: { type: '', attributes: { 'api-rate-limiting-enabled': false } } }),
    });
    expect(patched.status).toBe(200);
    expect(await remaining(a)).toEqual({ status: 204, remaining: null });
    expect(await remaining(b)).toEqual({ status: 204, remaining: '29' });
  });

  it('signs with each server its own keys: workload identity keys and state download links', async () => {
    const kids = async (at: { url: string }) =>
      ((await (await get(at, '/.well-known/jwks')).json()) as { keys: { kid: string }[] }).keys.map((key) => key.kid);
    const [firstA, firstB] = [await kids(a), await kids(b)];
    expect(firstA).toHaveLength(1);
    expect(firstB).toHaveLength(1);
    expect(firstA).not.toEqual(firstB);
    // Limiting is off on a since the test above, so the rotation is not counted against anything.
    const rotated = await fetch(`${a.url}/api/v2/admin/oidc-settings/actions/rotate-key`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(rotated.status).toBe(204);
    expect(await kids(a)).toHaveLength(2);
    expect(await kids(b)).toEqual(firstB);

    const links = (at: { app: App }) => at.app.platform.services.stateLinks;
    const token = links(a).path('sv-shared', 'state').split('/').pop() ?? '';
    expect(links(a).verify(token)).toEqual({ stateVersionId: 'sv-shared', kind: 'state' });
    expect(links(b).verify(token)).toBeNull();
  });
});
