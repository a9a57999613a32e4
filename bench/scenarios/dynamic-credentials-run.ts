import { addGoals, cost } from '../goals.js';
import { plainRun, RUN_ORG, runDriver, runRequest } from '../run-driver.js';
import type { BenchTarget, Scenario } from '../scenario.js';

/**
 * What Vault dynamic credentials add to a whole run (simulated executor, plan and auto-apply):
 * at each phase's start the platform mints a workload identity token, logs in to the secrets
 * API's JWT method with it (over HTTP, as to any server) and revokes the token at the phase's end.
 * The row and its own baseline, the plain run, run the run driver (bench/run-driver.ts) against
 * a fresh understudy each, the only difference being the workspace's `env` variables, and are
 * measured in the same alternating rounds, so the per-round ratio is the feature's cost.
 */

const PLAIN = 'simulated run, plan + apply (no dynamic credentials)';
const WITH_VAULT = 'simulated run, plan + apply, Vault dynamic credentials';

async function secrets(target: BenchTarget, method: string, path: string, body: unknown): Promise<void> {
  const response = await fetch(`${target.baseUrl}/v1/${path}`, {
    method,
    headers: { 'x-vault-token': target.rootToken, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status >= 300) throw new Error(`${method} /v1/${path}: ${response.status} ${await response.text()}`);
}

/** The JWT method trusting this understudy's own issuer, and one role for every bench workspace and phase. */
async function setUpVault(target: BenchTarget): Promise<Record<string, string>> {
  const discovery = (await (await fetch(`${target.baseUrl}/.well-known/openid-configuration`)).json()) as { issuer: string };
  await secrets(target, 'POST', 'sys/auth/jwt', { type: 'jwt' });
  await secrets(target, 'POST', 'auth/jwt/config', { oidc_discovery_url: discovery.issuer, bound_issuer: discovery.issuer });
  await secrets(target, 'PUT', 'sys/policies/acl/run', { policy: 'path "auth/token/lookup-self" { capabilities = ["read"] }' });
  await secrets(target, 'POST', 'auth/jwt/role/bench', {
    role_type: 'jwt',
    user_claim: 'terraform_full_workspace',
    bound_audiences: ['vault.workload.identity'],
    bound_claims_type: 'glob',
    bound_claims: { sub: `organization:${RUN_ORG}:project:*:workspace:bench-run-*:run_phase:*` },
    token_policies: ['run'],
    token_ttl: '20m',
  });
  return { TFC_VAULT_PROVIDER_AUTH: 'true', TFC_VAULT_RUN_ROLE: 'bench', TFC_VAULT_ADDR: target.baseUrl };
}

export const scenarios: Scenario[] = [
  {
    name: WITH_VAULT,
    baseline: plainRun(PLAIN, 'bench-run-'),
    ownServer: () => runDriver({ prefix: 'bench-run-', setup: setUpVault }),
    setup: runRequest,
  },
];

addGoals(cost('a run with Vault dynamic credentials vs the same run without (simulated)', WITH_VAULT, `baseline: ${PLAIN}`, 1.2));
