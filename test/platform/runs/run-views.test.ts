import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform, startServer, type TestServer } from '../../helpers/app.js';
import { createRun, newWorkspace, ORG, simpleConfig, uploadConfiguration, waitFor } from './helpers.js';

let server: TestServer;

beforeAll(async () => {
  server = await startServer({ UNDERSTUDY_EXECUTOR: 'simulated' });
});
afterAll(async () => server.close());

interface Item {
  id: string;
  type: string;
  attributes: Record<string, unknown>;
  relationships: Record<string, { data: { id: string; type: string } | null }>;
}

/**
 * A workspace whose first run waits `planned` for confirmation and whose other runs wait
 * `pending` behind it: nothing moves until someone acts, so the store is quiet between requests.
 */
async function queuedWorkspace(name: string, runs: number): Promise<{ id: string; runIds: string[] }> {
  const id = await newWorkspace(server, name);
  await uploadConfiguration(server, id, simpleConfig(name));
  const first = (await createRun(server, id)).body.data.id as string;
  await waitFor(server, first, 'planned');
  const runIds = [first];
  for (let n = 1; n < runs; n++) {
    const created = await createRun(server, id, { message: `queued ${n}` });
    expect(created.status).toBe(201);
    runIds.push(created.body.data.id as string);
  }
  return { id, runIds };
}

/** Counts the SQL statements the store executes while `during` runs (every run, get, all and iterate of a prepared statement). */
async function statementsDuring(during: () => Promise<unknown>): Promise<number> {
  const sqlite = server.app.runtime.store.sqlite;
  const prototype = Object.getPrototypeOf(sqlite.prepare('SELECT 1')) as Record<string, unknown>;
  const methods = ['run', 'get', 'all', 'iterate'] as const;
  const originals = methods.map((name) => [name, prototype[name]] as const);
  let count = 0;
  for (const [name, original] of originals) {
    prototype[name] = function (this: Database.Statement, ...args: unknown[]) {
      count++;
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    };
  }
  try {
    await during();
  } finally {
    for (const [name, original] of originals) prototype[name] = original;
  }
  return count;
}

/**
 * The statements a request itself executes: background work (the scheduler wakes at least every
 * 30 s and asks each due source for its next item) can only add statements to a window, so the
 * least count of three windows is the request's own.
 */
async function requestStatements(during: () => Promise<unknown>): Promise<number> {
  const counts: number[] = [];
  for (let attempt = 0; attempt < 3; attempt++) counts.push(await statementsDuring(during));
  return Math.min(...counts);
}

