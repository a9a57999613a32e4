import { createServer, type Server } from 'node:http';
import { gzipSync } from 'node:zlib';
import tar from 'tar-stream';
import { addGoals, cost } from '../goals.js';
import { call } from '../platform-setup.js';
import { startUnderstudy, type Understudy } from '../processes.js';
import type { BenchTarget, OwnServer, Scenario } from '../scenario.js';

/**
 * What Vault dynamic credentials add to a whole run (simulated executor, plan and auto-apply):
 * at each phase's start the platform mints a workload identity token, logs in to the secrets
 * API's JWT method with it (over HTTP, as to any server) and revokes the token at the phase's end.
 *
 * A run is not one request, so each row measures a small driver in the bench process: each
 * request to it creates a run on a workspace of its own and advances it (manual progression, so
 * every step answers once the run has stopped again: no polling) until it is applied. Both rows
 * run the same driver against a fresh understudy, the only difference being the workspace's
 * `env` variables, so the ratio is the feature's cost.
 */

const PLAIN = 'simulated run, plan + apply (no dynamic credentials)';
const WITH_VAULT = 'simulated run, plan + apply, Vault dynamic credentials';
const ORG = 'understudy';
/** More than any BENCH_CONNECTIONS one would use: each request in flight takes one. */
const WORKSPACES = 16;
/** A run applies and keeps a state version: a fixed amount keeps both rows' stores alike. */
const RUNS = 40;
const TERMINAL = new Set(['applied', 'errored', 'discarded', 'canceled', 'planned_and_finished', 'policy_soft_failed']);

async function tarball(main: string): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  pack.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
  const ended = new Promise<void>((resolve) => pack.on('end', () => resolve()));
  pack.entry({ name: 'main.tf' }, main);
  pack.finalize();
  await ended;
  return gzipSync(Buffer.concat(chunks));
}

