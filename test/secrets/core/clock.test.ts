import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { clock, createToken, v1 } from './client.js';

describe('the clock control endpoint', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('reports now and the offset', async () => {
    // The server's now lies between the moments the request left and its answer came back.
    const before = Date.now();
    const reply = await fetch(`${server.baseUrl}/_emulator/clock`);
    const after = Date.now();
    const body = (await reply.json()) as { now: string; 'offset-ms': number };
    expect(Date.parse(body.now)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(body.now)).toBeLessThanOrEqual(after);
    expect(body['offset-ms']).toBe(0);
  });

  it('advances by a duration and runs what falls due, in time order', async () => {
    const late = await createToken(server, { policies: ['default'], ttl: '3h' });
    const early = await createToken(server, { policies: ['default'], ttl: '1h' });
    const reply = await clock(server, { advance: '36h' });
    expect(reply.status).toBe(200);
    // The emulated clock keeps following the system clock, so the offset is 36h less the milliseconds spent.
    expect(reply.body['offset-ms']).toBeGreaterThan(36 * 3_600_000 - 1_000);
    const expiries = (reply.body.ran as { kind: string; subject: string; at: string }[]).filter((work) => work.kind === 'token-expiry');
    expect(expiries.map((work) => work.subject)).toEqual([early.accessor, late.accessor]);
    // Each ran with the clock at its own due time (the tokens were created a few milliseconds apart).
    expect(Math.abs(Date.parse(expiries[1]?.at ?? '') - Date.parse(expiries[0]?.at ?? '') - 2 * 3_600_000)).toBeLessThan(1_000);
  });

  it('sets an RFC 3339 time, refuses to go back unless forced', async () => {
    const target = new Date(Date.now() + 100 * 86_400_000).toISOString();
    const near = (a: string, b: string) => Math.abs(Date.parse(a) - Date.parse(b)) < 1_000;
    expect(near((await clock(server, { set: target })).body.now, target)).toBe(true);
    const back = await clock(server, { set: '2020-01-01T00:00:00Z' });
    expect(back.status).toBe(409);
    expect(back.body.error).toMatch(/only moves forward/);
    const forced = await clock(server, { set: '2020-01-01T00:00:00Z', force: true });
    expect(forced.status).toBe(200);
    expect(near(forced.body.now, '2020-01-01T00:00:00Z')).toBe(true);
  });

  it('refuses bad input with a 400', async () => {
    expect((await clock(server, {})).status).toBe(400);
    expect((await clock(server, { advance: '-1h' })).status).toBe(400);
    expect((await clock(server, { advance: 'soon' })).status).toBe(400);
    expect((await clock(server, { set: 'yesterday' })).status).toBe(400);
    expect((await clock(server, { advance: '1h', set: '2030-01-01T00:00:00Z' })).status).toBe(400);
    expect((await clock(server, { advance: '1h', force: 'yes' })).status).toBe(400);
    expect((await clock(server, { advance: '99999999999999h' })).status).toBe(400);
  });

  it('goes back to the system clock on reset, with pending work wiped', async () => {
    await clock(server, { advance: '1h' });
    const token = await createToken(server, { policies: [], ttl: '1h' });
    const reset = await fetch(`${server.baseUrl}/_emulator/reset`, { method: 'POST' });
    expect(reset.status).toBe(200);
    const state = (await (await fetch(`${server.baseUrl}/_emulator/clock`)).json()) as { 'offset-ms': number; 'next-due': string | null };
    expect(state['offset-ms']).toBe(0);
    expect(state['next-due']).toBeNull();
    expect((await v1(server, 'GET', 'auth/token/lookup-self', { token: token.client_token })).status).toBe(403);
    expect((await clock(server, { advance: '2h' })).body.ran).toEqual([]);
  });
});
