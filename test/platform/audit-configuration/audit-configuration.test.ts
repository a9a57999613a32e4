import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { control, platform, startServer, type TestServer } from '../../helpers/app.js';

let hosted: TestServer;
let selfHosted: TestServer;
const ORG = 'understudy';
const PATH = `/organizations/${ORG}/audit-configuration`;

beforeAll(async () => {
  [hosted, selfHosted] = await Promise.all([startServer({ UNDERSTUDY_EDITION: 'hosted' }), startServer()]);
});
afterAll(async () => {
  await Promise.all([hosted.close(), selfHosted.close()]);
});

// OrganizationAuditConfigurationOptions as go-tfe marshals it: type "", nested objects.
const patch = (attributes: Record<string, unknown>) => platform(hosted, 'PATCH', PATH, { body: { data: { type: '', attributes } } });

describe('organization audit configuration (hosted)', () => {
  it('reads the defaults: audit trails on, streaming off, the organization by name', async () => {
    const read = await platform(hosted, 'GET', PATH);
    expect(read.status).toBe(200);
    expect(read.body.data.type).toBe('audit-configurations');
    expect(read.body.data.attributes['audit-trails']).toEqual({ enabled: true });
    expect(read.body.data.attributes['hcp-audit-log-streaming']).toMatchObject({ enabled: false });
    expect(read.body.data.relationships.organization.data).toEqual({ id: ORG, type: 'organizations' });
  });

  it('updates the switches with their timestamps from the emulated clock, and answers a test with a request id', async () => {
    await control(hosted, 'POST', '/clock', { set: '2031-01-02T03:04:05Z' });
    const off = await patch({ 'audit-trails': { enabled: false }, 'hcp-audit-log-streaming': { enabled: false } });
    expect(off.status).toBe(200);
    expect(off.body.data.attributes['audit-trails']).toEqual({ enabled: false });
    // The clock keeps running from the instant it was set.
    expect(off.body.data.attributes.timestamps['audit-trails-disabled-at']).toMatch(/^2031-01-02T03:0\d:\d\d\.\d{3}Z$/);
    expect((await platform(hosted, 'GET', PATH)).body.data.attributes['audit-trails']).toEqual({ enabled: false });

    const noOrganization = await patch({ 'hcp-audit-log-streaming': { enabled: true } });
    expect([noOrganization.status, noOrganization.body.errors[0].source.pointer]).toEqual([
      422,
      '/data/attributes/hcp-audit-log-streaming/organization-id',
    ]);
    expect((await patch({ 'audit-trails': { enabled: 'no' } })).status).toBe(422);
    const streaming = await patch({ 'hcp-audit-log-streaming': { enabled: true, 'use-default-organization': true } });
    expect(streaming.body.data.attributes['hcp-audit-log-streaming']).toMatchObject({ enabled: true, 'use-default-organization': true });

    const test = await fetch(`${hosted.baseUrl}/api/v2${PATH}/test`, {
      method: 'POST',
      headers: { authorization: `Bearer ${hosted.config.adminToken}`, 'content-type': 'application/vnd.api+json' },
    });
    expect(test.status).toBe(200);
    expect(((await test.json()) as Record<string, string>)['request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('does not exist in the self-hosted edition', async () => {
    expect((await platform(selfHosted, 'GET', PATH)).status).toBe(404);
  });
});
