import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, platform, ROOT_TOKEN, startServer, type TestServer } from '../../helpers/app.js';
import { control, secrets } from './control.js';

describe('the request journal', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());
  beforeEach(async () => {
    expect((await control(server, 'DELETE', '/requests')).status).toBe(200);
  });

  it('records /api/v2, the registry and /v1 with method, path, query, status, time and caller; never the control plane', async () => {
    await platform(server, 'GET', '/organizations?page%5Bsize%5D=1');
    await fetch(`${server.baseUrl}/api/registry/v1/modules/understudy/`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    await secrets(server, 'GET', 'auth/token/lookup-self');
    await control(server, 'GET', '/clock');
    const { status, body } = await control(server, 'GET', '/requests');
    expect(status).toBe(200);
    const entries = body.requests as Record<string, string>[];
    expect(entries.map((entry) => `${entry['method']} ${entry['path']}`)).toEqual([
      'GET /api/v2/organizations',
      'GET /api/registry/v1/modules/understudy/',
      'GET /v1/auth/token/lookup-self',
    ]);
    const [organizations, , lookup] = entries;
    expect(organizations).toMatchObject({ query: { 'page[size]': '1' }, status: 200, 'token-accessor': expect.stringMatching(/^at-/) });
    expect(Date.parse(organizations?.['time'] as string)).toBeGreaterThan(Date.now() - 60_000);
    expect(typeof organizations?.['duration-ms']).toBe('number');
    expect(organizations?.['virtual-time']).toMatch(/^\d{4}-/);
    const self = await secrets(server, 'GET', 'auth/token/lookup-self');
    expect(lookup?.['token-accessor']).toBe(self.body.data.accessor);
  });

  it("names each platform token's own id when requests alternate between tokens", async () => {
    const me = await platform(server, 'GET', '/account/details');
    const created = await platform(server, 'POST', `/users/${me.body.data.id}/authentication-tokens`, {
      body: { data: { type: 'authentication-tokens', attributes: { description: 'second caller' } } },
    });
    expect(created.status).toBe(201);
    const second = { id: created.body.data.id as string, token: created.body.data.attributes.token as string };
    const read = (token: string) =>
      fetch(`${server.baseUrl}/api/v2/organizations/understudy`, { headers: { authorization: `Bearer ${token}` } }).then((r) =>
        r.arrayBuffer(),
      );
    await control(server, 'DELETE', '/requests');
    for (const token of [ADMIN_TOKEN, second.token, ADMIN_TOKEN, second.token]) await read(token);
    const subjects = (await control(server, 'GET', '/requests')).body.requests.map(
      (entry: Record<string, string>) => entry['token-accessor'],
    );
    expect(subjects[0]).toMatch(/^at-/);
    expect(subjects[0]).not.toBe(second.id);
    expect(subjects).toEqual([subjects[0], second.id, subjects[0], second.id]);
  });

  it('keeps no secret in clear: tokens, passwords, written values, created tokens', async () => {
    await secrets(server, 'POST', 'secret/data/app', { data: { password: 'hunter2-journal', note: 'plain-but-secret' } });
    await secrets(server, 'GET', 'secret/data/app');
    const created = await secrets(server, 'POST', 'auth/token/create', { policies: ['default'], ttl: '1h' });
    const me = await platform(server, 'GET', '/account/details');
    const token = await platform(server, 'POST', `/users/${me.body.data.id}/authentication-tokens`, {
      body: { data: { type: 'authentication-tokens', attributes: { description: 'ci' } } },
    });
    expect(token.status).toBe(201);
    await fetch(`${server.baseUrl}/v1/secret/data/app?token=${ROOT_TOKEN}`, { headers: { 'x-vault-token': ROOT_TOKEN } });
    const text = JSON.stringify((await control(server, 'GET', '/requests')).body);
    for (const secret of [
      ROOT_TOKEN,
      ADMIN_TOKEN,
      'hunter2-journal',
      'plain-but-secret',
      created.body.auth.client_token,
      token.body.data.attributes.token,
    ])
      expect(text).not.toContain(secret);
    const { body } = await control(server, 'GET', '/requests?path=/v1/secret/data/app&method=POST');
    // A KV write's bodies are the secrets themselves: not kept at all (journal-secrets.test.ts).
    expect(body.requests[0]['request-body']).toBe('[not kept: this route carries secrets]');
    const create = (await control(server, 'GET', '/requests?path=/v1/auth/token/create')).body.requests[0];
    expect(create['request-body']).toEqual({ policies: ['default'], ttl: '1h' });
    expect(create['response-body'].auth).toMatchObject({
      client_token: '[redacted]',
      policies: ['default'],
      accessor: created.body.auth.accessor,
    });
    const withQuery = (await control(server, 'GET', '/requests?path=/v1/secret/data/app&method=GET')).body.requests;
    expect(withQuery.at(-1).query).toEqual({ token: '[redacted]' });
  });

  it('keeps no platform secret in clear: hmac-key, a sensitive variable value, a self-authorizing link', async () => {
    const task = await platform(server, 'POST', '/organizations/understudy/tasks', {
      body: {
        data: {
          type: 'tasks',
          attributes: {
            name: 'scan',
            url: 'http://127.0.0.1:9/hook',
            description: 'checks',
            category: 'task',
            'hmac-key': 'hmac-in-clear',
          },
        },
      },
    });
    expect(task.status, JSON.stringify(task.body)).toBe(201);
    const ws = await platform(server, 'POST', '/organizations/understudy/workspaces', {
      body: { data: { type: 'workspaces', attributes: { name: 'journal-vars' } } },
    });
    const variable = await platform(server, 'POST', `/workspaces/${ws.body.data.id}/vars`, {
      body: { data: { type: 'vars', attributes: { key: 'db_password', value: 'variable-in-clear', category: 'env', sensitive: true } } },
    });
    expect(variable.status).toBe(201);
    await platform(server, 'POST', `/workspaces/${ws.body.data.id}/vars`, {
      body: { data: { type: 'vars', attributes: { key: 'region', value: 'plain-region', category: 'env' } } },
    });
    await fetch(`${server.baseUrl}/api/registry/archives/link-credential-in-clear/module.tar.gz`);
    const text = JSON.stringify((await control(server, 'GET', '/requests')).body);
    for (const secret of ['hmac-in-clear', 'variable-in-clear', 'link-credential-in-clear']) expect(text).not.toContain(secret);
    expect(text).toContain('plain-region');
    expect(text).toContain('/api/registry/archives/[redacted]/module.tar.gz');
  });

  it('filters by method, path glob, prefix, status, since, token accessor and limit; counts with the same filters', async () => {
    await secrets(server, 'POST', 'secret/data/a', { data: { x: '1' } });
    await secrets(server, 'POST', 'secret/data/b/c', { data: { x: '1' } });
    await secrets(server, 'GET', 'secret/data/missing');
    const first = (await control(server, 'GET', '/requests')).body.requests.at(-1).id as number;
    await platform(server, 'GET', '/organizations/understudy');
    await platform(server, 'GET', '/organizations/nope');
    const count = async (query: string) => (await control(server, 'GET', `/requests/count?${query}`)).body.count as number;
    expect(await count('method=post')).toBe(2);
    expect(await count('path=/v1/secret/data/*')).toBe(2);
    expect(await count('path=/v1/secret/data/**')).toBe(3);
    expect(await count('prefix=/api/v2')).toBe(2);
    expect(await count('status=404')).toBe(2);
    expect(await count('status=4xx&prefix=/v1')).toBe(1);
    expect(await count(`since=${first}`)).toBe(2);
    const accessor = (await secrets(server, 'GET', 'auth/token/lookup-self')).body.data.accessor as string;
    expect(await count(`token-accessor=${accessor}`)).toBe(4);
    const limited = (await control(server, 'GET', '/requests?limit=2')).body.requests;
    expect(limited.map((entry: { path: string }) => entry.path)).toEqual(['/api/v2/organizations/nope', '/v1/auth/token/lookup-self']);
    const since = new Date(Date.now() + 60_000).toISOString();
    expect(await count(`since=${since}`)).toBe(0);
  });

  it('records the method a client sent as LIST', async () => {
    const net = await import('node:net');
    const url = new URL(server.baseUrl);
    await new Promise<void>((resolve, reject) => {
      const socket = net.connect(Number(url.port), url.hostname, () =>
        socket.write(`LIST /v1/secret/metadata/ HTTP/1.1\r\nHost: x\r\nX-Vault-Token: ${ROOT_TOKEN}\r\nConnection: close\r\n\r\n`),
      );
      socket
        .on('data', () => undefined)
        .on('end', resolve)
        .on('error', reject);
    });
    expect((await control(server, 'GET', '/requests/count?method=LIST&path=/v1/secret/metadata/')).body.count).toBe(1);
  });

  it('refuses filters it cannot read with a 400', async () => {
    for (const query of ['status=abc', 'since=yesterday', 'limit=0', 'limit=x', 'faulted=maybe']) {
      const { status, body } = await control(server, 'GET', `/requests?${query}`);
      expect(status, query).toBe(400);
      expect(body.error, query).toMatch(/^"/);
    }
  });

  it('empties with DELETE', async () => {
    await secrets(server, 'GET', 'sys/health');
    expect((await control(server, 'DELETE', '/requests')).body).toEqual({ cleared: 1 });
    expect((await control(server, 'GET', '/requests')).body).toEqual({ requests: [] });
  });

  it('streams new entries as server-sent events', async () => {
    const abort = new AbortController();
    const response = await fetch(`${server.baseUrl}/_emulator/requests/stream?prefix=/v1`, { signal: abort.signal });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const readUntil = async (needle: string) => {
      while (!text.includes(needle)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value);
      }
    };
    await readUntil(': connected');
    await platform(server, 'GET', '/organizations');
    await secrets(server, 'GET', 'sys/health');
    await readUntil('sys/health');
    abort.abort();
    const events = text.split('\n\n').filter((block) => block.includes('event: request'));
    expect(events).toHaveLength(1);
    const data = JSON.parse(
      events[0]!
        .split('\n')
        .find((line) => line.startsWith('data: '))!
        .slice(6),
    );
    expect(data).toMatchObject({ method: 'GET', path: '/v1/sys/health', status: 200 });
  });
});

describe('the journal size', () => {
  it('keeps the newest UNDERSTUDY_JOURNAL_SIZE requests', async () => {
    const server = await startServer({ UNDERSTUDY_JOURNAL_SIZE: '3' });
    try {
      for (const path of ['sys/health', 'sys/seal-status', 'sys/mounts', 'sys/policy']) await secrets(server, 'GET', path);
      const { body } = await control(server, 'GET', '/requests');
      expect(body.requests.map((entry: { path: string }) => entry.path)).toEqual([
        '/v1/sys/seal-status',
        '/v1/sys/mounts',
        '/v1/sys/policy',
      ]);
    } finally {
      await server.close();
    }
  });

  it('is off at 0: the endpoints say so', async () => {
    const server = await startServer({ UNDERSTUDY_JOURNAL_SIZE: '0' });
    try {
      await secrets(server, 'GET', 'sys/health');
      const { status, body } = await control(server, 'GET', '/requests');
      expect(status).toBe(409);
      expect(body.error).toContain('UNDERSTUDY_JOURNAL_SIZE=0');
      expect(server.app.harness.journal).toBeNull();
    } finally {
      await server.close();
    }
  });
});
