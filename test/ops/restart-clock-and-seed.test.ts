import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startProcess, tempDir, type Running } from './process.js';

// The built server (dist/main.js) as users run it, started twice on one store file.
const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const started: Running[] = [];
afterAll(async () => {
  for (const running of started) await running.stop();
});

async function start(env: Record<string, string>): Promise<{ running: Running; base: string }> {
  const running = await startProcess({ env: { UNDERSTUDY_PORT: '0', ...env } });
  started.push(running);
  return { running, base: running.banner.exports.VAULT_ADDR as string };
}

async function stop(running: Running): Promise<void> {
  const exit = await running.stop();
  expect(exit.code).toBe(0);
  started.splice(started.indexOf(running), 1);
}

const json = async (response: Response) => ({ status: response.status, body: (await response.json()) as Record<string, unknown> });

describe('a restart on a file store', () => {
  it('keeps the virtual clock where it was moved to, and a reset brings it back to the system time', async () => {
    const store = join(dir, 'clock.sqlite');
    const first = await start({ UNDERSTUDY_STORE: store });
    const moved = await json(
      await fetch(`${first.base}/_emulator/clock`, {
        method: 'POST',
        body: '{"advance":"240h"}',
        headers: { 'content-type': 'application/json' },
      }),
    );
    expect(moved.status).toBe(200);
    const offset = moved.body['offset-ms'] as number;
    // Ten days, less the moment the move itself took (the clock is set to a target read before it).
    expect(offset).toBeGreaterThan(240 * 3600 * 1000 - 60_000);
    expect(offset).toBeLessThanOrEqual(240 * 3600 * 1000);
    await stop(first.running);

    const second = await start({ UNDERSTUDY_STORE: store });
    const after = await json(await fetch(`${second.base}/_emulator/clock`));
    expect(after.body['offset-ms']).toBe(offset);
    // The emulated time is ten days ahead of the machine's again, not back at it.
    expect(Date.parse(after.body.now as string) - Date.now()).toBeGreaterThan(offset - 60_000);

    expect((await fetch(`${second.base}/_emulator/reset`, { method: 'POST' })).status).toBe(200);
    expect((await json(await fetch(`${second.base}/_emulator/clock`))).body['offset-ms']).toBe(0);
    await stop(second.running);
    const third = await start({ UNDERSTUDY_STORE: store });
    expect((await json(await fetch(`${third.base}/_emulator/clock`))).body['offset-ms']).toBe(0);
    await stop(third.running);
  });
});

describe('a seed file without users', () => {
  const seeds = {
    empty: {},
    'secrets-only': { secrets: { tokens: [{ id: 'ci-app-token', policies: ['default'] }] } },
  };
  for (const [name, seed] of Object.entries(seeds)) {
    const what = name === 'empty' ? '{}' : 'a seed of secrets only';
    it(`starts from ${what}, with the built-in site administrator behind the admin token`, async () => {
      const file = join(dir, `${name}.json`);
      writeFileSync(file, JSON.stringify(seed));
      const { running, base } = await start({ UNDERSTUDY_STORE: ':memory:', UNDERSTUDY_SEED: file });
      const adminToken = running.banner.exports.TFE_TOKEN as string;
      const account = await fetch(`${base}/api/v2/account/details`, { headers: { authorization: `Bearer ${adminToken}` } });
      expect(account.status).toBe(200);
      const user = ((await account.json()) as { data: { attributes: Record<string, unknown> } }).data.attributes;
      expect(user.username).toBe('admin');
      expect(user['is-site-admin']).toBe(true);
      const organizations = await fetch(`${base}/api/v2/organizations`, { headers: { authorization: `Bearer ${adminToken}` } });
      expect(((await organizations.json()) as { data: unknown[] }).data).toEqual([]);
      if (name === 'secrets-only') {
        const lookup = await fetch(`${base}/v1/auth/token/lookup-self`, { headers: { 'x-vault-token': 'ci-app-token' } });
        expect(lookup.status).toBe(200);
      }
      await stop(running);
    });
  }
});
