import type { BenchTarget, Scenario } from '../scenario.js';

const headers = (target: BenchTarget) => ({ authorization: `Bearer ${target.adminToken}`, accept: 'application/vnd.api+json' });

async function call(target: BenchTarget, method: string, path: string, body: unknown, jsonApi = true): Promise<{ data: { id: string } }> {
  const response = await fetch(target.baseUrl + path, {
    method,
    headers: { ...headers(target), 'content-type': jsonApi ? 'application/vnd.api+json' : 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 200)}`);
  return JSON.parse(text === '' ? '{}' : text) as { data: { id: string } };
}

/** An organization holding `count` workspaces, made in one control-plane transaction. */
async function organizationWithWorkspaces(target: BenchTarget, name: string, count: number): Promise<void> {
  await call(target, 'POST', '/api/v2/organizations', { data: { type: 'organizations', attributes: { name, email: `${name}@bench.test` } } });
  await call(target, 'POST', `/_emulator/organizations/${name}/workspaces/bulk`, { count, prefix: 'ws' }, false);
}

/**
 * Workspace reads. The two list rows should be close: filtering, sorting and paging happen in
 * SQL on indexes, so a page of 20 costs about the same among 10,000 workspaces as among 100.
 */
export const scenarios: Scenario[] = [
  {
    name: 'GET /api/v2/workspaces/:id',
    setup: async (target) => {
      const created = await call(target, 'POST', '/api/v2/organizations/understudy/workspaces', { data: { type: 'workspaces', attributes: { name: 'bench-show' } } });
      return { path: `/api/v2/workspaces/${created.data.id}`, headers: headers(target) };
    },
  },
  {
    name: 'GET /api/v2/organizations/:org/workspaces (page of 20 of 100)',
    setup: async (target) => {
      await organizationWithWorkspaces(target, 'bench-100', 100);
      return { path: '/api/v2/organizations/bench-100/workspaces?page%5Bsize%5D=20&page%5Bnumber%5D=3', headers: headers(target) };
    },
  },
  {
    name: 'GET /api/v2/organizations/:org/workspaces (page of 20 of 10,000)',
    setup: async (target) => {
      await organizationWithWorkspaces(target, 'bench-10k', 10_000);
      return { path: '/api/v2/organizations/bench-10k/workspaces?page%5Bsize%5D=20&page%5Bnumber%5D=250', headers: headers(target) };
    },
  },
  {
    name: 'GET /api/v2/organizations/:org/workspaces?search[name] (of 10,000)',
    setup: async (target) => {
      await organizationWithWorkspaces(target, 'bench-search', 10_000);
      return { path: '/api/v2/organizations/bench-search/workspaces?search%5Bname%5D=ws-09&sort=-created-at', headers: headers(target) };
    },
  },
];
