import { generateKeyPairSync, sign } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { addGoals, cost } from '../goals.js';
import type { BenchTarget, Scenario } from '../scenario.js';

/**
 * Logging in with a signed JWT (the JWKS already cached by the method) next to the token it stands
 * in for: a root token creating a child (the row `auth.ts` measures). The key set is served by a
 * bare HTTP server in the bench process, fetched once by the first login.
 */

const TOKEN_CREATE = 'POST /v1/auth/token/create';
const JWT_LOGIN = 'POST /v1/auth/jwt/login';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
let jwksServer: Server | undefined;

async function serveJwks(): Promise<string> {
  const jwks = JSON.stringify({ keys: [{ ...publicKey.export({ format: 'jwk' }), kid: 'bench', alg: 'RS256', use: 'sig' }] });
  jwksServer = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(jwks);
  });
  await new Promise<void>((resolve) => jwksServer?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(jwksServer.address() as { port: number }).port}/keys`;
}

function benchJwt(): string {
  const now = Math.floor(Date.now() / 1000);
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${part({ alg: 'RS256', typ: 'JWT', kid: 'bench' })}.${part({
    iss: 'https://bench.example',
    sub: 'organization:bench:project:Default Project:workspace:ws:run_phase:plan',
    aud: 'vault.workload.identity',
    iat: now,
    nbf: now,
    // Long enough for any bench run, and for the virtual clock of a reused store.
    exp: now + 86_400,
    terraform_full_workspace: 'organization:bench:project:Default Project:workspace:ws',
  })}`;
  return `${input}.${sign('sha256', Buffer.from(input), privateKey).toString('base64url')}`;
}

async function call(target: BenchTarget, path: string, body: unknown): Promise<void> {
  const response = await fetch(`${target.baseUrl}/v1/${path}`, {
    method: 'POST',
    headers: { 'x-vault-token': target.rootToken, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  // A second setup on the same store finds the method already enabled.
  if (response.status >= 400 && !(path === 'sys/auth/jwt' && response.status === 400)) {
    throw new Error(`POST ${path} answered ${response.status}: ${await response.text()}`);
  }
}

export const scenarios: Scenario[] = [
  {
    name: JWT_LOGIN,
    setup: async (target) => {
      await call(target, 'sys/auth/jwt', { type: 'jwt' });
      await call(target, 'auth/jwt/config', { jwks_url: await serveJwks(), bound_issuer: 'https://bench.example' });
      await call(target, 'auth/jwt/role/bench', {
        role_type: 'jwt',
        user_claim: 'terraform_full_workspace',
        bound_audiences: ['vault.workload.identity'],
        bound_claims_type: 'glob',
        bound_claims: { sub: 'organization:bench:*' },
        token_policies: ['default'],
        token_ttl: '1h',
      });
      const body = JSON.stringify({ role: 'bench', jwt: benchJwt() });
      // The first login fetches the key set; the measured ones use the cached copy.
      const warm = await fetch(`${target.baseUrl}/v1/auth/jwt/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      if (warm.status !== 200) throw new Error(`jwt login answered ${warm.status}: ${await warm.text()}`);
      return { method: 'POST', path: '/v1/auth/jwt/login', headers: { 'content-type': 'application/json' }, body };
    },
    teardown: async () => {
      await new Promise<void>((resolve) => (jwksServer ? jwksServer.close(() => resolve()) : resolve()));
      jwksServer = undefined;
    },
  },
];

addGoals(cost(`${JWT_LOGIN} (cached JWKS) vs ${TOKEN_CREATE}`, JWT_LOGIN, TOKEN_CREATE, 2));
