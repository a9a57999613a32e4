import { expect } from 'vitest';
import { platform, type TestServer } from '../../helpers/app.js';
import { FINAL_STATUSES, untilRunStatusIn } from '../../helpers/events.js';

export { nextRunCreated } from '../../helpers/events.js';
import { tarball, type Entry } from '../registry/archives.js';

export const ORG = 'understudy';

/** `/_emulator` with a JSON body. */
export async function control(server: TestServer, method: string, path: string, body?: unknown) {
  const response = await fetch(`${server.baseUrl}/_emulator${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  const text = await response.text();

  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

export async function newWorkspace(server: TestServer, name: string, attributes: Record<string, unknown> = {}): Promise<string> {
  const created = await platform(server, 'POST', `/organizations/${ORG}/workspaces`, {
    body: { data: { type: 'workspaces', attributes: { name, ...attributes } } },
  });
  expect(created.status).toBe(201);
  return created.body.data.id as string;
}

export const simpleConfig = (greeting: string, extra = '') =>
  `resource "terraform_data" "a" {\n  input = "${greeting}"\n}\nresource "terraform_data" "b" {\n  count = 2\n}\n` +
  `output "greeting" {\n  value = "${greeting}"\n}\n${extra}`;

/** A configuration version on the workspace with `main.tf` uploaded; returns its id. */
export async function uploadConfiguration(
  server: TestServer,
  workspaceId: string,
  main: string,
  attributes: Record<string, unknown> = { 'auto-queue-runs': false },
): Promise<string> {
  const created = await platform(server, 'POST', `/workspaces/${workspaceId}/configuration-versions`, {
    body: { data: { type: 'configuration-versions', attributes } },
  });
  expect(created.status).toBe(201);
  const put = await upload(created.body.data.attributes['upload-url'], await tarball([{ name: 'main.tf', content: main }]));
  expect(put.status).toBe(200);
  return created.body.data.id as string;
}

export const upload = (url: string, body: Buffer) =>
  fetch(url, { method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body: new Uint8Array(body) });

export async function slug(entries: Entry[]) {
  return tarball(entries);
}

export async function createRun(server: TestServer, workspaceId: string, attributes: Record<string, unknown> = {}, cvId?: string) {
  return platform(server, 'POST', '/runs', {
    body: {
      data: {
        type: 'runs',
        attributes,
        relationships: {
          workspace: { data: { type: 'workspaces', id: workspaceId } },
          ...(cvId ? { 'configuration-version': { data: { type: 'configuration-versions', id: cvId } } } : {}),
        },
      },
    },
  });
}

export async function run(server: TestServer, id: string) {
  const found = await platform(server, 'GET', `/runs/${id}`);
  expect(found.status).toBe(200);
  return found.body.data as { id: string; attributes: Record<string, unknown> & { status: string; actions: Record<string, boolean> } };
}

/**
 * Waits until the run reaches `status` (the engine's transition event, not a poll) and answers it
 * as the API shows it. A run that ends in another status never will: that fails at once, naming it.
 */
export async function waitFor(server: TestServer, id: string, status: string) {
  const reached = await untilRunStatusIn(server, id, [status, ...FINAL_STATUSES], async () => (await run(server, id)).attributes.status);
  expect(reached, `run ${id} ended ${reached} without reaching ${status}`).toBe(status);
  return run(server, id);
}

export const action = (server: TestServer, id: string, name: string, body?: unknown) =>
  platform(server, 'POST', `/runs/${id}/actions/${name}`, body === undefined ? {} : { body });
