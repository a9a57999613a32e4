import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform, startServer, type TestServer } from '../../helpers/app.js';
import { control, createRun, newWorkspace, ORG, simpleConfig, uploadConfiguration, waitFor } from '../runs/helpers.js';
import { putPolicy, putRole, runPolicy, setUpJwtMethod } from './vault-setup.js';

/** Runs through the real engine and the simulated executor: the hook mints and logs in for each phase. */
describe('dynamic credentials on a simulated run', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ UNDERSTUDY_EXECUTOR: 'simulated' });
    await setUpJwtMethod(server.baseUrl, server.baseUrl);
    await putPolicy(server.baseUrl, 'reads', runPolicy('path "secret/data/*" { capabilities = ["read"] }'));
    await putRole(server.baseUrl, 'plan', { sub: 'organization:understudy:project:*:workspace:sim-*:run_phase:plan', policies: ['reads'] });
    await putRole(server.baseUrl, 'apply', {
      sub: 'organization:understudy:project:*:workspace:sim-*:run_phase:apply',
      policies: ['reads'],
    });
  });
  afterAll(() => server.close());

  const addEnv = async (workspaceId: string, key: string, value: string) => {
    const created = await platform(server, 'POST', `/workspaces/${workspaceId}/vars`, {
      body: { data: { type: 'vars', attributes: { key, value, category: 'env' } } },
    });
    expect(created.status).toBe(201);
  };
  const logsOf = async (runId: string) => {
    const shown = await platform(server, 'GET', `/runs/${runId}?include=plan,apply`);
    const log = async (type: string) => {
      const item = shown.body.included.find((candidate: { type: string }) => candidate.type === type);
      return (await fetch(item.attributes['log-read-url'])).text();
    };
    return { plan: await log('plans'), apply: await log('applies') };
  };

  it("logs in with each phase's role, hands VAULT_* over, revokes each token, keeps tokens out of logs and journal", async () => {
    const ws = await newWorkspace(server, 'sim-vault', { 'auto-apply': true });
    // Settings from a variable set applied to the workspace drive it as the workspace's own do.
    const set = await platform(server, 'POST', `/organizations/${ORG}/varsets`, {
      body: {
        data: {
          type: 'varsets',
          attributes: { name: 'vault-login' },
          relationships: { workspaces: { data: [{ type: 'workspaces', id: ws }] } },
        },
      },
    });
    expect(set.status).toBe(201);
    const inSet = await platform(server, 'POST', `/varsets/${set.body.data.id}/relationships/vars`, {
      body: { data: { type: 'vars', attributes: { key: 'TFC_VAULT_ADDR', value: server.baseUrl, category: 'env' } } },
    });
    expect(inSet.status).toBe(201);
    await addEnv(ws, 'TFC_VAULT_PROVIDER_AUTH', 'true');
    await addEnv(ws, 'TFC_VAULT_PLAN_ROLE', 'plan');
    await addEnv(ws, 'TFC_VAULT_APPLY_ROLE', 'apply');
    await addEnv(ws, 'TFC_WORKLOAD_IDENTITY_AUDIENCE', 'sts.example');
    const since = (await control(server, 'GET', '/requests?limit=1')).body.requests.at(-1)?.id ?? 0;
    await uploadConfiguration(server, ws, simpleConfig('creds'));
    const runId = (await createRun(server, ws)).body.data.id as string;
    await waitFor(server, runId, 'applied');

    const { plan, apply } = await logsOf(runId);
    expect(plan).toContain(`Vault dynamic credentials: logged in to ${server.baseUrl} with role "plan" for the plan phase`);
    expect(apply).toContain(`Vault dynamic credentials: logged in to ${server.baseUrl} with role "apply" for the apply phase`);
    for (const log of [plan, apply])
      expect(log).toMatch(/Environment added for this phase: .*TFC_WORKLOAD_IDENTITY_TOKEN.*VAULT_ADDR.*VAULT_TOKEN/);

    const journal = (await control(server, 'GET', `/requests?since=${since}&prefix=/v1/auth/`)).body.requests as {
      method: string;
      path: string;
      status: number;
      'request-body': unknown;
      'response-body': unknown;
    }[];
    const calls = journal.map((entry) => `${entry.method} ${entry.path} ${entry.status}`);
    expect(calls).toEqual([
      'POST /v1/auth/jwt/login 200',
      'POST /v1/auth/token/revoke-self 204',
      'POST /v1/auth/jwt/login 200',
      'POST /v1/auth/token/revoke-self 204',
    ]);
    // Neither the workload identity token nor the secrets token is kept.
    const text = JSON.stringify(journal);
    expect(text).not.toMatch(/eyJ[A-Za-z0-9_-]+\.eyJ/);
    expect(text).not.toMatch(/"client_token":"(?!\[redacted\])/);
  });

  it("a login the method refuses errors the run at its plan, with the method's text in the log", async () => {
    const ws = await newWorkspace(server, 'other-ws', { 'auto-apply': true });
    await addEnv(ws, 'TFC_VAULT_PROVIDER_AUTH', 'true');
    await addEnv(ws, 'TFC_VAULT_ADDR', server.baseUrl);
    await addEnv(ws, 'TFC_VAULT_RUN_ROLE', 'plan');
    await uploadConfiguration(server, ws, simpleConfig('refused'));
    const runId = (await createRun(server, ws)).body.data.id as string;
    await waitFor(server, runId, 'errored');
    const shown = await platform(server, 'GET', `/runs/${runId}?include=plan`);
    const log = await (await fetch(shown.body.included[0].attributes['log-read-url'])).text();
    expect(log).toContain(
      `Error: Vault dynamic credentials: login to ${server.baseUrl}/v1/auth/jwt/login with role "plan" failed (400): ` +
        'error validating claims: claim "sub" does not match any associated bound claim values',
    );
    expect(shown.body.included[0].attributes.status).toBe('errored');
  });
});
