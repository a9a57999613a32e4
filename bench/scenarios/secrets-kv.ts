import { addGoals, cost, DOC_BASELINE } from '../goals.js';
import type { BenchTarget, Scenario } from '../scenario.js';

/**
 * The key/value engine's everyday calls on `secret/` (version 2): a write (a new version each
 * time, trimming the oldest past ten) and a read of the latest version, next to the cubbyhole rows.
 */

const WRITE = 'POST /v1/secret/data/:path';
const READ = 'GET /v1/secret/data/:path';
const headers = (target: BenchTarget) => ({ 'x-vault-token': target.rootToken, 'content-type': 'application/json' });
const body = JSON.stringify({ data: { username: 'bench', password: 'not-a-real-secret' } });

export const scenarios: Scenario[] = [
  {
    name: WRITE,
    setup: async (target) => ({ method: 'POST', path: '/v1/secret/data/bench/write', headers: headers(target), body }),
  },
  {
    name: READ,
    setup: async (target) => {
      const response = await fetch(`${target.baseUrl}/v1/secret/data/bench/read`, { method: 'POST', headers: headers(target), body });
      if (response.status !== 200) throw new Error(`kv seed write answered ${response.status}`);
      return { path: '/v1/secret/data/bench/read', headers: { 'x-vault-token': target.rootToken } };
    },
  },
];

// A read is a point read (the same goal as the cubbyhole's); a write stores a version and its metadata.
addGoals(
  cost(`${READ} vs document baseline`, READ, DOC_BASELINE, 1.25),
  cost(`${WRITE} vs cubbyhole write`, WRITE, 'POST /v1/cubbyhole/:path', 2),
);
