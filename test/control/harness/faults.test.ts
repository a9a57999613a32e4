import vault from 'node-vault';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { platform, ROOT_TOKEN, startServer, type TestServer } from '../../helpers/app.js';
import { untilJournaled } from '../../helpers/events.js';
import { hvacInterpreter, missingHvacReason, runPython } from '../../helpers/python.js';
import { control, secrets } from './control.js';

if (!hvacInterpreter && !process.env.CI) console.warn(`skipping the hvac fault tests: ${missingHvacReason}`);

describe('fault and latency rules', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());
  beforeEach(async () => {
    await control(server, 'DELETE', '/faults');
    await control(server, 'DELETE', '/requests');
  });

  const addRule = async (rule: Record<string, unknown>) => {
    const { status, body } = await control(server, 'POST', '/faults', rule);
    expect(status, JSON.stringify(body)).toBe(201);
    return body as { id: string };
  };

  it("answers an injected status in each API's own error format, with the rule's headers, then expires after `times`", async () => {
    await addRule({ prefix: '/v1', status: 503, headers: { 'Retry-After': 2 }, times: 1 });
    const first = await secrets(server, 'GET', 'sys/mounts');
    expect(first.status).toBe(503);
    expect(first.headers.get('retry-after')).toBe('2');
    expect(first.body).toEqual({ errors: [expect.stringMatching(/^injected by understudy fault rule fault-/)] });
    expect((await secrets(server, 'GET', 'sys/mounts')).status).toBe(200);

    await addRule({ prefix: '/api/v2', method: 'get', status: 429, times: 1 });
    const refused = await platform(server, 'GET', '/organizations');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toBe('application/vnd.api+json');
    expect(refused.body.errors[0]).toMatchObject({ status: '429', title: 'injected fault' });
    const { body } = await control(server, 'GET', '/faults');
    expect(body.faults.map((rule: Record<string, unknown>) => [rule['matched'], rule['applied'], rule['active']])).toEqual([
      [1, 1, false],
      [1, 1, false],
    ]);
  });

  it('matches on path glob, method and token accessor; skips the first `after` matches; takes a body of its own', async () => {
    const other = (await secrets(server, 'POST', 'auth/token/create', { policies: ['root'] })).body.auth;
    await addRule({
      path: '/v1/secret/data/*',
      method: 'GET',
      'token-accessor': other.accessor,
      after: 1,
      status: 500,
      body: { errors: ['boom'] },
    });
    expect((await secrets(server, 'GET', 'secret/data/x', undefined, other.client_token)).status).toBe(404);
    expect((await secrets(server, 'GET', 'secret/data/x')).status).toBe(404);
    expect((await secrets(server, 'GET', 'secret/data/deeper/x', undefined, other.client_token)).status).toBe(404);
    const hit = await secrets(server, 'GET', 'secret/data/x', undefined, other.client_token);
    expect(hit).toMatchObject({ status: 500, body: { errors: ['boom'] } });
    const rule = (await control(server, 'GET', '/faults')).body.faults[0];
    expect(rule).toMatchObject({ matched: 2, applied: 1, active: true });
    await addRule({ path: '/v1/auth/token/create', status: 200, body: { auth: { client_token: 'hvs.fake-but-secret' } } });
    const listed = JSON.stringify((await control(server, 'GET', '/faults')).body);
    expect(listed).not.toContain('hvs.fake-but-secret');
    expect((await secrets(server, 'POST', 'auth/token/create', {})).body).toEqual({ auth: { client_token: 'hvs.fake-but-secret' } });
  });

  it('delays in real time, alone or before a status', async () => {
    await addRule({ prefix: '/v1', path: '/v1/sys/health', delay: 300 });
    const started = performance.now();
    expect((await secrets(server, 'GET', 'sys/health')).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    const entry = (await control(server, 'GET', '/requests?faulted=true')).body.requests[0];
    expect(entry).toMatchObject({ status: 200, fault: { effect: 'delay' } });
    expect(entry['duration-ms']).toBeGreaterThanOrEqual(290);
  });

  it('drops the connection (reset) and holds it until the client gives up (timeout); the journal marks both', async () => {
    await addRule({ path: '/v1/sys/mounts', reset: true, times: 1 });
    await expect(fetch(`${server.baseUrl}/v1/sys/mounts`, { headers: { 'x-vault-token': ROOT_TOKEN } })).rejects.toThrow();
    await addRule({ path: '/v1/sys/policy', timeout: true });
    const started = performance.now();
    await expect(
      fetch(`${server.baseUrl}/v1/sys/policy`, { headers: { 'x-vault-token': ROOT_TOKEN }, signal: AbortSignal.timeout(400) }),
    ).rejects.toThrow(/timeout|aborted/i);
    expect(performance.now() - started).toBeGreaterThanOrEqual(390);
    // The held request is journaled when the server sees the client go: the journal's event, not a pause.
    await untilJournaled(server, { path: '/v1/sys/policy', faulted: 'true' });
    const entries = (await control(server, 'GET', '/requests?faulted=true')).body.requests;
    expect(
      entries.map((entry: Record<string, unknown>) => [entry['path'], entry['status'], (entry['fault'] as { effect: string }).effect]),
    ).toEqual([
      ['/v1/sys/mounts', null, 'reset'],
      ['/v1/sys/policy', null, 'timeout'],
    ]);
  });

  it('applies with the given probability', async () => {
    await addRule({ prefix: '/v1', status: 503, probability: 0.5 });
    const statuses = [];
    for (let i = 0; i < 60; i++) statuses.push((await secrets(server, 'GET', 'sys/health')).status);
    const injected = statuses.filter((status) => status === 503).length;
    expect(injected).toBeGreaterThan(5);
    expect(injected).toBeLessThan(55);
    expect((await control(server, 'GET', '/faults')).body.faults[0]).toMatchObject({ matched: 60, applied: injected });
  });

  it('refuses a rule it cannot read, removes one or all, and /_emulator/reset clears them', async () => {
    for (const rule of [
      {},
      { status: 99 },
      { status: 503, reset: true },
      { delay: -1 },
      { status: 503, probability: 0 },
      { status: 503, times: 0 },
      { status: 503, prefix: 'v1' },
      { reset: true, headers: { 'Retry-After': 1 } },
      { status: 503, headers: { 'bad name': 1 } },
      { status: 503, colour: 'red' },
    ]) {
      const { status, body } = await control(server, 'POST', '/faults', rule);
      expect(status, JSON.stringify(rule)).toBe(400);
      expect(typeof body.error).toBe('string');
    }
    const one = await addRule({ prefix: '/v1', status: 503 });
    await addRule({ prefix: '/api/v2', status: 503 });
    expect((await control(server, 'GET', `/faults/${one.id}`)).body).toMatchObject({ id: one.id, status: 503 });
    expect((await control(server, 'DELETE', `/faults/${one.id}`)).status).toBe(204);
    expect((await control(server, 'DELETE', `/faults/${one.id}`)).status).toBe(404);
    expect((await secrets(server, 'GET', 'sys/health')).status).toBe(200);
    expect((await control(server, 'POST', '/reset')).status).toBe(200);
    expect((await control(server, 'GET', '/faults')).body).toEqual({ faults: [] });
    expect((await platform(server, 'GET', '/organizations')).status).toBe(200);
  });

  it('never touches the control plane', async () => {
    await addRule({ status: 503 });
    expect((await control(server, 'GET', '/clock')).status).toBe(200);
    expect((await control(server, 'GET', '/requests')).body.requests).toEqual([]);
  });

  it('node-vault sees the injected 503 as an error with its status and message; a plain retry honouring Retry-After succeeds', async () => {
    await addRule({ path: '/v1/sys/mounts', status: 503, headers: { 'Retry-After': 0 }, times: 2 });
    const client = vault({ endpoint: server.baseUrl, token: ROOT_TOKEN });
    await expect(client.mounts()).rejects.toMatchObject({ response: { statusCode: 503 }, message: expect.stringContaining('injected') });
    let response: Response;
    let attempts = 0;
    for (;;) {
      attempts += 1;
      response = await fetch(`${server.baseUrl}/v1/sys/mounts`, { headers: { 'x-vault-token': ROOT_TOKEN } });
      if (response.status !== 503 || attempts > 5) break;
      // The rule says to retry at once: a client honouring it waits 0 s, so the test need not wait at all.
      expect(response.headers.get('retry-after')).toBe('0');
    }
    expect(response.status).toBe(200);
    expect(attempts).toBe(2);
    expect((await control(server, 'GET', '/requests/count?path=/v1/sys/mounts')).body.count).toBe(3);
  });

  it.skipIf(!hvacInterpreter && !process.env.CI)(
    "hvac: an injected 503 and 429 take its error path (VaultDown, RateLimitExceeded); a session with urllib3's Retry retries through them",
    async () => {
      await addRule({ path: '/v1/secret/data/app', method: 'GET', status: 503, times: 1 });
      await addRule({ path: '/v1/secret/data/app', method: 'GET', status: 429, headers: { 'Retry-After': 0 }, times: 1 });
      await addRule({ path: '/v1/secret/data/app', method: 'GET', status: 503, after: 0, times: 2 });
      const script = `
import json, os, hvac, requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry
plain = hvac.Client(url=os.environ["VAULT_ADDR"], token=os.environ["VAULT_TOKEN"])
plain.secrets.kv.v2.create_or_update_secret(path="app", secret={"k": "v"})
errors = []
for _ in range(2):
    try:
        plain.secrets.kv.v2.read_secret_version(path="app")
    except hvac.exceptions.VaultError as error:
        errors.append([type(error).__name__, error.errors])
session = requests.Session()
session.mount("http://", HTTPAdapter(max_retries=Retry(total=3, status_forcelist=[503], backoff_factor=0, allowed_methods=None)))
retrying = hvac.Client(url=os.environ["VAULT_ADDR"], token=os.environ["VAULT_TOKEN"], session=session)
value = retrying.secrets.kv.v2.read_secret_version(path="app")["data"]["data"]
print(json.dumps({"errors": errors, "value": value}))
`;
      const result = await runPython(hvacInterpreter ?? 'python3', script, { VAULT_ADDR: server.baseUrl, VAULT_TOKEN: ROOT_TOKEN });
      expect(result.status, result.stderr).toBe(0);
      const out = JSON.parse(result.stdout) as { errors: [string, string[]][]; value: unknown };
      expect(out.errors.map(([name]) => name)).toEqual(['VaultDown', 'RateLimitExceeded']);
      expect(out.errors[0]?.[1]?.[0]).toMatch(/^injected by understudy fault rule/);
      expect(out.value).toEqual({ k: 'v' });
      const rules = (await control(server, 'GET', '/faults')).body.faults;
      expect(rules.map((rule: { applied: number }) => rule.applied)).toEqual([1, 1, 2]);
      expect((await control(server, 'GET', '/requests/count?path=/v1/secret/data/app&method=GET&faulted=true')).body.count).toBe(4);
    },
  );
});
