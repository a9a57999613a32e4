import { addGoals, flat } from '../goals.js';
import { call, ensureOrganization } from '../platform-setup.js';
import type { BenchTarget, Scenario } from '../scenario.js';

/**
 * The audit trail (hosted edition) at 1,000 and 100,000 events, made in one transaction by the
 * control plane's bulk endpoint: page 1 and the last page should cost the same at both sizes.
 * The feed is read with the organization's audit-trail token, issued once per world.
 */
const SIZES = [
  { label: '1,000', count: 1_000 },
  { label: '100,000', count: 100_000 },
] as const;
const PAGE_SIZE = 20;
const PAGES = [
  { label: 'page 1', number: () => 1 },
  { label: 'last page', number: (count: number) => Math.ceil(count / PAGE_SIZE) },
];

const rowName = (page: string, size: string) => `audit trail (${page} of ${PAGE_SIZE}, ${size} events)`;

async function setupTrail(target: BenchTarget, count: number): Promise<string> {
  const org = `bench-audit-${count}`;
  if (await ensureOrganization(target, org)) {
    await call(target, 'POST', `/_emulator/organizations/${org}/audit-events/bulk`, { count, prefix: 'ws' }, false);
  }
  // Issuing the token again replaces the previous one, so each row reads with a token it knows.
  const token = await call<{ data: { attributes: { token: string } } }>(
    target,
    'POST',
    `/api/v2/organizations/${org}/authentication-token?token=audit-trails`,
  );
  return token.data.attributes.token;
}

export const scenarios: Scenario[] = SIZES.flatMap((size) =>
  PAGES.map((page) => ({
    name: rowName(page.label, size.label),
    world: `audit-trail-${size.count}`,
    edition: 'hosted' as const,
    setup: async (target: BenchTarget) => {
      const token = await setupTrail(target, size.count);
      // The org was made through the API (one event), so the trail holds count + 1 events.
      return {
        path: `/api/v2/organization/audit-trail?page%5Bsize%5D=${PAGE_SIZE}&page%5Bnumber%5D=${page.number(size.count + 1)}`,
        headers: { authorization: `Bearer ${token}` },
      };
    },
  })),
);

addGoals(...PAGES.map((page) => flat(`audit trail: ${page.label}`, rowName(page.label, '1,000'), rowName(page.label, '100,000'))));
