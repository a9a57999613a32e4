import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_TOKEN, startServer, type TestServer } from '../../helpers/app.js';
import { hvacInterpreter, missingHvacReason, runPython } from '../../helpers/python.js';
import { vault } from '../ssh/support.js';

/**
 * Role-based quotas: a quota with `role` governs only logins of that role on its auth mount, and
 * takes precedence over the mount's own quota; other roles and other requests fall to that.
 */
let server: TestServer;
const secretIds: Record<string, string> = {};

const login = (role: string) => vault(server, 'POST', 'auth/approle/login', { role_id: `${role}-role-id`, secret_id: secretIds[role] });

beforeAll(async () => {
  server = await startServer();
  expect((await vault(server, 'POST', 'sys/auth/approle', { type: 'approle' })).status).toBe(204);
  for (const role of ['ci', 'deploy']) {
    expect((await vault(server, 'POST', `auth/approle/role/${role}`, { token_policies: 'default' })).status).toBe(204);
    expect((await vault(server, 'POST', `auth/approle/role/${role}/role-id`, { role_id: `${role}-role-id` })).status).toBe(204);
    const secretId = await vault(server, 'POST', `auth/approle/role/${role}/secret-id`, {});
    expect(secretId.status).toBe(200);
    secretIds[role] = secretId.body.data.secret_id;
  }
});
afterAll(() => server.close());

describe('rate-limit quotas with a role', () => {
  it('limit the logins of that role only; the mount quota governs the rest', async () => {
    expect(
      (await vault(server, 'POST', 'sys/quotas/rate-limit/ci-logins', { path: 'auth/approle/', role: 'ci', rate: 2, interval: '1h' }))
        .status,
    ).toBe(204);
    expect((await vault(server, 'POST', 'sys/quotas/rate-limit/approle', { path: 'auth/approle', rate: 5, interval: '1h' })).status).toBe(
      204,
    );
    expect((await vault(server, 'GET', 'sys/quotas/rate-limit/ci-logins')).body.data).toMatchObject({ path: 'auth/approle/', role: 'ci' });

    expect((await login('ci')).status).toBe(200);
    expect((await login('ci')).status).toBe(200);
    const refused = await login('ci');
    expect(refused.status).toBe(429);
    expect(refused.body.errors).toEqual(['request path "auth/approle/login": rate limit quota exceeded']);

    // deploy's logins and a read of the mount count against the mount quota (5): four pass, the fifth one too, then 429.
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await login('deploy')).status);
    statuses.push((await vault(server, 'GET', 'auth/approle/role/deploy')).status);
    statuses.push((await login('deploy')).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    // A login naming an unknown role ID is no role's: the (spent) mount quota answers.
    expect((await vault(server, 'POST', 'auth/approle/login', { role_id: 'nobody' })).status).toBe(429);
  });

  it.skipIf(!hvacInterpreter && !process.env.CI)('are written, read, listed and deleted with hvac (its generic calls)', async () => {
    if (!hvacInterpreter) throw new Error(missingHvacReason);
    const script = `
import os, hvac
client = hvac.Client(url=os.environ["VAULT_ADDR"], token=os.environ["VAULT_TOKEN"])
# hvac 0.11.2 has no quota methods, and write() takes no "path" field: its adapter posts the body.
body = {"path": "auth/approle", "role": "deploy", "rate": 7, "interval": "30s", "block_interval": "1m"}
client.adapter.post("/v1/sys/quotas/rate-limit/hvac", json=body)
print(sorted(client.list("sys/quotas/rate-limit")["data"]["keys"]))
data = client.read("sys/quotas/rate-limit/hvac")["data"]
print(data["path"], data["role"], data["rate"], data["interval"], data["block_interval"])
client.write("sys/quotas/config", enable_rate_limit_response_headers=True)
print(client.read("sys/quotas/config")["data"]["enable_rate_limit_response_headers"])
client.delete("sys/quotas/rate-limit/hvac")
print(client.read("sys/quotas/rate-limit/hvac"))
`;
    const result = await runPython(hvacInterpreter ?? 'python3', script, { VAULT_ADDR: server.baseUrl, VAULT_TOKEN: ROOT_TOKEN });
    expect(result.stderr).toBe('');
    expect(result.stdout.trim().split('\n')).toEqual(["['approle', 'ci-logins', 'hvac']", 'auth/approle/ deploy 7 30 60', 'True', 'None']);
  });
});
