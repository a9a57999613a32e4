import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform, startServer, type TestServer } from '../../helpers/app.js';
import { action, control, createRun, newWorkspace, simpleConfig, slug, upload, uploadConfiguration, waitFor } from './helpers.js';

/**
 * Query runs with the Go client's wire shapes (`QueryRunCreateOptions`: `type: "queries"`, the
 * `source` attribute, the workspace relation, a null configuration-version relation when none is
 * given) and the real API's documented ones.
 */
let server: TestServer;

beforeAll(async () => {
  server = await startServer({ UNDERSTUDY_EXECUTOR: 'simulated' });
});
afterAll(async () => server.close());

const QUERY_FILE = 'list "terraform_data" "all" {\n  provider = terraform\n}\nlist "aws_instance" "none" {\n  provider = aws\n}\n';

/** A configuration version with these files uploaded (not auto-queued); returns its id. */
async function uploadFiles(workspaceId: string, files: { name: string; content: string }[]): Promise<string> {
  const created = await platform(server, 'POST', `/workspaces/${workspaceId}/configuration-versions`, {
    body: { data: { type: 'configuration-versions', attributes: { 'auto-queue-runs': false } } },
  });
  expect(created.status).toBe(201);
  expect((await upload(created.body.data.attributes['upload-url'], await slug(files))).status).toBe(200);
  return created.body.data.id as string;
}

/** What go-tfe's `QueryRuns.Create` sends. */
const createQuery = (workspaceId: string, attributes: Record<string, unknown> = { source: 'tfe-api' }, cvId: string | null = null) =>
  platform(server, 'POST', '/queries', {
    body: {
      data: {
        type: 'queries',
        attributes,
        relationships: {
          'configuration-version': { data: cvId ? { type: 'configuration-versions', id: cvId } : null },
          workspace: { data: { type: 'workspaces', id: workspaceId } },
        },
      },
    },
  });

const read = async (id: string) => {
  const found = await platform(server, 'GET', `/queries/${id}`);
  expect(found.status).toBe(200);
  return found.body.data as {
    id: string;
    attributes: Record<string, unknown> & { status: string };
    relationships: Record<string, { data: unknown }>;
  };
};

/** Resolves once the query run reaches `status`: the service's status event (subscribed before the read, so no change is missed). */
async function until(id: string, status: string) {
  let stop = () => {};
  const reached = new Promise<void>((resolve) => {
    stop = server.app.platform.services.queries.onStatus((query, now) => {
      if (query === id && now === status) resolve();
    });
  });
  try {
    if ((await read(id)).attributes.status !== status) await reached;
  } finally {
    stop();
  }
  return read(id);
}

/** A workspace whose state holds three `terraform_data` objects, and a version with a query file. */
async function appliedWorkspace(name: string): Promise<{ ws: string; cv: string }> {
  const ws = await newWorkspace(server, name);
  await uploadConfiguration(server, ws, simpleConfig('q'));
  const run = (await createRun(server, ws, { 'auto-apply': true })).body.data.id as string;
  await waitFor(server, run, 'applied');
  const cv = await uploadFiles(ws, [
    { name: 'main.tf', content: simpleConfig('q') },
    { name: 'search.tfquery.hcl', content: QUERY_FILE },
  ]);
  return { ws, cv };
}

