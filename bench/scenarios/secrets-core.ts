import type { BenchTarget, Scenario } from '../scenario.js';

/** The secrets API's everyday calls: a cubbyhole write and read, and a token looking itself up. */

const tokenHeaders = (target: BenchTarget) => ({ 'x-vault-token': target.rootToken });

export const scenarios: Scenario[] = [
  {
    // On a server of its own, as the KV write it is the yardstick of (secrets-kv.ts says why).
    name: 'POST /v1/cubbyhole/:path',
    fresh: true,
    setup: async (target) => ({
      method: 'POST',
      path: '/v1/cubbyhole/bench/write',
      headers: { ...tokenHeaders(target), 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'bench', password: 'not-a-real-secret' }),
    }),
  },
  {
    name: 'GET /v1/cubbyhole/:path',
    fresh: true,
    setup: async (target) => {
      const response = await fetch(`${target.baseUrl}/v1/cubbyhole/bench/read`, {
        method: 'POST',
        headers: { ...tokenHeaders(target), 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'bench', password: 'not-a-real-secret' }),
      });
      if (response.status !== 204) throw new Error(`cubbyhole seed write answered ${response.status}`);
      return { path: '/v1/cubbyhole/bench/read', headers: tokenHeaders(target) };
    },
  },
  {
    name: 'GET /v1/auth/token/lookup-self',
    fresh: true,
    setup: async (target) => ({ path: '/v1/auth/token/lookup-self', headers: tokenHeaders(target) }),
  },
];
