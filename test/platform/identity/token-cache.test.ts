import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformTokens, users } from '../../../src/store/tables.js';
import { platform, startServer, type TestServer } from '../../helpers/app.js';
import { createUserWithToken } from './helpers.js';

/**
 * Authentication keeps each presented token's row and user per store connection
 * (src/platform/auth/token-cache.ts). Every test first uses a token, so its row is kept, then
 * writes, and the very next request must see the write: through the API, through a foreign-key
 * cascade, through a write straight to the store, and across a reset.
 */
describe('the platform token cache never answers from a stale row', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  const details = (token: string) => platform(server, 'GET', '/account/details', { token });

  it('sees a deleted token at once', async () => {
    const alice = await createUserWithToken(server, 'cache-alice');
    expect((await details(alice.token)).status).toBe(200);
    const tokens = await platform(server, 'GET', `/users/${alice.id}/authentication-tokens`);
    const id = tokens.body.data[0].id as string;
    expect((await platform(server, 'DELETE', `/authentication-tokens/${id}`)).status).toBe(204);
    expect((await details(alice.token)).status).toBe(401);
  });

  it('sees a suspension and its lifting at once, and a renamed user in the next answer', async () => {
    const bob = await createUserWithToken(server, 'cache-bob');
    expect((await details(bob.token)).body.data.attributes.username).toBe('cache-bob');
    expect((await platform(server, 'POST', `/admin/users/${bob.id}/actions/suspend`)).status).toBe(200);
    expect((await details(bob.token)).status).toBe(401);
    expect((await platform(server, 'POST', `/admin/users/${bob.id}/actions/unsuspend`)).status).toBe(200);
    expect((await details(bob.token)).status).toBe(200);

    const renamed = await platform(server, 'PATCH', '/account/update', {
      token: bob.token,
      body: { data: { type: 'users', attributes: { username: 'cache-robert' } } },
    });
    expect(renamed.status).toBe(200);
    expect((await details(bob.token)).body.data.attributes.username).toBe('cache-robert');
  });

  it('sees a deleted user (its tokens go by cascade) at once', async () => {
    const carol = await createUserWithToken(server, 'cache-carol');
    expect((await details(carol.token)).status).toBe(200);
    expect((await platform(server, 'DELETE', `/admin/users/${carol.id}`)).status).toBe(204);
    expect((await details(carol.token)).status).toBe(401);
  });

  it('sees a write made straight to the store, on no repository path', async () => {
    const dave = await createUserWithToken(server, 'cache-dave');
    expect((await details(dave.token)).status).toBe(200);
    const { db, sqlite } = server.app.runtime.store;
    const expired = new Date(server.app.runtime.clock.nowMs() - 1_000);
    db.update(platformTokens).set({ expiredAt: expired }).where(eq(platformTokens.userId, dave.id)).run();
    expect((await details(dave.token)).status).toBe(401);

    db.update(platformTokens).set({ expiredAt: null }).where(eq(platformTokens.userId, dave.id)).run();
    expect((await details(dave.token)).status).toBe(200);
    sqlite.prepare('UPDATE users SET is_suspended = 1 WHERE id = ?').run(dave.id);
    expect((await details(dave.token)).status).toBe(401);
    db.update(users).set({ isSuspended: false }).where(eq(users.id, dave.id)).run();
    expect((await details(dave.token)).status).toBe(200);
  });

  it('sees a token that expires by the clock, without any write', async () => {
    const frank = await createUserWithToken(server, 'cache-frank');
    const inAnHour = new Date(server.app.runtime.clock.nowMs() + 3_600_000).toISOString();
    const created = await platform(server, 'POST', `/users/${frank.id}/authentication-tokens`, {
      token: frank.token,
      body: { data: { type: 'authentication-tokens', attributes: { 'expired-at': inAnHour } } },
    });
    expect(created.status).toBe(201);
    const secret = created.body.data.attributes.token as string;
    expect((await details(secret)).status).toBe(200);
    await server.app.runtime.scheduler.advanceTo(server.app.runtime.clock.nowMs() + 2 * 3_600_000);
    expect((await details(secret)).status).toBe(401);
  });

  it('forgets every token on a reset', async () => {
    const erin = await createUserWithToken(server, 'cache-erin');
    expect((await details(erin.token)).status).toBe(200);
    server.app.reset();
    expect((await details(erin.token)).status).toBe(401);
  });
});