describe('query runs', () => {
  it("create from go-tfe's body, run to finished, and find the workspace's objects in the log", async () => {
    const { ws, cv } = await appliedWorkspace('queries-find');
    const created = await createQuery(ws);
    expect(created.status).toBe(201);
    const data = created.body.data;
    expect(data.type).toBe('queries');
    expect(data.id).toMatch(/^query-/);
    expect(data.links.self).toBe(`/api/v2/queries/${data.id}`);
    expect(data.attributes).toMatchObject({ source: 'tfe-api', 'generate-config-out': true, 'canceled-at': null, variables: [] });
    expect(data.attributes['status-timestamps']['pending-at']).toEqual(data.attributes['created-at']);
    expect(data.attributes['log-read-url']).toMatch(/^http:\/\/.+\/_archivist\/v1\/runs\/logs\//);
    // Without a configuration version in the request: the workspace's newest (the one with the query file).
    expect(data.relationships['configuration-version'].data).toEqual({ id: cv, type: 'configuration-versions' });
    expect(data.relationships.workspace.data).toEqual({ id: ws, type: 'workspaces' });
    expect(data.relationships['created-by'].data.type).toBe('users');
    expect(data.relationships['canceled-by'].data).toBeNull();

    const finished = await until(data.id, 'finished');
    expect(finished.attributes['resources-discovered']).toBe(3);
    expect(finished.attributes.actions).toEqual({ 'is-cancelable': false, 'is-force-cancelable': false });
    expect(Object.keys(finished.attributes['status-timestamps'] as object)).toEqual([
      'pending-at',
      'queued-at',
      'running-at',
      'finished-at',
    ]);
    const log = await (await fetch(finished.attributes['log-read-url'] as string)).text();
    expect(log.startsWith('\u0002Terraform v')).toBe(true);
    expect(log.endsWith('\u0003')).toBe(true);
    expect(log).toContain('list.terraform_data.all\tid=');
    expect(log.match(/^list\.terraform_data\.all\t/gm)).toHaveLength(3);
    expect(log).toContain('Warning: list block(s) [list.aws_instance.none] returned 0 results.');

    // A query takes no lock and queues no run.
    const workspace = (await platform(server, 'GET', `/workspaces/${ws}`)).body.data;
    expect(workspace.attributes.locked).toBe(false);
    expect((await platform(server, 'GET', `/workspaces/${ws}/runs`)).body.data).toHaveLength(1);
  });

  it("list a workspace's query runs with pagination and the created-by include; read one, or a 404", async () => {
    const { ws, cv } = await appliedWorkspace('queries-list');
    const first = (await createQuery(ws)).body.data.id as string;
    const second = (await createQuery(ws, { source: 'tfe-api', 'generate-config-out': false }, cv)).body.data.id as string;
    await until(first, 'finished');
    expect((await until(second, 'finished')).attributes['generate-config-out']).toBe(false);

    const list = await platform(server, 'GET', `/workspaces/${ws}/queries`);
    expect(list.status).toBe(200);
    expect(list.body.data.map((item: { id: string }) => item.id)).toEqual([second, first]);
    expect(list.body.meta.pagination).toMatchObject({ 'current-page': 1, 'total-count': 2 });
    const far = await platform(server, 'GET', `/workspaces/${ws}/queries?page%5Bnumber%5D=999&page%5Bsize%5D=100`);
    expect(far.body.data).toEqual([]);
    expect(far.body.meta.pagination).toMatchObject({ 'current-page': 999, 'total-count': 2 });
    for (const include of ['created-by', 'created_by']) {
      const withUser = await platform(server, 'GET', `/workspaces/${ws}/queries?include=${include}`);
      expect(withUser.body.included[0].type).toBe('users');
      expect(withUser.body.included[0].attributes.username).toBeTruthy();
    }
    const shown = await platform(server, 'GET', `/queries/${first}?include=created-by,configuration_version`);
    expect(shown.body.included.map((item: { type: string }) => item.type).sort()).toEqual(['configuration-versions', 'users']);

    expect((await platform(server, 'GET', '/queries/nonexisting')).status).toBe(404);
    expect((await platform(server, 'GET', '/workspaces/ws-nope/queries')).status).toBe(404);
    expect((await platform(server, 'GET', `/queries/${first}?include=bogus`)).status).toBe(400);
  });

  it('wait in each status under the manual progression; a cancel ends a pending one, then answers 409', async () => {
    const { ws } = await appliedWorkspace('queries-manual');
    expect((await control(server, 'PUT', '/runs/progression', { mode: 'manual', workspace: ws })).status).toBe(200);
    const stepping = (await createQuery(ws)).body.data.id as string;
    expect((await read(stepping)).attributes.status).toBe('pending');
    expect((await read(stepping)).attributes.actions).toEqual({ 'is-cancelable': true, 'is-force-cancelable': false });
    expect((await control(server, 'POST', `/runs/${stepping}/advance`)).body).toEqual({ id: stepping, status: 'queued', waiting: true });
    expect((await control(server, 'POST', `/runs/${stepping}/advance`)).body).toEqual({ id: stepping, status: 'running', waiting: true });
    // While running, the log link streams what is written so far (no ETX yet).
    const running = await read(stepping);
    expect(await (await fetch(running.attributes['log-read-url'] as string)).text()).toBe('\u0002');
    expect((await control(server, 'POST', `/runs/${stepping}/advance`)).body).toEqual({ id: stepping, status: 'finished', waiting: false });

    const pending = (await createQuery(ws)).body.data.id as string;
    const canceled = await platform(server, 'POST', `/queries/${pending}/actions/cancel`);
    expect(canceled.status).toBe(202);
    const after = await read(pending);
    expect(after.attributes.status).toBe('canceled');
    expect(after.attributes['canceled-at']).toEqual((after.attributes['status-timestamps'] as Record<string, string>)['canceled-at']);
    expect(after.relationships['canceled-by']?.data).toMatchObject({ type: 'users' });
    const again = await platform(server, 'POST', `/queries/${pending}/actions/cancel`);
    expect(again.status).toBe(409);
    expect(again.body.errors[0].detail).toBe('Failed to transition Query Run to a canceled state.');
    expect((await platform(server, 'POST', '/queries/nonexisting/actions/cancel')).status).toBe(404);
    expect((await control(server, 'POST', `/runs/${pending}/advance`)).status).toBe(409);
  });

  it('under the clock progression, each status lasts five virtual seconds', async () => {
    const { ws } = await appliedWorkspace('queries-clock');
    expect((await control(server, 'PUT', '/runs/progression', { mode: 'clock', workspace: ws })).status).toBe(200);
    const id = (await createQuery(ws)).body.data.id as string;
    expect((await read(id)).attributes.status).toBe('pending');
    await control(server, 'POST', '/clock', { advance: '5s' });
    expect((await read(id)).attributes.status).toBe('queued');
    await control(server, 'POST', '/clock', { advance: '1m' });
    const done = await until(id, 'finished');
    const stamps = done.attributes['status-timestamps'] as Record<string, string>;
    // The virtual clock also moves with real time: five seconds, give or take the test's own pace.
    expect(Date.parse(stamps['queued-at']!) - Date.parse(stamps['pending-at']!)).toBeGreaterThanOrEqual(5_000);
    expect(Date.parse(stamps['queued-at']!) - Date.parse(stamps['pending-at']!)).toBeLessThan(6_000);
  });

  it('error without query files or on the failure marker; refuse bad requests with 4xx', async () => {
    const ws = await newWorkspace(server, 'queries-bad');
    // No configuration version yet.
    expect((await createQuery(ws)).status).toBe(422);
    await uploadConfiguration(server, ws, simpleConfig('no queries'));
    const plain = (await createQuery(ws)).body.data.id as string;
    const errored = await until(plain, 'errored');
    expect(await (await fetch(errored.attributes['log-read-url'] as string)).text()).toContain('Error: No query files');
    await uploadFiles(ws, [{ name: 'q.tfquery.hcl', content: 'locals {\n  understudy_simulate_failure = "query"\n}\n' + QUERY_FILE }]);
    const failing = (await createQuery(ws)).body.data.id as string;
    expect(await (await fetch((await until(failing, 'errored')).attributes['log-read-url'] as string)).text()).toContain(
      'simulated query failure',
    );

    const missingSource = await createQuery(ws, {});
    expect(missingSource.status).toBe(422);
    expect(missingSource.body.errors[0].source.pointer).toBe('/data/attributes/source');
    expect((await createQuery(ws, { source: 'somewhere' })).status).toBe(422);
    expect((await createQuery(ws, { source: 'tfe-api', variables: 'x' })).status).toBe(422);
    expect((await createQuery(ws, { source: 'tfe-api' }, 'cv-nope')).status).toBe(422);
    expect((await createQuery('ws-nope')).status).toBe(404);
    const noWorkspace = await platform(server, 'POST', '/queries', {
      body: { data: { type: 'queries', attributes: { source: 'tfe-api' } } },
    });
    expect(noWorkspace.status).toBe(422);
    expect((await platform(server, 'POST', '/queries', { body: { data: { type: 'runs', attributes: {} } } })).status).toBe(422);
    expect((await platform(server, 'GET', `/workspaces/${ws}/queries`)).body.data).toHaveLength(2);
    // A discard of a run is not a query action.
    expect((await action(server, plain, 'discard')).status).toBe(404);
  });
});
