import { addGoals, pairCost } from '../goals.js';
import type { Scenario } from '../scenario.js';

/**
 * Response wrapping: wrapping a small secret and unwrapping it with the wrapping token, as a
 * pipeline hands a secret over, next to the token creation it resembles (a token and a
 * cubbyhole write, then a read and a revocation).
 */

const TOKEN_CREATE = 'POST /v1/auth/token/create';
const WRAP_UNWRAP = 'POST /v1/sys/wrapping/wrap + POST /v1/sys/wrapping/unwrap (pair)';

export const scenarios: Scenario[] = [
  {
    name: WRAP_UNWRAP,
    // On a fresh server, as the token creation it is measured against (auth.ts says why).
    fresh: true,
    setup: async (target) => ({
      method: 'POST',
      path: '/v1/sys/wrapping/wrap',
      headers: { 'x-vault-token': target.rootToken, 'x-vault-wrap-ttl': '5m', 'content-type': 'application/json' },
      body: JSON.stringify({ password: 'a secret handed over once' }),
      followUp: {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: Buffer.from('{}'),
        pathFrom: () => '/v1/sys/wrapping/unwrap',
        headersFrom: (body) => ({ 'x-vault-token': (JSON.parse(body) as { wrap_info: { token: string } }).wrap_info.token }),
      },
    }),
  },
];

addGoals(pairCost(`${WRAP_UNWRAP} vs ${TOKEN_CREATE}`, WRAP_UNWRAP, TOKEN_CREATE, 2));
