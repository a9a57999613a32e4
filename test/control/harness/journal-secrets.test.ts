import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, platform, ROOT_TOKEN, startServer, type TestServer } from '../../helpers/app.js';
import { md5 } from '../../platform/state/state-file.js';
import { control, secrets } from './control.js';

/**
 * Every kind of secret the two APIs carry in a body, sent and answered, then looked for in the
 * request journal (the list and the live stream): none may appear, by value or (for state, keys
 * and random bytes) in the base64 it travels as.
 */

const NOT_KEPT = '[not kept: this route carries secrets]';

/** Reads a server-sent event stream until `done()` says enough, then stops. */
async function streamed(server: TestServer, work: () => Promise<void>, until: (text: string) => boolean): Promise<string> {
  const abort = new AbortController();
  const response = await fetch(`${server.baseUrl}/_emulator/requests/stream`, { signal: abort.signal });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const readUntil = async (done: (text: string) => boolean) => {
    while (!done(text)) {
      const { value, done: ended } = await reader.read();
      if (ended) break;
      text += decoder.decode(value);
    }
  };
  await readUntil((seen) => seen.includes(': connected'));
  await work();
  await readUntil(until);
  abort.abort();
  return text;
}

describe('the request journal keeps no secret of any kind', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  /** Values that must never be shown; their base64 spellings are checked too. */
  const secretValues: string[] = [];
  const remember = (...values: (string | undefined)[]) => {
    for (const value of values) if (value) secretValues.push(value);
  };

  const exercise = async () => {
    // KV v2: a secret whose member is named like a descriptive one.
    await secrets(server, 'POST', 'secret/data/named', { data: { name: 'S3CRET-kv-name', description: 'S3CRET-kv-description' } });
    await secrets(server, 'GET', 'secret/data/named');
    remember('S3CRET-kv-name', 'S3CRET-kv-description');
    // Cubbyhole.
    await secrets(server, 'POST', 'cubbyhole/note', { path: 'S3CRET-cubby-path', name: 'S3CRET-cubby-name' });
    await secrets(server, 'GET', 'cubbyhole/note');
    remember('S3CRET-cubby-path', 'S3CRET-cubby-name');
    // Transit: an exportable key, exported and backed up; plaintext in, plaintext out.
    await secrets(server, 'POST', 'sys/mounts/transit', { type: 'transit' });
    expect((await secrets(server, 'POST', 'transit/keys/exp', { exportable: true, allow_plaintext_backup: true })).status).toBe(200);
    const exported = await secrets(server, 'GET', 'transit/export/encryption-key/exp');
    expect(exported.status).toBe(200);
    remember(...Object.values(exported.body.data.keys as Record<string, string>));
    const backup = await secrets(server, 'GET', 'transit/backup/exp');
    remember(backup.body.data.backup);
    const plaintext = Buffer.from('S3CRET-transit-plaintext').toString('base64');
    const encrypted = await secrets(server, 'POST', 'transit/encrypt/exp', { plaintext });
    await secrets(server, 'POST', 'transit/decrypt/exp', { ciphertext: encrypted.body.data.ciphertext });
    const datakey = await secrets(server, 'POST', 'transit/datakey/plaintext/exp', {});
    remember(plaintext, 'S3CRET-transit-plaintext', datakey.body.data.plaintext);
    // PKI: an issued certificate's private key.
    await secrets(server, 'POST', 'pki/root/generate/internal', { common_name: 'journal.test', ttl: '87600h' });
    await secrets(server, 'POST', 'pki/roles/web', { allow_any_name: true, key_type: 'ec', key_bits: 256 });
    const issued = await secrets(server, 'POST', 'pki/issue/web', { common_name: 'a.journal.test', ttl: '1h' });
    expect(issued.status).toBe(200);
    remember(issued.body.data.private_key);
    // Wrapping: a wrapped secret, its token, and the unwrapped answer.
    const wrapped = await fetch(`${server.baseUrl}/v1/sys/wrapping/wrap`, {
      method: 'POST',
      headers: { 'x-vault-token': ROOT_TOKEN, 'x-vault-wrap-ttl': '5m', 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'S3CRET-wrapped-type', ttl: 'S3CRET-wrapped-ttl' }),
    }).then((response) => response.json() as Promise<{ wrap_info: { token: string } }>);
    remember(wrapped.wrap_info.token, 'S3CRET-wrapped-type', 'S3CRET-wrapped-ttl');
    await secrets(server, 'POST', 'sys/wrapping/unwrap', { token: wrapped.wrap_info.token });
    // A KV read answered wrapped.
    const wrappedRead = await fetch(`${server.baseUrl}/v1/secret/data/named`, {
      headers: { 'x-vault-token': ROOT_TOKEN, 'x-vault-wrap-ttl': '5m' },
    }).then((response) => response.json() as Promise<{ wrap_info: { token: string } }>);
    remember(wrappedRead.wrap_info.token);
    // A token, by any other name.
    const created = await secrets(server, 'POST', 'auth/token/create', { policies: ['default'], display_name: 'journal' });
    remember(created.body.auth.client_token, ROOT_TOKEN, ADMIN_TOKEN);
    // State: a sensitive output inside a base64 upload.
    const workspace = await platform(server, 'POST', '/organizations/understudy/workspaces', {
      body: { data: { type: 'workspaces', attributes: { name: 'journal-state' } } },
    });
    const id = workspace.body.data.id as string;
    await platform(server, 'POST', `/workspaces/${id}/actions/lock`);
    const state = Buffer.from(
      JSON.stringify({
        version: 4,
        terraform_version: '1.11.4',
        serial: 1,
        lineage: 'journal-lineage',
        outputs: { password: { value: 'S3CRET-state-output', type: 'string', sensitive: true } },
        resources: [],
      }),
    );
    const upload = await platform(server, 'POST', `/workspaces/${id}/state-versions`, {
      body: {
        data: {
          type: 'state-versions',
          attributes: { serial: 1, lineage: 'journal-lineage', md5: md5(state), state: state.toString('base64') },
        },
      },
    });
    expect(upload.status).toBe(201);
    await platform(server, 'GET', `/workspaces/${id}/current-state-version-outputs`);
    remember('S3CRET-state-output', state.toString('base64').slice(0, 40));
    // VCS connections: an OAuth client's token string, secret (an application link's private key)
    // and private key, on create and update; an OAuth token's SSH key.
    const github = await platform(server, 'POST', '/organizations/understudy/oauth-clients', {
      body: {
        data: {
          type: 'oauth-clients',
          attributes: {
            'service-provider': 'github',
            'http-url': 'https://github.com',
            'api-url': 'https://api.github.com',
            'oauth-token-string': 'S3CRET-oauth-token-string',
          },
        },
      },
    });
    expect(github.status).toBe(201);
    const clientId = github.body.data.id as string;
    const updated = await platform(server, 'PATCH', `/oauth-clients/${clientId}`, {
      body: {
        data: {
          type: 'oauth-clients',
          attributes: {
            'oauth-token-string': 'S3CRET-oauth-token-string-2',
            secret: 'S3CRET-oauth-secret',
            'private-key': 'S3CRET-oauth-private-key',
          },
        },
      },
    });
    expect(updated.status).toBeLessThan(500);
    const sshPem = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'sec1', format: 'pem' }).toString();
    const tokenId = github.body.data.relationships['oauth-tokens'].data[0].id as string;
    const tokenPatch = await platform(server, 'PATCH', `/oauth-tokens/${tokenId}`, {
      body: { data: { type: 'oauth-tokens', attributes: { 'ssh-key': sshPem } } },
    });
    expect(tokenPatch.status).toBe(200);
    const bbdcKey = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const bbdcSecret = bbdcKey.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
    const bbdc = await platform(server, 'POST', '/organizations/understudy/oauth-clients', {
      body: {
        data: {
          type: 'oauth-clients',
          attributes: {
            'service-provider': 'bitbucket_data_center',
            'http-url': 'https://bbdc.test',
            'api-url': 'https://bbdc.test',
            key: 'consumer',
            secret: bbdcSecret,
            'rsa-public-key': bbdcKey.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
          },
        },
      },
    });
    expect(bbdc.status).toBe(201);
    remember(
      'S3CRET-oauth-token-string',
      'S3CRET-oauth-token-string-2',
      'S3CRET-oauth-secret',
      'S3CRET-oauth-private-key',
      ...pemLines(sshPem),
      ...pemLines(bbdcSecret),
    );
    // Workspace SSH keys: the private key on create and update.
    const sshKey = await platform(server, 'POST', '/organizations/understudy/ssh-keys', {
      body: { data: { type: 'ssh-keys', attributes: { name: 'journal', value: 'S3CRET-ssh-key-value' } } },
    });
    expect(sshKey.status).toBe(201);
    const sshKeyPatch = await platform(server, 'PATCH', `/ssh-keys/${sshKey.body.data.id}`, {
      body: { data: { type: 'ssh-keys', attributes: { value: 'S3CRET-ssh-key-value-2' } } },
    });
    expect(sshKeyPatch.status).toBe(200);
    // The same body on a doubled-slash spelling matches no route (404): the journal does not record it at all.
    const doubled = await fetch(`${server.baseUrl}//api/v2/organizations/understudy/ssh-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/vnd.api+json' },
      body: JSON.stringify({ data: { type: 'ssh-keys', attributes: { name: 'doubled', value: 'S3CRET-ssh-key-doubled' } } }),
    });
    expect(doubled.status).toBe(404);
    remember('S3CRET-ssh-key-value', 'S3CRET-ssh-key-value-2', 'S3CRET-ssh-key-doubled');
    // A sensitive variable, and an update that sends only its new value (the body does not say it is sensitive).
    const variable = await platform(server, 'POST', `/workspaces/${id}/vars`, {
      body: { data: { type: 'vars', attributes: { key: 'HIDDEN', value: 'S3CRET-variable', category: 'env', sensitive: true } } },
    });
    expect(variable.status).toBe(201);
    const variablePatch = await platform(server, 'PATCH', `/workspaces/${id}/vars/${variable.body.data.id}`, {
      body: { data: { type: 'vars', id: variable.body.data.id, attributes: { value: 'S3CRET-variable-2' } } },
    });
    expect(variablePatch.status).toBe(200);
    remember('S3CRET-variable', 'S3CRET-variable-2');
    const visible = await platform(server, 'POST', `/workspaces/${id}/vars`, {
      body: { data: { type: 'vars', attributes: { key: 'VISIBLE', value: 'plain-value', category: 'env', sensitive: false } } },
    });
    expect(visible.status).toBe(201);
    // A data retention policy carries no secret: its body is kept as sent.
    const retention = await platform(server, 'POST', '/organizations/understudy/relationships/data-retention-policy', {
      body: { data: { type: 'data-retention-policy-delete-olders', attributes: { 'delete-older-than-n-days': 30 } } },
    });
    expect(retention.status).toBe(201);
    // The last request: the stream reads up to it.
    await secrets(server, 'GET', 'sys/health');
  };

  /** The base64 lines of a PEM key: each must stay out of the journal on its own. */
  const pemLines = (pem: string) => pem.split('\n').filter((line) => line.length > 0 && !line.startsWith('-----'));

  const expectNoSecret = (text: string) => {
    for (const value of secretValues) {
      expect(text, value).not.toContain(value);
      expect(text, value).not.toContain(Buffer.from(value).toString('base64'));
    }
  };

  it('neither in the list nor in the live stream', async () => {
    const stream = await streamed(server, exercise, (text) => text.includes('/v1/sys/health'));
    expect(secretValues.length).toBeGreaterThan(30);
    expectNoSecret(stream);
    const list = JSON.stringify((await control(server, 'GET', '/requests')).body);
    expectNoSecret(list);
  });

  it('keeps no body of a route that carries secrets, and the descriptive top level of others', async () => {
    const entry = async (path: string, method = 'POST') =>
      (await control(server, 'GET', `/requests?path=${encodeURIComponent(path)}&method=${method}`)).body.requests.at(-1);
    for (const path of [
      '/v1/secret/data/named',
      '/v1/cubbyhole/note',
      '/v1/transit/encrypt/exp',
      '/v1/sys/wrapping/wrap',
      '/v1/pki/issue/web',
    ]) {
      const kept = await entry(path);
      expect(kept['request-body'], path).toBe(NOT_KEPT);
      expect(kept['response-body'], path).toBe(NOT_KEPT);
    }
    expect((await entry('/v1/transit/export/encryption-key/exp', 'GET'))['response-body']).toBe(NOT_KEPT);
    const stateUpload = await entry('/api/v2/workspaces/*/state-versions');
    expect(stateUpload['request-body']).toBe(NOT_KEPT);
    // Descriptive members at the top level are kept; text below them is not.
    const role = await entry('/v1/pki/roles/web');
    expect(role['request-body']).toEqual({ allow_any_name: true, key_type: 'ec', key_bits: 256 });
    const token = await entry('/v1/auth/token/create');
    expect(token['request-body']).toEqual({ policies: ['default'], display_name: 'journal' });
    expect(token['response-body'].auth).toMatchObject({ client_token: '[redacted]', policies: ['default'] });
    const mount = await entry('/v1/sys/mounts/transit');
    expect(mount['request-body']).toEqual({ type: 'transit' });
    // Platform bodies keep what describes; the secrets go by name, or the route keeps no body.
    const client = await entry('/api/v2/organizations/understudy/oauth-clients');
    expect(client['request-body'].data.attributes).toMatchObject({
      'service-provider': 'bitbucket_data_center',
      'http-url': 'https://bbdc.test',
      secret: '[redacted]',
    });
    expect((await entry('/api/v2/oauth-tokens/*', 'PATCH'))['request-body']).toBe(NOT_KEPT);
    expect((await entry('/api/v2/organizations/understudy/ssh-keys'))['request-body']).toBe(NOT_KEPT);
    expect((await entry('/api/v2/ssh-keys/*', 'PATCH'))['request-body']).toBe(NOT_KEPT);
    // A variable's value is kept only when its attributes say it is not sensitive.
    const variables = (await control(server, 'GET', '/requests?path=/api/v2/workspaces/*/vars/**')).body.requests as {
      method: string;
      'request-body': { data: { attributes: { key?: string; value: string } } };
    }[];
    expect(variables.map((kept) => [kept.method, kept['request-body'].data.attributes.value])).toEqual([['PATCH', '[redacted]']]);
    const created = (await control(server, 'GET', '/requests?path=/api/v2/workspaces/*/vars&method=POST')).body.requests as {
      'request-body': { data: { attributes: Record<string, unknown> } };
    }[];
    expect(created.map((kept) => kept['request-body'].data.attributes)).toMatchObject([
      { category: 'env', sensitive: true, value: '[redacted]' },
      { category: 'env', sensitive: false, value: 'plain-value' },
    ]);
    const retention = await entry('/api/v2/organizations/understudy/relationships/data-retention-policy');
    expect(retention['request-body']).toEqual({
      data: { type: 'data-retention-policy-delete-olders', attributes: { 'delete-older-than-n-days': 30 } },
    });
  });
});
