import { existsSync } from 'node:fs';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

/** Debian's chromium (`apt-get install chromium`; .ci/run installs it). */
export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => existsSync(path));
export const CHROMIUM_MISSING = 'chromium is not installed (apt-get install -y chromium)';

/** Whether a browser test should skip: chromium is absent outside CI (in CI its absence fails the test). */
export function skipWithoutChromium(what: string): boolean {
  if (!CHROMIUM && !process.env.CI) console.warn(`skipping ${what}: ${CHROMIUM_MISSING}`);
  return !CHROMIUM && !process.env.CI;
}

export async function launch(profile: string): Promise<Browser> {
  if (!CHROMIUM) throw new Error(CHROMIUM_MISSING);
  return puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--user-data-dir=${profile}`,
    ],
  });
}

export const text = (page: Page, selector: string) => page.$eval(selector, (element) => element.textContent ?? '');
