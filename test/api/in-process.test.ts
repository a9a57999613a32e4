import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startUnderstudy, type Understudy } from 'understudy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** The package's own entry (dist/index.js through `exports`), as a test runner's global setup uses it. */
describe("the in-process API: import { startUnderstudy } from 'understudy'", () => {
  let world: Understudy;
  beforeAll(async () => {
    world = await startUnderstudy({ rootToken: 'in-process-root', journalSize: 100, snapshotDir: mkdtempSync(join(tmpdir(), 'us-api-')) });
  });
  afterAll(() => world.stop());

  const vault = (method: string, path: string, body?: unknown) =>
    fetch(`${world.url}/v1/${path}`, {
      method,
      headers: { 'x-vault-token': world.env['VAULT_TOKEN'] ?? '' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it('listens on a free port and hands out the client environment and tokens', async () => {
    expect(world.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(world.url.endsWith(':8200')).toBe(false);
    expect(world.env).toEqual({
      TFE_ADDRESS: world.url,
      TFE_TOKEN: world.tokens.admin,
      VAULT_ADDR: world.url,
      VAULT_TOKEN: 'in-process-root',
    });
    const account = await fetch(`${world.url}/api/v2/account/details`, { headers: { authorization: `Bearer ${world.env['TFE_TOKEN']}` } });
    expect(account.status).toBe(200);
  });

  it('resets, snapshots and restores the world', async () => {
    expect((await vault('POST', 'secret/data/a', { data: { v: '1' } })).status).toBe(200);
    expect((await world.snapshot('one')).name).toBe('one');
    expect((await vault('POST', 'secret/data/a', { data: { v: '2' } })).status).toBe(200);
    expect((await world.restore('one'))['duration-ms']).toBeGreaterThan(0);
    expect(((await (await vault('GET', 'secret/data/a')).json()) as { data: { data: unknown } }).data.data).toEqual({ v: '1' });
    expect(await world.reset()).toBeGreaterThan(0);
    expect((await vault('GET', 'secret/data/a')).status).toBe(404);
  });

  it('reads the journal with filters and injects faults', async () => {
    const rule = world.faults.add({ path: '/v1/sys/health', status: 503, times: 1 });
    expect(world.faults.list()).toEqual([expect.objectContaining({ id: rule.id, applied: 0 })]);
    expect((await vault('GET', 'sys/health')).status).toBe(503);
    expect((await vault('GET', 'sys/health')).status).toBe(200);
    const entries = world.requests({ path: '/v1/sys/health' });
    expect(entries.map((entry) => [entry.status, entry.fault?.effect ?? null])).toEqual([
      [503, 'status'],
      [200, null],
    ]);
    expect(world.requests({ status: '5xx', faulted: true, limit: 1 })).toHaveLength(1);
    expect(() => world.faults.add({ status: 42 })).toThrow(/"status"/);
    expect(world.faults.remove(rule.id)).toBe(true);
    world.faults.clear();
    expect(world.faults.list()).toEqual([]);
  });

  it('moves the emulated clock, running what falls due', async () => {
    const created = await vault('POST', 'auth/token/create', { ttl: '1h', policies: ['default'] });
    const token = ((await created.json()) as { auth: { client_token: string } }).auth.client_token;
    const before = world.clock.now().getTime();
    await world.clock.advance('2h');
    expect(world.clock.now().getTime() - before).toBeGreaterThanOrEqual(2 * 3600 * 1000);
    const lookup = await fetch(`${world.url}/v1/auth/token/lookup-self`, { headers: { 'x-vault-token': token } });
    expect(lookup.status).toBe(403);
  });

  it('refuses an option it does not know, and a value the variable would refuse', async () => {
    await expect(startUnderstudy({ colour: 'red' } as never)).rejects.toThrow(/unknown option "colour"/);
    await expect(startUnderstudy({ journalSize: -1 })).rejects.toThrow(/UNDERSTUDY_JOURNAL_SIZE/);
  });
});