describe('the run view', () => {
  let alpha: { id: string; runIds: string[] };
  let beta: { id: string; runIds: string[] };

  beforeAll(async () => {
    alpha = await queuedWorkspace('views-alpha', 10);
    beta = await queuedWorkspace('views-beta', 10);
    const commented = await platform(server, 'POST', `/runs/${alpha.runIds[0]}/comments`, {
      body: { data: { type: 'comments', attributes: { body: 'looks right' } } },
    });
    expect(commented.status).toBe(201);
  }, 60_000);

  it('lists an organization’s runs with include=workspace,plan: each workspace once, the plans of the page', async () => {
    const listed = await platform(server, 'GET', `/organizations/${ORG}/runs?include=workspace,plan&page[size]=20`);
    expect(listed.status).toBe(200);
    const data = listed.body.data as Item[];
    const ours = data.filter((item) => [alpha.id, beta.id].includes(item.relationships.workspace!.data!.id));
    expect(ours.map((item) => item.id).sort()).toEqual([...alpha.runIds, ...beta.runIds].sort());
    const included = listed.body.included as Item[];

    const workspaces = included.filter((item) => item.type === 'workspaces');
    expect(workspaces.map((item) => item.id).sort()).toEqual(
      [...new Set(data.map((item) => item.relationships.workspace!.data!.id))].sort(),
    );
    expect(workspaces.find((item) => item.id === alpha.id)?.attributes.name).toBe('views-alpha');

    // Every run that has a plan names one included plan; the waiting runs have none yet.
    const plans = included.filter((item) => item.type === 'plans');
    const planIds = data.flatMap((item) => (item.relationships.plan!.data ? [item.relationships.plan!.data.id] : []));
    expect(plans.map((item) => item.id).sort()).toEqual(planIds.sort());
    const firstPlan = ours.find((item) => item.id === alpha.runIds[0])!.relationships.plan!.data!.id;
    const plan = plans.find((item) => item.id === firstPlan)!;
    expect(plan.attributes).toMatchObject({ status: 'finished', 'has-changes': true });
    expect(plan.attributes['log-read-url']).toMatch(new RegExp(`^${server.baseUrl}/`));
    expect(included.filter((item) => item.type !== 'workspaces' && item.type !== 'plans')).toEqual([]);

    // Each run as its own workspace's queue sees it, and with its comments.
    const byId = new Map(ours.map((item) => [item.id, item]));
    for (const { runIds } of [alpha, beta]) {
      expect(runIds.map((id) => byId.get(id)!.attributes['position-in-queue'])).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(runIds.map((id) => byId.get(id)!.attributes.status)).toEqual(['planned', ...Array(9).fill('pending')]);
    }
    const comments = byId.get(alpha.runIds[0]!)!.relationships.comments as unknown as { data: unknown[] };
    expect(comments.data).toHaveLength(1);
    expect((byId.get(alpha.runIds[0]!)!.attributes.permissions as Record<string, boolean>)['can-apply']).toBe(true);
  });

  it('answers the organization list without includes as before: no included member', async () => {
    const listed = await platform(server, 'GET', `/organizations/${ORG}/runs?page[size]=5`);
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(5);
    expect(listed.body.included).toBeUndefined();
  });

  it('refuses an include a run does not have, on the organization list too', async () => {
    const refused = await platform(server, 'GET', `/organizations/${ORG}/runs?include=owners`);
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].detail).toContain('include parameter');
  });

  it('renders a page of 20 runs with includes in as many statements as a page of 11', async () => {
    const include = 'include=workspace,plan,apply,created_by,configuration_version,task_stages';
    const page = (size: number) => async () => {
      const listed = await platform(server, 'GET', `/organizations/${ORG}/runs?${include}&page[size]=${size}`);
      expect(listed.status).toBe(200);
      expect(listed.body.data).toHaveLength(size);
      expect(listed.body.included.length).toBeGreaterThan(0);
    };
    await page(20)(); // statements compiled once per connection are compiled here, outside the count
    // Newest first: a page of 11 holds all of beta's runs (one planned, with its plan) and alpha's newest, so it
    // spans the same two workspaces as the page of 20 (the included workspaces cost per page, not per workspace).
    const eleven = await requestStatements(page(11));
    const twenty = await requestStatements(page(20));
    expect(eleven).toBeGreaterThan(0);
    expect(twenty).toBe(eleven);
    // A page of two waiting runs skips the loads that find nothing to load.
    expect(await requestStatements(page(2))).toBeLessThanOrEqual(twenty);
    // One workspace's list is bounded alike: its ten runs cost no more than a page of two.
    const ofWorkspace = (size: number) => async () => {
      const listed = await platform(server, 'GET', `/workspaces/${alpha.id}/runs?${include}&page[size]=${size}`);
      expect(listed.body.data).toHaveLength(size);
    };
    expect(await requestStatements(ofWorkspace(10))).toBe(await requestStatements(ofWorkspace(3)));
  });

  it('refuses a bad include on a run create before the run exists', async () => {
    const id = await newWorkspace(server, 'views-refused');
    await uploadConfiguration(server, id, simpleConfig('refused'));
    const body = { data: { type: 'runs', relationships: { workspace: { data: { type: 'workspaces', id } } } } };
    const refused = await platform(server, 'POST', '/runs?include=owners', { body });
    expect(refused.status).toBe(400);
    const runs = await platform(server, 'GET', `/workspaces/${id}/runs`);
    expect(runs.body.data).toEqual([]);
  });
});
