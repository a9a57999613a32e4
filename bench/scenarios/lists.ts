import { addGoals, cost, flat } from '../goals.js';
import { call, ensureOrganization, headers } from '../platform-setup.js';
import type { Scenario } from '../scenario.js';

/**
 * Team, membership and run-task lists at 100 and 100,000 rows (made by the control plane's bulk
 * endpoints): page 1, the middle page and the last page should cost the same at both sizes, and
 * a text search (`q`) at 100,000 at most twice an unfiltered page.
 */
const KINDS = [
  { kind: 'teams', path: (org: string) => `/api/v2/organizations/${org}/teams`, search: '0424' },
  { kind: 'memberships', path: (org: string) => `/api/v2/organizations/${org}/organization-memberships`, search: '0424' },
  { kind: 'run-tasks', path: (org: string) => `/api/v2/organizations/${org}/tasks`, search: undefined },
] as const;

const SIZES = [
  { label: '100', count: 100 },
  { label: '100,000', count: 100_000 },
] as const;

const PAGES = [
  { label: 'page 1', number: () => 1 },
  { label: 'middle page', number: (count: number) => Math.ceil(count / 40) },
  { label: 'last page', number: (count: number) => Math.ceil(count / 20) },
];

const rowName = (kind: string, page: string, size: string) => `${kind} list (${page} of 20, ${size})`;
const searchName = (kind: string) => `${kind} list ?q=0424 (100,000)`;

export const scenarios: Scenario[] = KINDS.flatMap(({ kind, path, search }) => {
  const setupFor = (size: (typeof SIZES)[number]) => async (target: Parameters<Scenario['setup']>[0]) => {
    const org = `bench-${kind}-${size.count}`;
    if (await ensureOrganization(target, org))
      await call(target, 'POST', `/_emulator/organizations/${org}/${kind}/bulk`, { count: size.count, prefix: kind }, false);
    return org;
  };
  const rows: Scenario[] = SIZES.flatMap((size) =>
    PAGES.map((page) => ({
      name: rowName(kind, page.label, size.label),
      world: `${kind}-${size.count}`,
      setup: async (target) => ({
        path: `${path(await setupFor(size)(target))}?page%5Bsize%5D=20&page%5Bnumber%5D=${page.number(size.count)}`,
        headers: headers(target),
      }),
    })),
  );
  if (search !== undefined) {
    const big = SIZES[1];
    rows.push({
      name: searchName(kind),
      world: `${kind}-${big.count}`,
      setup: async (target) => ({ path: `${path(await setupFor(big)(target))}?page%5Bsize%5D=20&q=${search}`, headers: headers(target) }),
    });
  }
  return rows;
});

for (const { kind, search } of KINDS) {
  addGoals(...PAGES.map((page) => flat(`${kind}: ${page.label}`, rowName(kind, page.label, '100'), rowName(kind, page.label, '100,000'))));
  if (search !== undefined)
    addGoals(cost(`${kind}: q search vs unfiltered page (100,000)`, searchName(kind), rowName(kind, 'page 1', '100,000'), 2));
}
