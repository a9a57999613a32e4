import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform, startServer, type TestServer } from '../../helpers/app.js';
import { control, createRun, newWorkspace, simpleConfig, uploadConfiguration, waitFor } from '../runs/helpers.js';
import { putPolicy, putRole, runPolicy, setUpJwtMethod } from './vault-setup.js';

/** A secrets token (`hvs.` and 24 characters) or a compact JWS (two base64url JSON parts). */
const SECRETS_TOKEN = /hvs\.[A-Za-z0-9]{24}/;
const JWT = /eyJ[A-Za-z0-9_-]+\.eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/;

/** After a run with dynamic credentials: the run's logs, the request journal and the store file hold no token in clear. */
describe('dynamic credentials leave no token at rest', () => {
  const dir = mkdtempSync(join(tmpdir(), 'understudy-wif-rest-'));
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ UNDERSTUDY_EXECUTOR: 'simulated', UNDERSTUDY_STORE: join(dir, 'store.db') });
    await setUpJwtMethod(server.baseUrl, server.baseUrl);
    await putPolicy(server.baseUrl, 'reads', runPolicy(''));
    await putRole(server.baseUrl, 'run', { sub: 'organization:understudy:project:*:workspace:at-rest:run_phase:*', policies: ['reads'] });
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('neither the workload identity token nor the secrets token is in the logs, the journal or the store', async () => {
    const ws = await newWorkspace(server, 'at-rest', { 'auto-apply': true });
    for (const [key, value] of Object.entries({
      TFC_VAULT_PROVIDER_AUTH: 'true',
      TFC_VAULT_ADDR: server.baseUrl,
      TFC_VAULT_RUN_ROLE: 'run',
      TFC_WORKLOAD_IDENTITY_AUDIENCE: 'sts.example',
    })) {
      const created = await platform(server, 'POST', `/workspaces/${ws}/vars`, {
        body: { data: { type: 'vars', attributes: { key, value, category: 'env' } } },
      });
      expect(created.status).toBe(201);
    }
    await uploadConfiguration(server, ws, simpleConfig('at rest'));
    const runId = (await createRun(server, ws)).body.data.id as string;
    await waitFor(server, runId, 'applied');

    const shown = await platform(server, 'GET', `/runs/${runId}?include=plan,apply`);
    for (const item of shown.body.included as { attributes: Record<string, string> }[]) {
      const log = await (await fetch(item.attributes['log-read-url'] as string)).text();
      expect(log).toContain('logged in to');
      expect(log).not.toMatch(SECRETS_TOKEN);
      expect(log).not.toMatch(JWT);
    }
    const journal = JSON.stringify((await control(server, 'GET', '/requests?limit=1000')).body);
    expect(journal).toContain('/v1/auth/jwt/login');
    expect(journal).not.toMatch(SECRETS_TOKEN);
    expect(journal).not.toMatch(JWT);

    // Every file of the store (the database and its write-ahead log), read as bytes.
    const files = readdirSync(dir).filter((name) => name.startsWith('store.db'));
    expect(files).toContain('store.db');
    for (const name of files) {
      const bytes = readFileSync(join(dir, name)).toString('latin1');
      expect(bytes, name).not.toMatch(SECRETS_TOKEN);
      expect(bytes, name).not.toMatch(JWT);
    }
  });
});
