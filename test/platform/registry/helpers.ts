import { platform, type TestServer } from '../../helpers/app.js';

export const ORG = 'understudy';

/** Creates a private module and uploads each version's archive; returns nothing but fails loudly. */
export async function publishByUpload(
  server: TestServer,
  name: string,
  provider: string,
  versions: { version: string; archive: Buffer }[],
): Promise<void> {
  const created = await platform(server, 'POST', `/organizations/${ORG}/registry-modules`, {
    body: { data: { type: 'registry-modules', attributes: { name, provider } } },
  });
  if (created.status !== 201) throw new Error(`create module: ${created.status} ${JSON.stringify(created.body)}`);
  for (const { version, archive } of versions) {
    const made = await platform(server, 'POST', `/organizations/${ORG}/registry-modules/private/${ORG}/${name}/${provider}/versions`, {
      body: { data: { type: 'registry-module-versions', attributes: { version } } },
    });
    if (made.status !== 201) throw new Error(`create version: ${made.status} ${JSON.stringify(made.body)}`);
    const uploaded = await fetch(made.body.data.links.upload, {
      method: 'PUT',
      headers: { 'content-type': 'application/octet-stream' },
      body: new Uint8Array(archive),
    });
    if (uploaded.status !== 200) throw new Error(`upload: ${uploaded.status} ${await uploaded.text()}`);
  }
}

/** GET on the registry protocol with a bearer token; JSON body when there is one. */
export async function registryGet(server: TestServer, path: string, token: string | null, init: RequestInit = {}) {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch(`${server.baseUrl}${path}`, { headers, redirect: 'manual', ...init });
  const text = await response.text();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are asserted field by field
  const body: any = text && response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : undefined;
  return { status: response.status, headers: response.headers, body };
}
