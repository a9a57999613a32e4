import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, control, platform, startServer, type TestServer } from '../../helpers/app.js';

const ORG = 'understudy';

async function feed(server: TestServer, token: string, query = '') {
  const response = await fetch(`${server.baseUrl}/api/v2/organization/audit-trail${query}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const text = await response.text();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the feed is asserted field by field
  const body: any = text ? JSON.parse(text) : undefined;
  return { status: response.status, body };
}

describe('audit-trail tokens and the audit trail (hosted)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ UNDERSTUDY_EDITION: 'hosted' });
  });
  afterAll(() => server.close());

  it('issues an audit-trail token beside the organization token, which keeps working', async () => {
    const organizationToken = (await platform(server, 'POST', `/organizations/${ORG}/authentication-token`)).body.data.attributes.token;
    const audit = await platform(server, 'POST', `/organizations/${ORG}/authentication-token?token=audit-trails`);
    expect(audit.status).toBe(201);
    const auditToken = audit.body.data.attributes.token as string;
    expect((await platform(server, 'GET', `/organizations/${ORG}`, { token: organizationToken })).status).toBe(200);
    // The audit-trail token opens the feed and nothing else.
    expect((await platform(server, 'GET', `/organizations/${ORG}`, { token: auditToken })).status).toBe(401);
    expect((await feed(server, auditToken)).status).toBe(200);
    // The organization token reads the feed too (go-tfe's testAuditTrailClient uses one); a user's does not.
    const byOrganization = await feed(server, organizationToken);
    expect(byOrganization.status).toBe(200);
    expect(byOrganization.body).toEqual((await feed(server, auditToken)).body);
    expect((await feed(server, ADMIN_TOKEN)).status).toBe(401);
    const read = await platform(server, 'GET', `/organizations/${ORG}/authentication-token?token=audit-trails`);
    expect(read.body.data.id).toBe(audit.body.data.id);

    const unknown = await platform(server, 'POST', `/organizations/${ORG}/authentication-token?token=everything`);
    expect(unknown.status).toBe(422);
    expect((await platform(server, 'GET', `/organizations/${ORG}`, { token: organizationToken })).status).toBe(200);
    expect((await feed(server, auditToken)).status).toBe(200);

    expect((await platform(server, 'DELETE', `/organizations/${ORG}/authentication-token?token=audit-trails`)).status).toBe(204);
    expect((await feed(server, auditToken)).status).toBe(401);
    expect((await platform(server, 'GET', `/organizations/${ORG}`, { token: organizationToken })).status).toBe(200);
  });

  it('records each change made through the API, pages them, and filters by since', async () => {
    const auditToken = (await platform(server, 'POST', `/organizations/${ORG}/authentication-token?token=audit-trails`)).body.data
      .attributes.token as string;
    const before = (await feed(server, auditToken)).body.pagination.total_count as number;
    const created = await platform(server, 'POST', `/organizations/${ORG}/workspaces`, {
      body: { data: { type: 'workspaces', attributes: { name: 'audited' } } },
    });
    const id = created.body.data.id as string;
    for (let round = 0; round < 3; round++) {
      expect((await platform(server, 'POST', `/workspaces/${id}/actions/lock`)).status).toBe(200);
      expect((await platform(server, 'POST', `/workspaces/${id}/actions/unlock`)).status).toBe(200);
    }
    // Reads and failed writes are not changes.
    await platform(server, 'GET', `/workspaces/${id}`);
    expect((await platform(server, 'POST', `/workspaces/${id}/actions/unlock`)).status).toBe(409);

    const all = await feed(server, auditToken, '?page[size]=100');
    expect(all.body.pagination.total_count).toBe(before + 7);
    const events = all.body.data.slice(before);
    expect(events.map((event: { resource: { action: string } }) => event.resource.action)).toEqual([
      'create',
      'lock',
      'unlock',
      'lock',
      'unlock',
      'lock',
      'unlock',
    ]);
    expect(events[0]).toMatchObject({
      version: '0',
      type: 'Resource',
      auth: { type: 'Client', description: 'admin', impersonator_id: null },
      resource: { id, type: 'workspace', action: 'create', meta: null },
    });
    expect(events[0].auth.accessor_id).toMatch(/^user-/);
    expect(events[0].auth.organization_id).toBeTruthy();
    expect(events[0].request.id).toBeTruthy();
    expect(Date.parse(events[0].timestamp)).not.toBeNaN();

    const total = all.body.pagination.total_count as number;
    const pages = Math.ceil(total / 4);
    const first = await feed(server, auditToken, '?page[number]=1&page[size]=4');
    expect(first.body.pagination).toEqual({ current_page: 1, prev_page: null, next_page: 2, total_pages: pages, total_count: total });
    const last = await feed(server, auditToken, `?page[number]=${pages}&page[size]=4`);
    expect(last.body.pagination.next_page).toBeNull();
    expect(last.body.data.map((event: { id: string }) => event.id)).toEqual(
      all.body.data.slice((pages - 1) * 4).map((event: { id: string }) => event.id),
    );

    const since = new Date(Date.parse(events[6].timestamp) - 1).toISOString();
    expect((await platform(server, 'DELETE', `/workspaces/${id}`)).status).toBe(204);
    const recent = await feed(server, auditToken, `?since=${encodeURIComponent(since)}&page[size]=100`);
    const recentActions = recent.body.data.map((event: { resource: { action: string } }) => event.resource.action);
    expect(recentActions.at(-1)).toBe('destroy');
    expect(recent.body.data.at(-1).resource).toMatchObject({ id, type: 'workspace' });
    expect((await feed(server, auditToken, '?since=yesterday')).status).toBe(400);
  });
});

describe('a long audit trail (hosted)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ UNDERSTUDY_EDITION: 'hosted' });
  });
  afterAll(() => server.close());

  it('keeps its total without counting: bulk events, API events and the last page agree with the table', async () => {
    const auditToken = (await platform(server, 'POST', `/organizations/${ORG}/authentication-token?token=audit-trails`)).body.data
      .attributes.token as string;
    const bulk = await control(server, 'POST', `/organizations/${ORG}/audit-events/bulk`, { count: 250, prefix: 'ws' });
    expect(bulk.status).toBe(201);
    expect((await control(server, 'POST', `/organizations/${ORG}/audit-events/bulk`, { count: 0 })).status).toBe(400);
    expect((await control(server, 'POST', '/organizations/nowhere/audit-events/bulk', { count: 1 })).status).toBe(404);
    await platform(server, 'POST', `/organizations/${ORG}/workspaces`, {
      body: { data: { type: 'workspaces', attributes: { name: 'last-one' } } },
    });
    const sqlite = server.app.runtime.store.sqlite;
    const counted = sqlite
      .prepare('SELECT count(*) FROM audit_events WHERE organization_id = (SELECT id FROM organizations WHERE name = ?)')
      .pluck()
      .get(ORG) as number;
    const first = await feed(server, auditToken, '?page[size]=20');
    expect(first.body.pagination.total_count).toBe(counted);
    const lastPage = Math.ceil(counted / 20);
    const last = await feed(server, auditToken, `?page[size]=20&page[number]=${lastPage}`);
    expect(last.body.data.at(-1).resource).toMatchObject({ type: 'workspace', action: 'create' });
    expect(last.body.data).toHaveLength(counted - (lastPage - 1) * 20);
    expect(last.body.pagination).toMatchObject({ current_page: lastPage, next_page: null, total_count: counted });
    // The total is the kept count, not a count of the trail (which grows with it): a page reads no more rows.
    const kept = sqlite.prepare("SELECT total FROM list_counts WHERE list = 'audit-events' AND organization_id = ?").pluck();
    const organizationId = sqlite.prepare('SELECT id FROM organizations WHERE name = ?').pluck().get(ORG);
    expect(kept.get(organizationId)).toBe(counted);
  });
});

describe('audit trails on the self-hosted edition', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('has no audit-trail token and no feed, and never replaces the organization token for it', async () => {
    const organizationToken = (await platform(server, 'POST', `/organizations/${ORG}/authentication-token`)).body.data.attributes.token;
    const refused = await platform(server, 'POST', `/organizations/${ORG}/authentication-token?token=audit-trails`);
    expect(refused.status).toBe(400);
    expect((await platform(server, 'POST', `/organizations/${ORG}/authentication-token?token=nonsense`)).status).toBe(422);
    expect((await platform(server, 'GET', `/organizations/${ORG}`, { token: organizationToken })).status).toBe(200);
    expect((await feed(server, organizationToken)).status).toBe(404);
  });
});
