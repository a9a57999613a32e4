import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';

let hosted: TestServer;
let selfHosted: TestServer;

beforeAll(async () => {
  [hosted, selfHosted] = await Promise.all([startServer({ UNDERSTUDY_EDITION: 'hosted' }), startServer()]);
});
afterAll(async () => {
  await Promise.all([hosted.close(), selfHosted.close()]);
});

const ranges = (server: TestServer, headers: Record<string, string> = {}) => fetch(`${server.baseUrl}/api/meta/ip-ranges`, { headers });

describe('IP ranges (hosted)', () => {
  it('answers plain JSON with the four lists, without a token (TestIPRangesRead)', async () => {
    const response = await ranges(hosted);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await response.json()) as Record<string, string[]>;
    expect(Object.keys(body).sort()).toEqual(['api', 'notifications', 'sentinel', 'vcs']);
    for (const list of Object.values(body)) expect(list).toEqual(['127.0.0.0/8', '::1/128']);
    expect(Date.parse(response.headers.get('last-modified') ?? '')).not.toBeNaN();
  });

  it('answers 304 with no body to an If-Modified-Since at or after Last-Modified, and 200 to an older or bad one', async () => {
    const lastModified = (await ranges(hosted)).headers.get('last-modified') as string;
    const future = new Date(Date.now() + 48 * 3600_000).toUTCString();
    for (const since of [lastModified, future]) {
      const response = await ranges(hosted, { 'if-modified-since': since });
      expect(response.status, since).toBe(304);
      expect(await response.text()).toBe('');
    }
    const older = new Date(Date.parse(lastModified) - 1000).toUTCString();
    for (const since of [older, 'not a date']) expect((await ranges(hosted, { 'if-modified-since': since })).status, since).toBe(200);
  });

  it('does not exist in the self-hosted edition', async () => {
    expect((await ranges(selfHosted)).status).toBe(404);
  });
});