async function secrets(target: BenchTarget, method: string, path: string, body: unknown): Promise<void> {
  const response = await fetch(`${target.baseUrl}/v1/${path}`, {
    method,
    headers: { 'x-vault-token': target.rootToken, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status >= 300) throw new Error(`${method} /v1/${path}: ${response.status} ${await response.text()}`);
}

/** The JWT method trusting this understudy's own issuer, and one role for every bench workspace and phase. */
async function setUpVault(target: BenchTarget): Promise<void> {
  const discovery = (await (await fetch(`${target.baseUrl}/.well-known/openid-configuration`)).json()) as { issuer: string };
  await secrets(target, 'POST', 'sys/auth/jwt', { type: 'jwt' });
  await secrets(target, 'POST', 'auth/jwt/config', { oidc_discovery_url: discovery.issuer, bound_issuer: discovery.issuer });
  await secrets(target, 'PUT', 'sys/policies/acl/run', { policy: 'path "auth/token/lookup-self" { capabilities = ["read"] }' });
  await secrets(target, 'POST', 'auth/jwt/role/bench', {
    role_type: 'jwt',
    user_claim: 'terraform_full_workspace',
    bound_audiences: ['vault.workload.identity'],
    bound_claims_type: 'glob',
    bound_claims: { sub: `organization:${ORG}:project:*:workspace:bench-run-*:run_phase:*` },
    token_policies: ['run'],
    token_ttl: '20m',
  });
}

/** A workspace under manual progression with a configuration uploaded and, when given, these `env` variables. */
async function prepareWorkspace(target: BenchTarget, name: string, env: Record<string, string>): Promise<string> {
  const workspace = await call(target, 'POST', `/api/v2/organizations/${ORG}/workspaces`, {
    data: { type: 'workspaces', attributes: { name, 'auto-apply': true } },
  });
  const id = workspace.data.id;
  for (const [key, value] of Object.entries(env))
    await call(target, 'POST', `/api/v2/workspaces/${id}/vars`, { data: { type: 'vars', attributes: { key, value, category: 'env' } } });
  const version = await call<{ data: { attributes: { 'upload-url': string } } }>(
    target,
    'POST',
    `/api/v2/workspaces/${id}/configuration-versions`,
    { data: { type: 'configuration-versions', attributes: { 'auto-queue-runs': false } } },
  );
  const uploaded = await fetch(version.data.attributes['upload-url'], {
    method: 'PUT',
    headers: { 'content-type': 'application/octet-stream' },
    body: new Uint8Array(await tarball('resource "terraform_data" "a" {\n  input = "bench"\n}\n')),
  });
  if (uploaded.status !== 200) throw new Error(`configuration upload: ${uploaded.status}`);
  await call(target, 'PUT', '/_emulator/runs/progression', { mode: 'manual', workspace: id }, false);
  return id;
}

/** Workspaces whose last run created the resource: their next run destroys it. */
const built = new Set<string>();

/** One whole run on `workspace`: created, then advanced until it stops for good; its final status. */
async function wholeRun(target: BenchTarget, workspace: string): Promise<string> {
  // Create and destroy in turn, so that every plan has a change to apply.
  const destroy = built.has(workspace);
  const run = await call(target, 'POST', '/api/v2/runs', {
    data: {
      type: 'runs',
      attributes: { 'is-destroy': destroy },
      relationships: { workspace: { data: { type: 'workspaces', id: workspace } } },
    },
  });
  for (let step = 0; step < 20; step++) {
    const answer = await fetch(`${target.baseUrl}/_emulator/runs/${run.data.id}/advance`, { method: 'POST' });
    const state = (await answer.json()) as { status?: string; error?: string };
    if (answer.status !== 200) return `advance answered ${answer.status}: ${state.error ?? ''}`;
    if (state.status === 'applied') {
      if (destroy) built.delete(workspace);
      else built.add(workspace);
    }
    if (state.status !== undefined && TERMINAL.has(state.status)) return state.status;
  }
  return 'still running after 20 steps';
}

/** A fresh understudy and, in front of it, the driver: `POST /run` answers 200 once a whole run is applied. */
async function driverFor(env: Record<string, string>): Promise<OwnServer> {
  const understudy: Understudy = await startUnderstudy({ UNDERSTUDY_EXECUTOR: 'simulated' });
  let driver: Server | undefined;
  try {
    const target = understudy.target;
    const vault = Object.keys(env).length > 0;
    if (vault) await setUpVault(target);
    const settings = vault ? { ...env, TFC_VAULT_ADDR: target.baseUrl } : {};
    const free: string[] = [];
    for (let index = 0; index < WORKSPACES; index++) free.push(await prepareWorkspace(target, `bench-run-${index}`, settings));

    driver = createServer((request, response) => {
      request.resume();
      const workspace = free.pop();
      if (workspace === undefined) return void response.writeHead(503).end('no free workspace');
      wholeRun(target, workspace)
        .then((status) => response.writeHead(status === 'applied' ? 200 : 500).end(status))
        .catch((error: unknown) => response.writeHead(500).end((error as Error).message))
        .finally(() => free.push(workspace));
    });
    await new Promise<void>((resolve) => driver?.listen(0, '127.0.0.1', resolve));
    const port = (driver.address() as { port: number }).port;
    const listening = driver;
    return {
      target: { ...target, baseUrl: `http://127.0.0.1:${port}` },
      stop: async () => {
        await new Promise<void>((resolve) => listening.close(() => resolve()));
        await understudy.stop();
      },
    };
  } catch (error) {
    driver?.close();
    await understudy.stop();
    throw error;
  }
}

const runRequest = async () => ({ method: 'POST', path: '/run', amount: RUNS });

export const scenarios: Scenario[] = [
  { name: PLAIN, ownServer: () => driverFor({}), setup: runRequest },
  {
    name: WITH_VAULT,
    ownServer: () => driverFor({ TFC_VAULT_PROVIDER_AUTH: 'true', TFC_VAULT_RUN_ROLE: 'bench' }),
    setup: runRequest,
  },
];

addGoals(cost('a run with Vault dynamic credentials vs the same run without (simulated)', WITH_VAULT, PLAIN, 1.2));
