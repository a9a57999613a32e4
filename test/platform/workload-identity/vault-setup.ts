import { expect } from 'vitest';
import { ROOT_TOKEN } from '../../helpers/app.js';

/** A call to a secrets API at `address` (this server's own /v1 in these tests); the body parsed. */
export async function v1(address: string, method: string, path: string, options: { token?: string | null; body?: unknown } = {}) {
  const token = options.token === undefined ? ROOT_TOKEN : options.token;
  const response = await fetch(`${address}/v1/${path}`, {
    method,
    headers: {
      ...(token ? { 'X-Vault-Token': token } : {}),
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- secrets API bodies are asserted field by field
  const body: any = text === '' ? undefined : JSON.parse(text);
  return { status: response.status, body };
}

/**
 * The JWT method as the platform's documentation sets it up: mounted at `path`, trusting the
 * platform's discovery document at `issuer` (and only tokens it issued), one policy and one role
 * per phase, each role bound to a workspace's `sub` for that phase.
 */
export async function setUpJwtMethod(address: string, issuer: string, path = 'jwt'): Promise<void> {
  expect((await v1(address, 'POST', `sys/auth/${path}`, { body: { type: 'jwt' } })).status).toBe(204);
  const configured = await v1(address, 'POST', `auth/${path}/config`, { body: { oidc_discovery_url: issuer, bound_issuer: issuer } });
  expect(configured.status, JSON.stringify(configured.body)).toBe(204);
}

export async function putPolicy(address: string, name: string, policy: string): Promise<void> {
  expect((await v1(address, 'PUT', `sys/policies/acl/${name}`, { body: { policy } })).status).toBe(204);
}

export async function putRole(
  address: string,
  name: string,
  options: { sub: string; policies: string[]; audience?: string; path?: string },
): Promise<void> {
  const created = await v1(address, 'POST', `auth/${options.path ?? 'jwt'}/role/${name}`, {
    body: {
      role_type: 'jwt',
      user_claim: 'terraform_full_workspace',
      bound_audiences: [options.audience ?? 'vault.workload.identity'],
      bound_claims_type: 'glob',
      bound_claims: { sub: options.sub },
      token_policies: options.policies,
      token_ttl: '20m',
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(204);
}

/** What the platform's documentation recommends every run token may do, plus `extra`. */
export const runPolicy = (extra: string) => `
path "auth/token/lookup-self" { capabilities = ["read"] }
path "auth/token/renew-self" { capabilities = ["update"] }
path "auth/token/revoke-self" { capabilities = ["update"] }
${extra}
`;
