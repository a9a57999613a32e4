import { addGoals, cost, flat } from '../goals.js';
import type { BenchTarget, Scenario } from '../scenario.js';
import { call, ensureOrganization, headers } from '../platform-setup.js';

/** An organization holding `count` workspaces (`ws-000001` …), made once per world in one control-plane transaction. */
async function organizationWithWorkspaces(target: BenchTarget, name: string, count: number): Promise<void> {
  if (!(await ensureOrganization(target, name))) return;
  await call(target, 'POST', `/_emulator/organizations/${name}/workspaces/bulk`, { count, prefix: 'ws' }, false);
}

const SHOW = 'GET /api/v2/workspaces/:id';
const list = (org: string, query: string) => `/api/v2/organizations/${org}/workspaces?page%5Bsize%5D=20&${query}`;

const SIZES = [
  { label: '100', org: 'bench-100', count: 100 },
  { label: '100,000', org: 'bench-100k', count: 100_000 },
] as const;

/** Page 1, the middle page and the last page of 20, at each size. */
const PAGES = [
  { label: 'page 1', number: () => 1 },
  { label: 'middle page', number: (count: number) => Math.ceil(count / 40) },
  { label: 'last page', number: (count: number) => Math.ceil(count / 20) },
];

const pageName = (page: string, size: string) => `GET /api/v2/organizations/:org/workspaces (${page} of 20, ${size})`;
const SEARCH = 'GET /api/v2/organizations/:org/workspaces?search[name]=0424 (100,000)';
const WILDCARD = 'GET /api/v2/organizations/:org/workspaces?search[wildcard-name]=ws-0424* (100,000)';
const TAGGED = 'GET /api/v2/organizations/:org/workspaces?filter[tagged][0][key]=env&…[value]=bench (20 of 100,000)';

/** Binds `env=bench` on 20 workspaces spread over the organization (a PATCH merges, so a rerun changes nothing). */
async function bindBenchTags(target: BenchTarget, org: string): Promise<void> {
  for (let index = 1; index <= 20; index += 1) {
    const name = `ws-${String(index * 4_999).padStart(6, '0')}`;
    const workspace = await call(target, 'GET', `/api/v2/organizations/${org}/workspaces/${name}`);
    await call(target, 'PATCH', `/api/v2/workspaces/${workspace.data.id}/tag-bindings`, {
      data: [{ type: 'tag-bindings', attributes: { key: 'env', value: 'bench' } }],
    });
  }
}

/**
 * Workspace reads. Lists are measured at 100 and 100,000 workspaces: filtering, sorting and
 * paging happen in SQL on indexes, so a page should cost the same whatever the store holds.
 */
export const scenarios: Scenario[] = [
  {
    name: SHOW,
    fresh: true,
    setup: async (target) => {
      const created = await call(target, 'POST', '/api/v2/organizations/understudy/workspaces', {
        data: { type: 'workspaces', attributes: { name: 'bench-show' } },
      });
      return { path: `/api/v2/workspaces/${created.data.id}`, headers: headers(target) };
    },
  },
  ...SIZES.flatMap((size) =>
    PAGES.map((page): Scenario => ({
      name: pageName(page.label, size.label),
      world: `workspaces-${size.org}`,
      setup: async (target) => {
        await organizationWithWorkspaces(target, size.org, size.count);
        return { path: list(size.org, `page%5Bnumber%5D=${page.number(size.count)}`), headers: headers(target) };
      },
    })),
  ),
  {
    name: SEARCH,
    world: 'workspaces-bench-100k',
    setup: async (target) => {
      await organizationWithWorkspaces(target, 'bench-100k', 100_000);
      return { path: list('bench-100k', 'search%5Bname%5D=0424'), headers: headers(target) };
    },
  },
  {
    name: WILDCARD,
    world: 'workspaces-bench-100k',
    setup: async (target) => {
      await organizationWithWorkspaces(target, 'bench-100k', 100_000);
      return { path: list('bench-100k', 'search%5Bwildcard-name%5D=ws-0424*'), headers: headers(target) };
    },
  },
  {
    name: TAGGED,
    world: 'workspaces-bench-100k',
    setup: async (target) => {
      await organizationWithWorkspaces(target, 'bench-100k', 100_000);
      await bindBenchTags(target, 'bench-100k');
      return {
        path: list('bench-100k', 'filter%5Btagged%5D%5B0%5D%5Bkey%5D=env&filter%5Btagged%5D%5B0%5D%5Bvalue%5D=bench'),
        headers: headers(target),
      };
    },
  },
];

addGoals(
  cost('workspaces: page of 20 vs a point read', pageName('page 1', '100'), SHOW, 3),
  ...PAGES.map((page) => flat(`workspaces: ${page.label}`, pageName(page.label, '100'), pageName(page.label, '100,000'))),
  cost('workspaces: search[name] vs unfiltered page (100,000)', SEARCH, pageName('page 1', '100,000'), 2),
  cost('workspaces: search[wildcard-name] vs unfiltered page (100,000)', WILDCARD, pageName('page 1', '100,000'), 2),
  cost('workspaces: filter[tagged] vs unfiltered page (100,000)', TAGGED, pageName('page 1', '100,000'), 2),
);
