import { ADMIN_TOKEN, platform, type TestServer } from '../../helpers/app.js';
import { sha256, type Signer } from './signing.js';

export const ORG = 'understudy';

export const providerPath = (name: string, registry = 'private', namespace = ORG) =>
  `/organizations/${ORG}/registry-providers/${registry}/${namespace}/${name}`;

export const put = (url: string, body: Buffer) =>
  fetch(url, { method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body: new Uint8Array(body) });

/** A JSON:API call outside `/api/v2` (the GPG keys live under `/api/registry/private/v2`). */
export async function registryCall(
  server: TestServer,
  method: string,
  path: string,
  options: { token?: string | null; body?: unknown } = {},
) {
  const token = options.token === undefined ? ADMIN_TOKEN : options.token;
  const headers: Record<string, string> = { accept: 'application/vnd.api+json' };
  if (token) headers.authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/vnd.api+json';
  const response = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are asserted field by field
  const body: any = text === '' ? undefined : JSON.parse(text);
  return { status: response.status, headers: response.headers, body };
}

export const GPG_KEYS = '/api/registry/private/v2/gpg-keys';

async function expectStatus(what: string, response: { status: number; body: unknown }, status: number) {
  if (response.status !== status) throw new Error(`${what}: ${response.status} ${JSON.stringify(response.body)}`);
}

/**
 * Publishes a private provider the way a release pipeline does with go-tfe: the key, the
 * provider, a version naming the key, its SHA256SUMS and signature, then each platform's zip.
 */
export async function publishProvider(
  server: TestServer,
  signer: Signer,
  name: string,
  version: string,
  zips: { os: string; arch: string; filename: string; zip: Buffer }[],
): Promise<void> {
  const key = await registryCall(server, 'POST', GPG_KEYS, {
    body: { data: { type: 'gpg-keys', attributes: { namespace: ORG, 'ascii-armor': signer.armor } } },
  });
  if (key.status !== 201 && key.status !== 422) await expectStatus('gpg key', key, 201);
  const provider = await platform(server, 'POST', `/organizations/${ORG}/registry-providers`, {
    body: { data: { type: 'registry-providers', attributes: { name, namespace: ORG, 'registry-name': 'private' } } },
  });
  if (provider.status !== 201 && provider.status !== 422) await expectStatus('provider', provider, 201);
  const created = await platform(server, 'POST', `${providerPath(name)}/versions`, {
    body: { data: { type: 'registry-provider-versions', attributes: { version, 'key-id': signer.keyId, protocols: ['5.0'] } } },
  });
  await expectStatus('version', created, 201);
  const sums = Buffer.from(zips.map(({ filename, zip }) => `${sha256(zip)}  ${filename}\n`).join(''));
  const links = created.body.data.links;
  await expectStatus('shasums upload', { status: (await put(links['shasums-upload'], sums)).status, body: null }, 200);
  await expectStatus(
    'signature upload',
    { status: (await put(links['shasums-sig-upload'], await signer.sign(sums))).status, body: null },
    200,
  );
  for (const { os, arch, filename, zip } of zips) {
    const made = await platform(server, 'POST', `${providerPath(name)}/versions/${version}/platforms`, {
      body: { data: { type: 'registry-provider-platforms', attributes: { os, arch, shasum: sha256(zip), filename } } },
    });
    await expectStatus('platform', made, 201);
    const uploaded = await put(made.body.data.links['provider-binary-upload'], zip);
    await expectStatus('binary upload', { status: uploaded.status, body: await uploaded.text() }, 200);
  }
}
