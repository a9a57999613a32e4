import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gunzipSync } from 'node:zlib';
import { platform, startServer, type TestServer } from '../../helpers/app.js';
import { control, newWorkspace, slug, upload, uploadConfiguration, simpleConfig } from './helpers.js';

let server: TestServer;
let workspaceId: string;

beforeAll(async () => {
  server = await startServer({ UNDERSTUDY_EXECUTOR: 'simulated' });
  workspaceId = await newWorkspace(server, 'cv-tests');
});
afterAll(async () => server.close());

async function create(attributes: Record<string, unknown> = {}) {
  const created = await platform(server, 'POST', `/workspaces/${workspaceId}/configuration-versions`, {
    body: { data: { type: 'configuration-versions', attributes: { 'auto-queue-runs': false, ...attributes } } },
  });
  expect(created.status).toBe(201);
  return created.body.data;
}

describe('configuration versions', () => {
  it('creates a pending version that the workspace points at at once, then uploaded through its link', async () => {
    const version = await create();
    expect(version.attributes.status).toBe('pending');
    const pointed = await platform(server, 'GET', `/workspaces/${workspaceId}`);
    expect(pointed.body.data.relationships['current-configuration-version'].data.id).toBe(version.id);
    expect(version.attributes.speculative).toBe(false);
    expect(version.attributes['upload-url']).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/_archivist\/v1\/runs\/upload\//);
    const archive = await slug([{ name: 'main.tf', content: simpleConfig('hi') }]);
    expect((await upload(version.attributes['upload-url'], archive)).status).toBe(200);
    // The link takes a second upload while it lives (go-tfe's own test uploads twice); the last wins.
    const second = await slug([{ name: 'main.tf', content: simpleConfig('second') }]);
    expect((await upload(version.attributes['upload-url'], second)).status).toBe(200);

    const shown = await platform(server, 'GET', `/configuration-versions/${version.id}`);
    expect(shown.body.data.attributes.status).toBe('uploaded');
    expect(shown.body.data.attributes['upload-url']).toBeNull();
    expect(shown.body.data.attributes['status-timestamps']['uploaded-at']).toBeTruthy();
    const workspace = await platform(server, 'GET', `/workspaces/${workspaceId}`);
    expect(workspace.body.data.relationships['current-configuration-version'].data.id).toBe(version.id);

    const download = await fetch(`${server.baseUrl}/api/v2/configuration-versions/${version.id}/download`, {
      headers: { authorization: 'Bearer test-admin-token' },
    });
    expect(download.status).toBe(200);
    const downloaded = gunzipSync(Buffer.from(await download.arrayBuffer())).toString('latin1');
    expect(downloaded).toContain('second');

    const list = await platform(server, 'GET', `/workspaces/${workspaceId}/configuration-versions`);
    expect(list.body.data.map((item: { id: string }) => item.id)).toContain(version.id);
  });

  it('refuses a hostile archive with a 422, errors the version and spends the link', async () => {
    const version = await create();
    const hostile = await slug([
      { name: 'main.tf', content: 'locals {}' },
      { name: '../escape.tf', content: 'x' },
    ]);
    const refused = await upload(version.attributes['upload-url'], hostile);
    expect(refused.status).toBe(422);
    const document = (await refused.json()) as { errors: { detail: string }[] };
    expect(document.errors[0]!.detail).toBe('the configuration archive was rejected: entry "../escape.tf" contains ..');
    const shown = await platform(server, 'GET', `/configuration-versions/${version.id}`);
    expect(shown.body.data.attributes.status).toBe('errored');
    expect(shown.body.data.attributes['error-message']).toContain('contains ..');
    expect((await upload(version.attributes['upload-url'], await slug([{ name: 'main.tf', content: '' }]))).status).toBe(404);

    const notGzip = await create();
    expect((await upload(notGzip.attributes['upload-url'], Buffer.from('plain text'))).status).toBe(422);
  });

  it('expires the upload link on the clock', async () => {
    const version = await create();
    expect((await control(server, 'POST', '/clock', { advance: '11m' })).status).toBe(200);
    expect((await upload(version.attributes['upload-url'], await slug([{ name: 'main.tf', content: '' }]))).status).toBe(404);
    // A speculative upload does not become the workspace's current version.
    const before = (await platform(server, 'GET', `/workspaces/${workspaceId}`)).body.data.relationships['current-configuration-version']
      .data.id;
    await uploadConfiguration(server, workspaceId, simpleConfig('x'), { 'auto-queue-runs': false, speculative: true });
    const after = (await platform(server, 'GET', `/workspaces/${workspaceId}`)).body.data.relationships['current-configuration-version']
      .data.id;
    expect(after).toBe(before);
  });

  it('does not make a provisional version current, and a refused replacement keeps the uploaded slug', async () => {
    const current = await create();
    const provisional = await create({ provisional: true });
    const workspace = await platform(server, 'GET', `/workspaces/${workspaceId}`);
    expect(workspace.body.data.relationships['current-configuration-version'].data.id).toBe(current.id);
    expect(provisional.id).not.toBe(current.id);

    expect((await upload(current.attributes['upload-url'], await slug([{ name: 'main.tf', content: simpleConfig('kept') }]))).status).toBe(
      200,
    );
    const hostile = await slug([{ name: '../escape.tf', content: 'x' }]);
    expect((await upload(current.attributes['upload-url'], hostile)).status).toBe(422);
    const shown = await platform(server, 'GET', `/configuration-versions/${current.id}`);
    expect(shown.body.data.attributes.status).toBe('uploaded');
  });

  it('answers 404 for unknown versions, links and workspaces, and 422 for a bad body', async () => {
    expect((await platform(server, 'GET', '/configuration-versions/cv-nope')).status).toBe(404);
    expect((await upload(`${server.baseUrl}/_archivist/v1/runs/upload/cv-nope.secret`, Buffer.from('x'))).status).toBe(404);
    expect(
      (await platform(server, 'POST', '/workspaces/ws-nope/configuration-versions', { body: { data: { type: 'configuration-versions' } } }))
        .status,
    ).toBe(404);
    const bad = await platform(server, 'POST', `/workspaces/${workspaceId}/configuration-versions`, {
      body: { data: { type: 'configuration-versions', attributes: { speculative: 'yes' } } },
    });
    expect(bad.status).toBe(422);
  });
});
