import { addGoals, cost } from '../goals.js';
import type { BenchRequest, BenchTarget, Scenario } from '../scenario.js';

/**
 * A key/value read by a userpass login's token (so the token has an entity) under a plain policy,
 * and the same read under a policy whose path is an identity template: the template is rendered
 * once per entity and identity version, so the two should cost about the same.
 */

const PLAIN = 'GET /v1/secret/data/:path (userpass token, plain policy)';
const TEMPLATED = 'GET /v1/secret/data/:path (userpass token, templated policy)';

async function call(target: BenchTarget, method: string, path: string, body?: unknown, token = target.rootToken): Promise<Response> {
  return fetch(`${target.baseUrl}/v1/${path}`, {
    method,
    headers: { 'x-vault-token': token, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function readAs(target: BenchTarget, user: string, policy: string): Promise<BenchRequest> {
  // Both rows share the world: a second enable answers 400, which is fine.
  await call(target, 'POST', 'sys/auth/userpass', { type: 'userpass' });
  const wrote = await call(target, 'PUT', `sys/policies/acl/${user}`, { policy });
  if (wrote.status !== 204) throw new Error(`policy write answered ${wrote.status}`);
  await call(target, 'POST', `auth/userpass/users/${user}`, { password: 'pw', token_policies: user });
  const secret = await call(target, 'POST', `secret/data/bench-identity/${user}`, { data: { value: 'x' } });
  if (secret.status !== 200) throw new Error(`kv seed write answered ${secret.status}`);
  const login = await call(target, 'POST', `auth/userpass/login/${user}`, { password: 'pw' }, '');
  const { auth } = (await login.json()) as { auth: { client_token: string; entity_id: string } };
  await call(target, 'POST', `identity/entity/id/${auth.entity_id}`, { name: user });
  return { path: `/v1/secret/data/bench-identity/${user}`, headers: { 'x-vault-token': auth.client_token } };
}

export const scenarios: Scenario[] = [
  { name: PLAIN, setup: (target) => readAs(target, 'plain', 'path "secret/data/bench-identity/plain" { capabilities = ["read"] }') },
  {
    name: TEMPLATED,
    setup: (target) =>
      readAs(target, 'templated', 'path "secret/data/bench-identity/{{identity.entity.name}}" { capabilities = ["read"] }'),
  },
];

addGoals(cost(`${TEMPLATED} vs the same read with a plain policy`, TEMPLATED, PLAIN, 1.2));
