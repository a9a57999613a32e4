import type { Scenario } from '../scenario.js';

/** The two reads every client makes first: its organization, and the secrets API's health. */
export const scenarios: Scenario[] = [
  {
    name: 'GET /api/v2/organizations/:org',
    fresh: true,
    setup: async (target) => ({
      path: '/api/v2/organizations/understudy',
      headers: { authorization: `Bearer ${target.adminToken}`, accept: 'application/vnd.api+json' },
    }),
  },
  {
    name: 'GET /v1/sys/health',
    setup: async () => ({ path: '/v1/sys/health' }),
  },
];
