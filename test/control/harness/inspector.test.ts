import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { launch, skipWithoutChromium, text } from './chromium.js';
import { control, secrets } from './control.js';

const skip = skipWithoutChromium('the inspector page tests');

describe.skipIf(skip)('the inspector page in headless Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  const profile = mkdtempSync(join(tmpdir(), 'understudy-chromium-'));
  beforeAll(async () => {
    server = await startServer({ UNDERSTUDY_CONTROL_TOKEN: 'inspector-control-token' });
    browser = await launch(profile);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    rmSync(profile, { recursive: true, force: true });
  });

  it('asks for the control token, then shows the world, the live journal, and adds a fault that takes effect', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    const first = await page.goto(`${server.baseUrl}/_emulator/ui`);
    expect(first?.status()).toBe(401);
    await page.type('#token', 'wrong');
    await page.click('#login button');
    await page.waitForFunction(() => document.querySelector('#message')?.textContent !== '');
    await page.$eval('#token', (input) => ((input as HTMLInputElement).value = ''));
    await page.type('#token', 'inspector-control-token');
    await Promise.all([page.waitForNavigation(), page.click('#login button')]);
    await page.waitForSelector('body[data-ready="true"]');

    // The world at a glance: the seed's organization and default mounts.
    await page.waitForFunction(() => document.querySelector('#organizations tbody')?.textContent?.includes('understudy'));
    expect(await text(page, '#mounts tbody')).toContain('secret/');

    // A request made now shows up in the live journal.
    expect((await secrets(server, 'GET', 'sys/health')).status).toBe(200);
    await page.waitForSelector('#journal tbody tr[data-path="/v1/sys/health"]', { timeout: 10_000 });

    // A fault added from the page answers the next request.
    await page.type('#fault-path', '/v1/sys/mounts');
    await page.click('#fault-form button');
    await page.waitForSelector('#faults tbody tr');
    expect((await secrets(server, 'GET', 'sys/mounts')).status).toBe(503);
    await page.waitForSelector('#journal tbody tr[data-path="/v1/sys/mounts"][data-status="503"].faulted', { timeout: 10_000 });

    // The clock moves from the page.
    const before = Date.parse(await text(page, '#clock'));
    await page.$eval('#advance-by', (input) => ((input as HTMLInputElement).value = '48h'));
    await page.click('#advance button');
    await page.waitForFunction(
      (start) => Date.parse(document.querySelector('#clock')?.textContent ?? '') - start > 47 * 3600_000,
      {},
      before,
    );
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('takes and lists a snapshot from the page', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.baseUrl}/_emulator/ui`);
    await page.waitForSelector('body[data-ready="true"]');
    await page.type('#snapshot-name', 'from-the-page');
    await page.click('#snapshot button');
    await page.waitForFunction(() => document.querySelector('#snapshots tbody')?.textContent?.includes('from-the-page'));
    const listed = await fetch(`${server.baseUrl}/_emulator/snapshots`, { headers: { authorization: 'Bearer inspector-control-token' } });
    expect(((await listed.json()) as { snapshots: { name: string }[] }).snapshots.map((snapshot) => snapshot.name)).toContain(
      'from-the-page',
    );
    await page.close();
  }, 60_000);

  it('the page and its data stay behind the token for a client without it', async () => {
    expect((await control(server, 'GET', '/ui/world')).status).toBe(401);
    const page = await fetch(`${server.baseUrl}/_emulator/ui`);
    expect(page.status).toBe(401);
    expect(await page.text()).not.toContain('journal');
  });
});
