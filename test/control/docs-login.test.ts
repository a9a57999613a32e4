import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/app.js';

const TOKEN = 'docs-control-token';

describe('the API reference with UNDERSTUDY_CONTROL_TOKEN set', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ UNDERSTUDY_CONTROL_TOKEN: TOKEN });
  });
  afterAll(() => server.close());

  it('shows a browser the login form, then the reference once the cookie is set', async () => {
    const first = await fetch(`${server.baseUrl}/_emulator/docs`);
    expect(first.status).toBe(401);
    expect(first.headers.get('content-type')).toContain('text/html');
    const form = await first.text();
    expect(form).toContain('<form id="login">');
    expect(form).toContain("fetch('/_emulator/ui/login'");
    // The document the reference reads stays guarded.
    expect((await fetch(`${server.baseUrl}/_emulator/openapi.json`)).status).toBe(401);

    const wrong = await fetch(`${server.baseUrl}/_emulator/ui/login`, { method: 'POST', body: JSON.stringify({ token: 'nope' }) });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();

    const login = await fetch(`${server.baseUrl}/_emulator/ui/login`, { method: 'POST', body: JSON.stringify({ token: TOKEN }) });
    expect(login.status).toBe(204);
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] as string;
    expect(login.headers.get('set-cookie')).toMatch(/HttpOnly; SameSite=Strict/);

    const page = await fetch(`${server.baseUrl}/_emulator/docs`, { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('id="swagger-ui"');
    // What the page then loads: its assets, and the document (the browser sends the cookie along).
    expect((await fetch(`${server.baseUrl}/_emulator/docs/static/swagger-ui-bundle.js`)).status).toBe(200);
    const document = await fetch(`${server.baseUrl}/_emulator/openapi.json`, { headers: { cookie } });
    expect(document.status).toBe(200);
    expect(((await document.json()) as { openapi: string }).openapi).toMatch(/^3\./);
  });

  it('still answers a bearer token, and keeps the rest of the control plane guarded', async () => {
    const page = await fetch(`${server.baseUrl}/_emulator/docs`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(page.status).toBe(200);
    expect((await fetch(`${server.baseUrl}/_emulator/info`)).status).toBe(401);
    expect((await fetch(`${server.baseUrl}/_emulator/docs/../info`)).status).toBe(401);
  });
});
