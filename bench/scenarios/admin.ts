import type { BenchTarget, Scenario } from '../scenario.js';

/** Sets the general settings' rate limiting through the admin API, as a user would. */
async function limiting(target: BenchTarget, attributes: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${target.baseUrl}/api/v2/admin/general-settings`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${target.adminToken}`, 'content-type': 'application/vnd.api+json' },
    body: JSON.stringify({ data: { type: '', attributes } }),
  });
  if (response.status !== 200) throw new Error(`PATCH general-settings answered ${response.status}`);
}

const pointRead = (target: BenchTarget) => ({
  path: '/api/v2/organizations/understudy',
  headers: { authorization: `Bearer ${target.adminToken}`, accept: 'application/vnd.api+json' },
});

/**
 * The API rate limiter's cost: the same platform point read with limiting off, then on with a
 * limit never reached. The second row's ratio over the first is the limiter's overhead (goal < 5%).
 */
export const scenarios: Scenario[] = [
  {
    name: 'GET /api/v2/organizations/:org (rate limiting disabled)',
    setup: async (target) => {
      await limiting(target, { 'api-rate-limiting-enabled': false });
      return pointRead(target);
    },
  },
  {
    name: 'GET /api/v2/organizations/:org (rate limiting on, not triggered)',
    setup: async (target) => {
      await limiting(target, { 'api-rate-limiting-enabled': true, 'api-rate-limit': 1_000_000_000 });
      return pointRead(target);
    },
  },
];
