import { addGoals, cost } from '../goals.js';
import type { BenchTarget, Scenario } from '../scenario.js';

/** Logging in with AppRole next to the token it stands in for: a root token creating a child. */

const TOKEN_CREATE = 'POST /v1/auth/token/create';
const APPROLE_LOGIN = 'POST /v1/auth/approle/login';

async function call(target: BenchTarget, method: string, path: string, body?: unknown): Promise<Record<string, unknown> | undefined> {
  const response = await fetch(`${target.baseUrl}/v1/${path}`, {
    method,
    headers: { 'x-vault-token': target.rootToken, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  // A second setup on the same store finds the method already enabled.
  if (response.status >= 400 && !(path === 'sys/auth/approle' && response.status === 400)) {
    throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
  }
  return response.status === 200 ? ((await response.json()) as Record<string, unknown>) : undefined;
}

export const scenarios: Scenario[] = [
  {
    name: TOKEN_CREATE,
    // On a server of its own, as the wrapping pair measured against it: its requests leave every
    // token they make behind (some 30,000 a row), and a row after it on the same server writes
    // into that larger token table.
    fresh: true,
    setup: async (target) => ({
      method: 'POST',
      path: '/v1/auth/token/create',
      headers: { 'x-vault-token': target.rootToken, 'content-type': 'application/json' },
      body: JSON.stringify({ policies: ['default'], ttl: '1h' }),
    }),
  },
  {
    name: APPROLE_LOGIN,
    setup: async (target) => {
      await call(target, 'POST', 'sys/auth/approle', { type: 'approle' });
      await call(target, 'POST', 'auth/approle/role/bench', { token_policies: 'default', token_ttl: '1h' });
      const roleId = (await call(target, 'GET', 'auth/approle/role/bench/role-id'))?.['data'] as { role_id: string };
      const secret = (await call(target, 'POST', 'auth/approle/role/bench/secret-id', {}))?.['data'] as { secret_id: string };
      return {
        method: 'POST',
        path: '/v1/auth/approle/login',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ role_id: roleId.role_id, secret_id: secret.secret_id }),
      };
    },
  },
];

addGoals(cost(`${APPROLE_LOGIN} vs ${TOKEN_CREATE}`, APPROLE_LOGIN, TOKEN_CREATE, 2));
